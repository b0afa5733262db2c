import { request } from 'node:http';
import { createServer } from 'node:net';

/** One request of a bench case, as every target receives it (the path differs per target). */
export interface ProbeRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface ProbeResponse {
  status: number;
  /** Header names and values in wire order (`rawHeaders`), names as the server wrote them. */
  headers: [string, string][];
  body: string;
}

/**
 * Asks the OS for a free loopback port. The port is released before it is returned, so another
 * process could take it in between; on a bench machine that is rare enough, and every start
 * checks that the server answers.
 */
export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', (error) => reject(new Error(`Failed to find a free port: ${error.message}`)));
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() =>
        port > 0 ? resolve(port) : reject(new Error('Failed to find a free port: no port assigned')),
      );
    });
  });
}

/**
 * Sends one request on a fresh connection (no keep-alive, so a poll never holds a socket open).
 * Rejects on connection errors and after `timeoutMs`.
 */
export function probe(port: number, spec: ProbeRequest, timeoutMs = 2_000): Promise<ProbeResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...spec.headers, connection: 'close' };
    if (spec.body !== undefined) headers['content-length'] = String(Buffer.byteLength(spec.body));
    const outgoing = request(
      { host: '127.0.0.1', port, method: spec.method, path: spec.path, headers, agent: false, timeout: timeoutMs },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', reject);
        incoming.on('end', () => {
          const pairs: [string, string][] = [];
          for (let index = 0; index + 1 < incoming.rawHeaders.length; index += 2)
            pairs.push([incoming.rawHeaders[index]!, incoming.rawHeaders[index + 1]!]);
          resolve({ status: incoming.statusCode ?? 0, headers: pairs, body: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    outgoing.on('error', reject);
    outgoing.end(spec.body);
  });
}

/**
 * Polls until the server answers `spec` with `expectedStatus` (any status when undefined), every
 * `intervalMs`, giving up after `timeoutMs`. Returns the first good response.
 */
export async function waitForAnswer(
  port: number,
  spec: ProbeRequest,
  options: { expectedStatus?: number; intervalMs?: number; timeoutMs?: number; isAlive?: () => boolean } = {},
): Promise<ProbeResponse> {
  const interval = options.intervalMs ?? 5;
  const deadline = performance.now() + (options.timeoutMs ?? 30_000);
  let last = 'no answer yet';
  while (performance.now() < deadline) {
    if (options.isAlive && !options.isAlive()) throw new Error('the process exited before it answered');
    try {
      const response = await probe(port, spec, 1_000);
      if (options.expectedStatus === undefined || response.status === options.expectedStatus) return response;
      last = `answered ${response.status}, expected ${options.expectedStatus}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
  throw new Error(`no good answer within ${options.timeoutMs ?? 30_000} ms (last: ${last})`);
}

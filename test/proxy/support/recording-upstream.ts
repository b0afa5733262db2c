import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { readWireRequest, valuesOf, type WireRequest } from './strict-request-reader.js';

/** What the upstream saw on one of its connections. */
type UpstreamRecord =
  | { kind: 'request'; connection: number; request: WireRequest; id: string | undefined }
  /** Bytes a strict server could not read as a request: the proxy sent something ambiguous. */
  | { kind: 'malformed'; connection: number; reason: string }
  /** A connection closed in the middle of a request: the proxy sent a message without its end. */
  | { kind: 'incomplete'; connection: number; bytes: number };

export interface RecordingUpstream {
  /** `http://127.0.0.1:PORT/up/v1`: the base URL to give the proxy. */
  baseUrl: string;
  records: UpstreamRecord[];
  /** How many TCP connections the proxy opened (several clients share them through its pool). */
  connections(): number;
  close(): Promise<void>;
}

/** The field the tests put a request's own id in; the upstream answers with it. */
const requestIdField = 'x-request-id';

/**
 * A raw `net` server standing for the real API behind the proxy: it reads what arrives with the
 * strict reader (never node's parser, which is the proxy's own), records each request, and
 * answers each with a small JSON body echoing the request's id, so a client can tell whether the
 * answer it got was made for its request. Anything it cannot read is recorded and the connection
 * closed, as a careful server would.
 *
 * @example const upstream = await startRecordingUpstream(); startProxyServer({ upstream: upstream.baseUrl, port: 0 });
 */
export async function startRecordingUpstream(): Promise<RecordingUpstream> {
  const records: UpstreamRecord[] = [];
  const sockets = new Set<Socket>();
  let opened = 0;
  const server: Server = createServer((socket) => {
    const connection = opened;
    opened += 1;
    sockets.add(socket);
    let pending: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const read = readWireRequest(pending);
        if (read.kind === 'incomplete') return;
        if (read.kind === 'malformed') {
          records.push({ kind: 'malformed', connection, reason: read.reason });
          pending = Buffer.alloc(0);
          socket.destroy();
          return;
        }
        pending = read.rest;
        const id = valuesOf(read.request.headers, requestIdField)[0];
        records.push({ kind: 'request', connection, request: read.request, id });
        socket.write(answerFor(read.request, id));
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      sockets.delete(socket);
      if (pending.length > 0) records.push({ kind: 'incomplete', connection, bytes: pending.length });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/up/v1`,
    records,
    connections: () => opened,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function answerFor(request: WireRequest, id: string | undefined): string {
  const body = JSON.stringify({ id: id ?? null, method: request.method, target: request.target });
  const bodyless = request.method === 'HEAD';
  return [
    'HTTP/1.1 200 OK',
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Echo-Id: ${id ?? ''}`,
    '',
    bodyless ? '' : body,
  ].join('\r\n');
}

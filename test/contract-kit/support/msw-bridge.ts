import { createServer, type IncomingMessage } from 'node:http';
import { getResponse } from 'msw';
import { createPetstoreHandlers, type PetstoreHandlersOptions } from '../../../mocks/handlers.js';
import { readSpecFile } from '../../../spec/load-spec.js';
import { listenOnLoopback } from './loopback.js';

export interface MswBridge {
  /** `http://127.0.0.1:PORT/v1` */
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * The MSW handlers as a real HTTP target for the contract suite, with no interception at all:
 * a node:http server turns each request into a fetch `Request`, asks MSW's own
 * `getResponse(handlers, request)` for the answer, and writes it back. Only translation lives
 * here; every rule is in the handlers (and so in the core they call).
 *
 * @example const bridge = await startMswBridge({ seed: 1 }); await runContract({ baseUrl: bridge.baseUrl, apiKey: 'demo-pro' });
 */
export async function startMswBridge(options: Omit<PetstoreHandlersOptions, 'spec'> = {}): Promise<MswBridge> {
  const { handlers } = createPetstoreHandlers({ ...options, spec: await readSpecFile() });
  const server = createServer((incoming, outgoing) => {
    void (async () => {
      const request = await toRequest(incoming);
      const response =
        (await getResponse(handlers, request)) ??
        new Response(JSON.stringify({ code: 'not_found', message: 'No MSW handler matched', status: 404 }), {
          status: 404,
          headers: { 'Content-Type': 'application/json' },
        });
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        headers[name] = value;
      });
      outgoing.writeHead(response.status, headers);
      outgoing.end(Buffer.from(await response.arrayBuffer()));
    })().catch((error: unknown) => {
      outgoing
        .writeHead(500, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ code: 'bridge_error', message: String(error), status: 500 }));
    });
  });
  return listenOnLoopback(server);
}

async function toRequest(incoming: IncomingMessage): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const method = incoming.method ?? 'GET';
  const body = chunks.length === 0 || method === 'GET' || method === 'HEAD' ? null : Buffer.concat(chunks);
  return new Request(`http://${incoming.headers.host ?? '127.0.0.1'}${incoming.url ?? '/'}`, { method, headers, body });
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MockApp } from '../core/mock-app.js';
import type { Logger, MockResponse } from '../core/types.js';
import { silentLogger } from '../core/types.js';

/**
 * The node:http transport: translates an IncomingMessage to a MockRequest, calls the core, writes
 * the MockResponse. No routing, auth or validation here. A body over `maxBodyBytes` is never read
 * into memory: the core answers 413 and the connection is closed.
 *
 * @example http.createServer(createNodeListener(app)).listen(4010)
 */
export function createNodeListener(app: MockApp, logger: Logger = silentLogger, options: { isClosing?: () => boolean } = {}): (request: IncomingMessage, response: ServerResponse) => void {
  const maxBodyBytes = app.config.maxBodyBytes;
  const isClosing = options.isClosing ?? (() => false);
  const send = (response: ServerResponse, result: MockResponse) => {
    if (isClosing()) response.shouldKeepAlive = false;
    write(response, result, logger);
  };

  return (request, response) => {
    request.on('error', () => request.destroy());
    response.on('error', () => response.destroy());
    const headers = flattenHeaders(request.headers);
    const base = { method: request.method ?? 'GET', url: request.url ?? '/', headers, clientAddress: request.socket.remoteAddress ?? 'unknown' };
    const declaredLength = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);

    if (declaredLength === undefined && headers['transfer-encoding'] === undefined) {
      // No body on the wire: answer at once, the common case of every GET.
      send(response, app.handle({ ...base, body: null }));
      return;
    }
    if (declaredLength !== undefined && declaredLength > maxBodyBytes) {
      refuseBody(request, response, app.handle({ ...base, body: null, bodyTooLarge: true }), send);
      return;
    }

    const chunks: Buffer[] = [];
    let received = 0;
    let done = false;
    request.on('data', (chunk: Buffer) => {
      if (done) return;
      received += chunk.length;
      if (received > maxBodyBytes) {
        done = true;
        refuseBody(request, response, app.handle({ ...base, body: null, bodyTooLarge: true }), send);
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      if (done) return;
      done = true;
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      send(response, app.handle({ ...base, body: new Uint8Array(body.buffer, body.byteOffset, body.byteLength) }));
    });
  };
}

function write(response: ServerResponse, result: MockResponse, logger: Logger): void {
  if (response.headersSent || response.destroyed) return;
  try {
    if (result.body === null) {
      response.writeHead(result.status, result.headers);
      response.end();
    } else {
      // A string body goes out in one write with the headers; a Buffer would take two.
      result.headers['Content-Length'] = String(Buffer.byteLength(result.body, 'utf8'));
      response.writeHead(result.status, result.headers);
      response.end(result.body, 'utf8');
    }
  } catch (error) {
    logger.error(`Failed to write a response: ${(error as Error).message}`);
    response.destroy();
  }
}

/** Answers (413) without reading the rest of the body, then drops the connection. */
function refuseBody(request: IncomingMessage, response: ServerResponse, result: MockResponse, send: (response: ServerResponse, result: MockResponse) => void): void {
  request.pause();
  response.shouldKeepAlive = false;
  send(response, { ...result, headers: { ...result.headers, Connection: 'close' } });
  response.once('finish', () => setTimeout(() => request.destroy(), 50).unref());
}

function flattenHeaders(headers: IncomingMessage['headers']): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const name in headers) {
    const value = headers[name];
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

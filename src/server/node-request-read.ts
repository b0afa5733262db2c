// Imported, not the global: node's global Buffer is a getter, read through a slow global load on every request.
import { Buffer } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import type { MockRequest } from '../core/types.js';

// How the node adapter reads one IncomingMessage into the MockRequest the core takes: its head at
// once, its body (when it has one) as it arrives, never more than the app's limit kept in memory.

/** Where the request came from and arrived: the socket's addresses, read once per connection. */
export interface RequestAddresses {
  readonly clientAddress: string;
  readonly serverAddress: string | undefined;
}

/**
 * The request line and headers as the core takes them. An absolute-form target (RFC 9112 section
 * 3.2.2, `GET http://host:port/v1/categories`, what a client talking to a proxy sends) is served
 * like its origin form, and its authority replaces `Host`, as the RFC asks of an origin server.
 */
export function toMockRequestHead(request: IncomingMessage, addresses: RequestAddresses): MockRequest {
  const headers = flattenHeaders(request.headers);
  let url = request.url ?? '/';
  if (url.charCodeAt(0) !== 47 && /^https?:\/\//i.test(url)) {
    try {
      const parsed = new URL(url);
      url = `${parsed.pathname}${parsed.search}`;
      headers.host = parsed.host;
    } catch {
      // Not a URL after all: the core answers the target as it came (404).
    }
  }
  // body null until one is read (a request without one goes to the core as it is).
  return {
    method: request.method ?? 'GET',
    url,
    headers,
    body: null,
    clientAddress: addresses.clientAddress,
    serverAddress: addresses.serverAddress,
  };
}

function flattenHeaders(headers: IncomingMessage['headers']): Record<string, string | undefined> {
  // node joins repeated request headers into one string, except set-cookie: only then is a copy needed.
  if (headers['set-cookie'] === undefined) return headers as Record<string, string | undefined>;
  const out: Record<string, string | undefined> = {};
  for (const name in headers) {
    const value = headers[name];
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** Called once a request's body is in (`unread`: it was refused, not read, and the connection closes after the answer). */
export type BodyRead = (ready: MockRequest, unread?: boolean) => void;

/**
 * Reads the body of `request` into `base.body`, then calls `done`. A body past `maxBodyBytes` is
 * not kept: `done` gets the request marked `bodyTooLarge` (the core answers 413), and what still
 * comes is read and thrown away (the answer is followed by a lingering close).
 */
export function readMockRequestBody(
  request: IncomingMessage,
  base: MockRequest,
  maxBodyBytes: number,
  done: BodyRead,
): void {
  const chunks: Buffer[] = [];
  let received = 0;
  let finished = false;
  request.on('data', (chunk: Buffer) => {
    if (finished) return;
    received += chunk.length;
    if (received > maxBodyBytes) {
      // Not paused: what still comes is read and thrown away, and the answer is followed by a lingering close.
      finished = true;
      chunks.length = 0;
      done({ ...base, body: null, bodyTooLarge: true }, true);
      return;
    }
    chunks.push(chunk);
  });
  request.on('end', () => {
    if (finished) return;
    finished = true;
    // A Buffer is a Uint8Array: the core takes it as it is.
    base.body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    done(base);
  });
}

import type { IncomingMessage } from 'node:http';
import { endToEndFields, type RequestFraming } from './proxy-request-head.js';

/** RFC 9110 section 7.6.1: these describe one connection and are never forwarded. */
const hopByHop = new Set(['connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/**
 * The raw header list without the hop-by-hop fields: the fixed ones, `Proxy-*`, and whatever
 * `Connection` names, except the end-to-end fields a nomination may not remove (Content-Length,
 * Host...: a request naming them is refused before this; an answer's nomination is ignored, so
 * its framing survives). Order, case and repeats of the rest are kept as sent.
 *
 * @example forwardedHeaders(['Host', 'a', 'Connection', 'x-trace', 'X-Trace', '1', 'Accept', '*\/*']) // ['Host', 'a', 'Accept', '*\/*']
 */
export function forwardedHeaders(raw: readonly string[]): string[] {
  const named = new Set<string>();
  for (let index = 0; index < raw.length; index += 2)
    if (raw[index]!.toLowerCase() === 'connection')
      for (const token of raw[index + 1]!.split(',')) {
        const name = token.trim().toLowerCase();
        if (!endToEndFields.has(name)) named.add(name);
      }
  const out: string[] = [];
  for (let index = 0; index < raw.length; index += 2) {
    const name = raw[index]!.toLowerCase();
    if (hopByHop.has(name) || named.has(name) || name.startsWith('proxy-')) continue;
    out.push(raw[index]!, raw[index + 1]!);
  }
  return out;
}

/**
 * The head of the NEW message the proxy sends upstream: the client's end-to-end fields, the
 * upstream's Host in the client's place, and framing the proxy decided itself: the client's
 * Content-Length or chunked coding is dropped and the body the proxy read is announced by a
 * Content-Length of its own. A request without a body gets no framing field, as sent.
 *
 * @example upstreamRequestHeaders(['Host', 'proxy', 'Transfer-Encoding', 'chunked'], 'api.example', 5)
 * // ['Host', 'api.example', 'Content-Length', '5']
 */
export function upstreamRequestHeaders(raw: readonly string[], upstreamHost: string, bodyBytes?: number): string[] {
  const headers = forwardedHeaders(raw).filter((_, index, list) =>
    index % 2 === 0
      ? list[index]!.toLowerCase() !== 'content-length'
      : list[index - 1]!.toLowerCase() !== 'content-length',
  );
  const hostAt = headers.findIndex((name, index) => index % 2 === 0 && name.toLowerCase() === 'host');
  // HTTP/1.1 needs a Host: the upstream's, in the client's place (or where an HTTP/1.0 client sent none).
  if (hostAt === -1) headers.push('Host', upstreamHost);
  else headers[hostAt + 1] = upstreamHost;
  if (bodyBytes !== undefined) headers.push('Content-Length', String(bodyBytes));
  return headers;
}

/** node's ClientRequest frames nothing for these when no length is given (and chunks the rest). */
const methodsWithoutContent = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT']);

/**
 * The Content-Length the proxy gives the upstream, or undefined for none: the body's length when
 * the client framed one; 0 for a method that defines content but came without (RFC 9110 section
 * 8.6: a user agent SHOULD send it), where node would otherwise chunk an empty body on its own.
 *
 * @example upstreamContentLength({ method: 'POST' }, { framing: { kind: 'none' } }, Buffer.alloc(0)) // 0
 */
export function upstreamContentLength(
  request: { method?: string | undefined },
  head: { framing: RequestFraming },
  body: Buffer,
): number | undefined {
  if (head.framing.kind !== 'none') return body.length;
  return methodsWithoutContent.has(request.method ?? 'GET') ? undefined : 0;
}

export type RequestBody = { kind: 'read'; body: Buffer } | { kind: 'too-large' } | { kind: 'broken' };

/**
 * The whole body of a client's request, de-chunked by node's parser, read before anything goes
 * upstream: the proxy forwards only a message whose end it has seen, so a body that breaks off or
 * is mis-framed never reaches a pooled upstream connection. Bounded by `maxBytes` (Content-Length
 * checked before a byte is read, chunked counted while reading).
 *
 * @example const read = await readRequestBody(request, { kind: 'chunked' }, 1024 * 1024);
 */
export function readRequestBody(
  request: IncomingMessage,
  framing: RequestFraming,
  maxBytes: number,
): Promise<RequestBody> {
  if (framing.kind === 'length' && framing.bytes > maxBytes) return Promise.resolve({ kind: 'too-large' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const finish = (result: RequestBody) => {
      request.removeListener('data', onData);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > maxBytes) {
        chunks.length = 0;
        finish({ kind: 'too-large' });
      } else chunks.push(chunk);
    };
    request.on('data', onData);
    request.once('end', () => finish({ kind: 'read', body: Buffer.concat(chunks, bytes) }));
    request.once('close', () => {
      if (!request.complete) finish({ kind: 'broken' });
    });
  });
}

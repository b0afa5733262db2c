import { targetPath } from '../../spec/url-parts.js';
import { normaliseTarget } from './request-target.js';

/**
 * What the proxy decides from a client's request head, before any byte goes upstream
 * (RFC 9112 sections 3, 6 and 7; RFC 9110 sections 5.3 and 7.6.1). node's parser (llhttp, strict:
 * the proxy never sets `insecureHTTPParser`) has already refused Content-Length with
 * Transfer-Encoding, two Content-Lengths, a Content-Length that is not digits, a
 * Transfer-Encoding whose last coding is not chunked, obs-fold and bare LF. This adds what llhttp
 * lets through and a proxy must not: it is written as if llhttp had not refused anything, so a
 * lenient parser would not open the hole again.
 *
 * @example readRequestHead({ httpVersion: '1.1', url: '/v1/../admin', rawHeaders: ['Host', 'x'] }, '/v1')
 * // { kind: 'refused', message: 'the request target /v1/../admin leaves /v1 once its dot segments are removed' }
 */
export type RequestHead =
  | { kind: 'refused'; message: string }
  /** A request for the upstream: its path below the base path, its query, and whether it has a body. */
  | { kind: 'api'; apiPath: string; query: string; framing: RequestFraming }
  /** Not for the upstream: the proxy's controls, or a 404. */
  | { kind: 'local'; path: string; query: string };

/** How the client framed its body; the proxy re-frames it with a Content-Length of its own. */
export type RequestFraming = { kind: 'none' } | { kind: 'length'; bytes: number } | { kind: 'chunked' };

export interface ParsedHead {
  httpVersion: string;
  url?: string | undefined;
  rawHeaders: readonly string[];
}

/**
 * Fields a request may carry once: Host (RFC 9112 section 3.2 says 400), Content-Length (framing),
 * and those the judge reads where the upstream might read another line (Authorization is the key
 * the judge follows, Content-Type how the body is read). node keeps the first of each; an upstream
 * may keep the last.
 */
const singletonFields = new Set(['host', 'content-length', 'transfer-encoding', 'authorization', 'content-type']);

/**
 * Fields `Connection` may not nominate (RFC 9110 section 7.6.1: a connection option never names a
 * field meant for every recipient): removing them as hop-by-hop would change how the message is
 * framed, where it goes, or whose key it carries.
 */
export const endToEndFields: ReadonlySet<string> = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'authorization',
  'content-type',
]);

const hostValue = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~%!$&'()*+,;=]*)(?::\d*)?$/;

export function readRequestHead(head: ParsedHead, basePath: string): RequestHead {
  if (head.httpVersion !== '1.1' && head.httpVersion !== '1.0')
    return refused(`HTTP/${head.httpVersion} is not HTTP/1.1 or HTTP/1.0`);
  const fields = fieldsOf(head.rawHeaders);
  const fieldProblem = fieldsProblem(fields, head.httpVersion);
  if (fieldProblem !== undefined) return refused(fieldProblem);
  const target = normaliseTarget(head.url ?? '');
  if ('refused' in target) return refused(target.refused);
  const { path, query } = target;
  if (path === basePath || path.startsWith(`${basePath}/`))
    return { kind: 'api', apiPath: path.slice(basePath.length), query, framing: framingOf(fields) };
  const sentPath = targetPath(head.url ?? '');
  if (sentPath !== path || !head.url?.startsWith('/'))
    return refused(`the request target ${sentPath.slice(0, 200)} leaves ${basePath} once normalised`);
  return { kind: 'local', path, query };
}

/** Each field name (lower case) with its values in order. */
function fieldsOf(rawHeaders: readonly string[]): Map<string, string[]> {
  const fields = new Map<string, string[]>();
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index]!.toLowerCase();
    const values = fields.get(name);
    if (values === undefined) fields.set(name, [rawHeaders[index + 1]!]);
    else values.push(rawHeaders[index + 1]!);
  }
  return fields;
}

function fieldsProblem(fields: Map<string, string[]>, httpVersion: string): string | undefined {
  for (const name of singletonFields) if ((fields.get(name)?.length ?? 0) > 1) return `${name} is sent more than once`;
  const host = fields.get('host')?.[0];
  if (host === undefined && httpVersion === '1.1') return 'an HTTP/1.1 request has no Host';
  if (host !== undefined && !hostValue.test(host)) return 'Host is not a host name with an optional port';
  for (const value of fields.get('connection') ?? [])
    for (const token of value.split(','))
      if (endToEndFields.has(token.trim().toLowerCase()))
        return `Connection names ${token.trim()}, a field meant for the server, not for one hop`;
  const contentLength = fields.get('content-length')?.[0];
  if (contentLength !== undefined && !/^\s*\d{1,15}\s*$/.test(contentLength))
    return `Content-Length ${contentLength.slice(0, 30)} is not a number of bytes`;
  const transferEncoding = fields.get('transfer-encoding')?.[0];
  if (transferEncoding === undefined) return undefined;
  // RFC 9112 section 6.1: Transfer-Encoding in HTTP/1.0 is faulty framing, and with Content-Length
  // it is ambiguous; a coding other than chunked the proxy could not re-frame.
  if (httpVersion === '1.0') return 'Transfer-Encoding in an HTTP/1.0 request';
  if (fields.has('content-length')) return 'both Content-Length and Transfer-Encoding';
  if (transferEncoding.trim().toLowerCase() !== 'chunked')
    return `Transfer-Encoding ${transferEncoding.slice(0, 60)}: only chunked is understood`;
  return undefined;
}

function framingOf(fields: Map<string, string[]>): RequestFraming {
  if (fields.has('transfer-encoding')) return { kind: 'chunked' };
  const length = fields.get('content-length')?.[0]?.trim();
  // At most 15 digits (checked above): exact as a number, and refused by the body limit unread.
  return length === undefined ? { kind: 'none' } : { kind: 'length', bytes: Number(length) };
}

function refused(message: string): RequestHead {
  return { kind: 'refused', message };
}

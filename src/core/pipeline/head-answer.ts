import { utf8Length } from '../state/utf8.js';
import type { MockResponse } from '../types.js';

/**
 * The answer to a HEAD request: the answer GET would have had, every header included, without its
 * content (RFC 9110 §9.3.2), and with the Content-Length that content would have had (§8.6), so
 * every transport (node:http, MSW, a library's own `respond`) sends the same head. An answer
 * without content (204, 304) stays without Content-Length.
 *
 * @example withoutContentForHead('HEAD', { status: 200, headers: {}, body: '[]' }); // { status: 200, headers: { 'Content-Length': '2' }, body: null }
 */
export function withoutContentForHead(method: string, response: MockResponse): MockResponse {
  if (method !== 'HEAD') return response;
  const length =
    response.body !== null ? utf8Length(response.body) : response.bytes !== undefined ? response.bytes.byteLength : -1;
  if (length === -1) return response;
  // A new answer and headers object: nothing else ever holds this one's body as null.
  const answer: MockResponse = {
    status: response.status,
    headers: { ...response.headers, 'Content-Length': `${length}` },
    body: null,
  };
  if (response.fault !== undefined) answer.fault = response.fault;
  return answer;
}

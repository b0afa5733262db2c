import { targetPath } from '../../spec/url-parts.js';

/**
 * The request target as the proxy forwards it (RFC 9112 section 3.2): origin-form, or
 * absolute-form reduced to its path and query (the proxy routes to one upstream, so the
 * authority in the target decides nothing), then normalised by RFC 3986: percent-encoded dots
 * decoded (section 6.2.2.2, `.` is unreserved) and dot segments removed (section 5.2.4). The
 * normalised path is what the proxy checks against its base path AND what it forwards, so the
 * proxy and a normalising upstream cannot disagree on where a request goes.
 *
 * Refused, as Envoy's `path_with_escaped_slashes_action: REJECT_REQUEST` does: encoded slashes
 * and backslashes (`%2F`, `%5C`) and raw backslashes, which some servers read as separators and
 * the proxy would not; `%25` before `2E`, `2F` or `5C`, which a server that decodes twice reads
 * as one; `..;` and `.;` segments, which Tomcat-style servers read as dot segments; broken
 * percent-encoding; a fragment; the asterisk-form and any other form.
 *
 * @example normaliseTarget('/v1/pets/%2e%2e/categories?x=1') // { path: '/v1/categories', query: '?x=1' }
 * @example normaliseTarget('/v1/..%2fadmin') // { refused: 'an encoded slash or backslash ...' }
 */
export type NormalisedTarget = { path: string; query: string } | { refused: string };

const absoluteForm = /^https?:\/\/[^/?#]*/i;
const encodedSeparator = /%(?:25)?(?:2f|5c)|\\/i;
const doubleEncodedDot = /%25(?:2e)/i;
const brokenPercent = /%(?![0-9a-f]{2})/i;
const dotWithParameters = /\/\.\.?;/;

export function normaliseTarget(target: string): NormalisedTarget {
  let originForm = target;
  if (!target.startsWith('/')) {
    const authority = absoluteForm.exec(target);
    if (authority === null)
      return { refused: 'the request target is neither a path (origin-form) nor an http(s) URL (absolute-form)' };
    originForm = target.slice(authority[0].length);
    if (originForm === '' || originForm.startsWith('?')) originForm = `/${originForm}`;
  }
  if (originForm.includes('#')) return { refused: 'the request target carries a fragment (#)' };
  const rawPath = targetPath(originForm);
  // The query with its `?`, as the target carries it.
  const query = originForm.slice(rawPath.length);
  if (brokenPercent.test(rawPath)) return { refused: 'the request path has a % not followed by two hex digits' };
  if (encodedSeparator.test(rawPath) || doubleEncodedDot.test(rawPath))
    return { refused: 'the request path holds an encoded slash or backslash, a backslash, or a double-encoded dot' };
  const decoded = rawPath.replace(/%2e/gi, '.');
  if (dotWithParameters.test(decoded))
    return { refused: 'the request path has a dot segment with parameters (..;), which some servers read as ..' };
  return { path: removeDotSegments(decoded), query };
}

/**
 * RFC 3986 section 5.2.4 for an absolute path: `.` segments go, `..` removes the segment before it
 * (never above the root), and a path ending in `.` or `..` keeps its trailing slash.
 *
 * @example removeDotSegments('/v1/a/../../admin') // '/admin'
 */
export function removeDotSegments(path: string): string {
  const input = path.split('/').slice(1);
  const output: string[] = [];
  for (const [index, segment] of input.entries()) {
    const last = index === input.length - 1;
    if (segment === '.' || segment === '..') {
      if (segment === '..') output.pop();
      if (last) output.push('');
      continue;
    }
    output.push(segment);
  }
  return `/${output.join('/')}`;
}

/**
 * What a response's Content-Type says of its body: pure functions of header values, shared by the
 * active kit and the judging proxy (spec/interface/ is the one place rules live).
 */

/** Is the Content-Type `application/json` (parameters such as charset allowed)? */
export function isJsonContentType(value: string | undefined): boolean {
  return value !== undefined && value.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

/**
 * Does the Content-Type label the body JSON: `application/json` or any structured `+json` type
 * (RFC 6839: `application/problem+json`, `application/vnd.api+json`), parameters allowed?
 *
 * @example isJsonMediaType('application/problem+json; charset=utf-8') // true
 * @example isJsonMediaType('application/json-seq') // false
 */
export function isJsonMediaType(value: string | undefined): boolean {
  if (value === undefined) return false;
  const match = /^([a-z0-9!#$&^_.+-]+)\/([a-z0-9!#$&^_.+-]+)$/.exec(value.split(';')[0]!.trim().toLowerCase());
  return match !== null && ((match[1] === 'application' && match[2] === 'json') || match[2]!.endsWith('+json'));
}

/**
 * Responses that carry no content whatever their headers say (RFC 9110 sections 6.4.1, 9.3.2 and
 * 15.3.6): answers to HEAD, and 1xx, 204, 205 and 304.
 *
 * @example hasNoContentByDefinition('GET', 204) // true
 */
export function hasNoContentByDefinition(method: string, status: number): boolean {
  return (
    method.toUpperCase() === 'HEAD' ||
    (status >= 100 && status < 200) ||
    status === 204 ||
    status === 205 ||
    status === 304
  );
}

import { CheckFailure } from './check-errors.js';
import { bodyExcerpt, type Exchange, type ExchangeResponse, evidenceOf } from './exchange.js';
import { describeIssues, type SpecModel } from './spec-model.js';

/**
 * Assertions the checks share. Each throws a `CheckFailure` whose evidence names the request, the
 * status and the offending field, never a bare "expected true".
 */

/** The response, or a failure when none arrived. */
export function responseOf(exchange: Exchange): ExchangeResponse {
  if (!exchange.response)
    throw new CheckFailure(`no response: ${exchange.transportError ?? 'unknown error'}`, [
      evidenceOf(exchange, exchange.transportError ?? 'no response'),
    ]);
  return exchange.response;
}

/**
 * @example expectStatus(exchange, 401, 'a request without Authorization') // throws 'expected 401 for a request without Authorization, got 200'
 */
export function expectStatus(exchange: Exchange, expected: number, why = ''): ExchangeResponse {
  const response = responseOf(exchange);
  if (response.status !== expected) {
    const message = `expected ${expected}${why === '' ? '' : ` for ${why}`}, got ${response.status}`;
    throw new CheckFailure(message, [evidenceOf(exchange, `${message}; body ${bodyExcerpt(exchange)}`)]);
  }
  return response;
}

/**
 * The body is a JSON Error of interface section 2 (`code` and `message` strings, `status` an
 * integer), validated with the spec's own Error schema.
 *
 * @example expectErrorBody(spec, exchange)
 */
export function expectErrorBody(spec: SpecModel, exchange: Exchange): void {
  const response = responseOf(exchange);
  if (!response.hasJson) {
    throw new CheckFailure(`the ${response.status} body is not a JSON Error`, [
      evidenceOf(
        exchange,
        `body is not JSON (Content-Type ${response.headers['content-type'] ?? 'missing'}): ${bodyExcerpt(exchange)}`,
        { header: 'Content-Type' },
      ),
    ]);
  }
  const result = spec.errorValidator.safeParse(response.json);
  if (!result.success) {
    const issues = describeIssues(result.error.issues);
    throw new CheckFailure(
      `the ${response.status} body is not an Error {code, message, status}: ${issues.join('; ')}`,
      [
        evidenceOf(exchange, `${issues.join('; ')}; body ${bodyExcerpt(exchange)}`, {
          field: firstField(result.error.issues),
        }),
      ],
    );
  }
}

/** The status and an Error body: what the interface asks of every 400 and 401. */
export function expectError(spec: SpecModel, exchange: Exchange, status: number, why: string): void {
  expectStatus(exchange, status, why);
  expectErrorBody(spec, exchange);
}

/** Is the Content-Type `application/json` (parameters such as charset allowed)? */
export function isJsonContentType(value: string | undefined): boolean {
  return value !== undefined && value.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

function firstField(issues: readonly { path: PropertyKey[] }[]): string {
  const path = issues[0]?.path ?? [];
  return path.length === 0 ? '(body)' : path.map(String).join('.');
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

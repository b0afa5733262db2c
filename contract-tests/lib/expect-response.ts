import { describeIssues, type SpecModel } from '../../spec/interface/spec-model.js';
import { CheckFailure } from './check-errors.js';
import { bodyExcerpt, type Exchange, type ExchangeResponse, evidenceOf } from './exchange.js';

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

function firstField(issues: readonly { path: PropertyKey[] }[]): string {
  const path = issues[0]?.path ?? [];
  return path.length === 0 ? '(body)' : path.map(String).join('.');
}

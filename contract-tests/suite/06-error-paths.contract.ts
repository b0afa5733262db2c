import { defineArea } from '../lib/check.js';
import { CheckFailure } from '../lib/check-errors.js';
import { bodyExcerpt, evidenceOf } from '../lib/exchange.js';
import { expectErrorBody, responseOf } from '../lib/expect-response.js';

/**
 * The error paths the operations never reach on their own: an unknown path under the base URL
 * and a method a path does not allow. The interface says errors are Error objects whose `status`
 * repeats the HTTP status (section 7) and that the rate-limit headers are on every response
 * (section 8); these answers join the run's exchanges, so the "every response" checks judge them
 * too. Which 4xx a server picks (404/405 are the convention) is information; a 2xx or 5xx is not.
 */
export default defineArea('Error paths (§7, §8)', 'concurrent', (check) => {
  check({ id: 'errors.unknown-path', rule: '§7', title: 'unknown path under the base URL -> 4xx (404) + Error with status = HTTP status', operation: 'GET (unknown path)' }, async (run) => {
    const exchange = await run.send({ operationId: 'unknownPath', method: 'GET', path: `/${run.target.namePrefix}-no-such-resource`, authorization: run.bearer(), identity: 'main' });
    judgeError(exchange, 404);
    expectErrorBody(run.spec, exchange);
    expectStatusRepeated(exchange);
    run.note(`answered ${responseOf(exchange).status}`);
  });

  // A body-less PATCH: a method /categories does not declare, that cannot change anything even on a broken server.
  check({ id: 'errors.method-not-allowed', rule: '§7', title: 'method the path does not allow (PATCH /categories, no body) -> 4xx (405) + Error with status = HTTP status', operation: 'PATCH /categories' }, async (run) => {
    const exchange = await run.send({ operationId: 'methodNotAllowed', method: 'PATCH', path: '/categories', authorization: run.bearer(), identity: 'main' });
    judgeError(exchange, 405);
    expectErrorBody(run.spec, exchange);
    expectStatusRepeated(exchange);
    const response = responseOf(exchange);
    run.note(`answered ${response.status}${response.status === 405 ? `, Allow: ${response.headers.allow ?? 'missing'}` : ''}`);
  });
});

function judgeError(exchange: Parameters<typeof responseOf>[0], conventional: number): void {
  const response = responseOf(exchange);
  if (response.status < 400 || response.status >= 500) {
    throw new CheckFailure(`expected an error (${conventional} by convention), got ${response.status}`, [evidenceOf(exchange, `${response.status}: ${bodyExcerpt(exchange)}`)]);
  }
}

function expectStatusRepeated(exchange: Parameters<typeof responseOf>[0]): void {
  const response = responseOf(exchange);
  const status = (response.json as { status?: unknown }).status;
  if (status !== response.status) throw new CheckFailure(`Error.status ${String(status)} differs from the HTTP status ${response.status}`, [evidenceOf(exchange, `HTTP ${response.status}, body status ${String(status)}`, { field: 'status' })]);
}

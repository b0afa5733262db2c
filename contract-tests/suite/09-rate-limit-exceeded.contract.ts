import { retryAfterInThePast } from '../../spec/interface/key-rules.js';
import {
  missingRateHeaders,
  newWindowBetween,
  parseRetryAfter,
  rateHeaderValueProblems,
  serverClock,
} from '../../spec/interface/rate-limit-headers.js';
import { type CheckRun, defineArea } from '../lib/check.js';
import { CheckFailure } from '../lib/check-errors.js';
import { bodyExcerpt, type Exchange, evidenceOf, observedOf } from '../lib/exchange.js';
import { responseOf } from '../lib/expect-response.js';
import { isLimited, rateLimitKeyRecord } from '../lib/rate-limit-key.js';
import type { RegisterCheck } from '../lib/register-check.js';
import { exceedingTheLimitCheck } from './09-exceeding-the-limit.js';
import { keyBudgetChecks } from './09-key-budgets.js';
import { listCategories } from './operations.js';
import { budgetReading, keyAnswers } from './rate-limit-key-answers.js';

/**
 * Interface section 8, rules 1 to 3, with the key given by --rate-limit-key only. The key is
 * the run's alone (the README asks that nobody else uses it meanwhile), so its arithmetic is
 * exact: each request lowers X-RateLimit-Remaining by one. The kit reads Remaining, sends one
 * request at a time until only a few are left, then one more than are left in parallel: exactly
 * that many must be served and one refused with 429, Retry-After and the rate-limit headers. Then
 * it stops using the key (rule 3: clients that keep sending after a 429 may be banned) unless the
 * run may wait windows out (10-rate-limit-time.contract.ts).
 */
export default defineArea('Rate limit exceeded (§8.1, §8.2)', 'sequential', (check) => {
  keyBudgetChecks(check);
  exceedingTheLimitCheck(check);
  parallelExactCheck(check);
  the429Checks(check);
});

/** The parallel batch that ended rate.429's walk: exactly as many served as were left, and one 429. */
function parallelExactCheck(check: RegisterCheck): void {
  check(
    {
      id: 'rate.parallel-exact',
      rule: '§8.1',
      title:
        'when N requests are left, N+1 sent in parallel get exactly N served (Remaining N-1 ... 0, each once) and one 429',
      operation: listCategories.label,
      operationId: listCategories.operationId,
    },
    async (run) => {
      const limited = limitedExchange(run);
      const before = run.state.shared.get(keyAnswers.beforeBatch) ?? run.skip('the 429 came before the parallel batch');
      const record = rateLimitKeyRecord(run.state);
      const batch = run.state.exchanges.filter(
        (exchange) =>
          record.parallel.has(exchange.seq) && !newWindowBetween(budgetReading(before), budgetReading(exchange)),
      );
      const left = budgetReading(before).remaining ?? run.skip('X-RateLimit-Remaining is missing before the batch');
      if (batch.length !== left + 1) return run.skip('the parallel batch did not stay in one window');
      run.judged(batch.length);
      const served = batch.filter((exchange) => !isLimited(exchange));
      const reported = served
        .map((exchange) => budgetReading(exchange).remaining)
        .sort((a, b) => (b ?? -1) - (a ?? -1));
      const expected = Array.from({ length: left }, (_, index) => left - 1 - index);
      if (served.length !== left || JSON.stringify(reported) !== JSON.stringify(expected)) {
        const what =
          served.length > left
            ? `${served.length} were served, ${served.length - left} more than the ${left} it said were left`
            : served.length < left
              ? `only ${served.length} were served of the ${left} it said were left`
              : `the served answers said Remaining ${reported.join(', ')} instead of ${expected.join(', ')}`;
        throw new CheckFailure(
          `X-RateLimit-Remaining was ${left} and ${batch.length} requests were sent in parallel: ${what}`,
          [
            evidenceOf(before, `X-RateLimit-Remaining ${left} before the batch`, { header: 'X-RateLimit-Remaining' }),
            ...batch
              .slice(0, 5)
              .map((exchange) =>
                evidenceOf(
                  exchange,
                  `${responseOf(exchange).status}, X-RateLimit-Remaining ${responseOf(exchange).headers['x-ratelimit-remaining'] ?? 'missing'}`,
                  { header: 'X-RateLimit-Remaining' },
                ),
              ),
            evidenceOf(limited, 'the 429'),
          ],
        );
      }
      run.note(`Remaining ${left}: ${left} served (${reported.join(', ')}), 1 refused`);
    },
  );
}

/** What the 429 of rate.429 carries: Retry-After, the rate-limit headers, and a body (open: INFO). */
function the429Checks(check: RegisterCheck): void {
  check(
    {
      id: 'rate.429-retry-after',
      rule: '§8.2',
      title: '429 carries Retry-After: a positive integer or an HTTP-date',
      operation: listCategories.label,
      operationId: listCategories.operationId,
    },
    async (run) => {
      const exchange = limitedExchange(run);
      const response = responseOf(exchange);
      const clock = serverClock(response.headers, exchange.receivedAtMs);
      const parsed = parseRetryAfter(response.headers['retry-after'], clock.nowMs);
      if (!parsed.ok)
        throw new CheckFailure(`Retry-After ${parsed.reason}`, [
          evidenceOf(exchange, parsed.reason, { header: 'Retry-After' }),
        ]);
      const past = retryAfterInThePast(observedOf(exchange)!);
      if (past !== undefined) {
        const at = Date.parse(response.headers['retry-after']!.trim());
        throw new CheckFailure(past, [
          evidenceOf(
            exchange,
            `Retry-After ${new Date(at).toISOString()} before ${new Date(clock.nowMs).toISOString()}`,
            {
              header: 'Retry-After',
            },
          ),
        ]);
      }
      run.note(`Retry-After: ${response.headers['retry-after']} (${parsed.form}, judged against the ${clock.source})`);
    },
  );

  check(
    {
      id: 'rate.429-headers',
      rule: '§8',
      title: '429 carries X-RateLimit-Limit, -Remaining and -Reset as integers',
      operation: listCategories.label,
      operationId: listCategories.operationId,
    },
    async (run) => {
      const exchange = limitedExchange(run);
      const headers = responseOf(exchange).headers;
      const missing = missingRateHeaders(headers);
      if (missing.length > 0)
        throw new CheckFailure(`the 429 lacks ${missing.join(', ')}`, [
          evidenceOf(exchange, `missing ${missing.join(', ')}`, { header: missing[0] }),
        ]);
      const problems = rateHeaderValueProblems(headers);
      if (problems.length > 0) {
        throw new CheckFailure(
          problems.map((problem) => `${problem.header} ${problem.detail}`).join('; '),
          problems.map((problem) => evidenceOf(exchange, problem.detail, { header: problem.header })),
        );
      }
    },
  );

  // Whether the first 429 sends the key away for longer than its window (a ban too early) is the catalogue's
  // rate.first-429-no-ban (spec/interface/ban-rules.ts), judged on every 429 of the run.

  check(
    {
      id: 'rate.429-body',
      rule: '§7',
      title: '429 body (not shown by the interface)',
      operation: listCategories.label,
    },
    async (run) => {
      const exchange = limitedExchange(run);
      const response = responseOf(exchange);
      run.info(`Content-Type ${response.headers['content-type'] ?? 'missing'}, body ${bodyExcerpt(exchange, 120)}`);
    },
  );
}

function limitedExchange(run: CheckRun): Exchange {
  const exchange = run.state.shared.get(keyAnswers.limited);
  if (exchange !== undefined) {
    run.judged(1);
    return exchange;
  }
  return run.skip(
    run.target.rateLimitKey === undefined ? 'needs --rate-limit-key' : 'no 429 was received (see the check above)',
  );
}

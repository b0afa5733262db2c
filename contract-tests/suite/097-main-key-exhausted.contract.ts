import { parseRetryAfter, serverClock } from '../../spec/interface/rate-limit-headers.js';
import { type CheckRun, defineArea } from '../lib/check.js';
import { CheckFailure, OverBudget } from '../lib/check-errors.js';
import { type Exchange, evidenceOf } from '../lib/exchange.js';
import { expectStatus } from '../lib/expect-response.js';
import { sendOperation } from './main-key-requests.js';
import { listCategories } from './operations.js';

/**
 * The main key's own minute, spent to its 429 (--thorough --exhaust-main-key): the rate-limit key
 * shows the rules on one key; this shows them on the key the rest of the run used, whose budget
 * a server may key differently (a bug of the kind "limit keyed by the wrong thing"). Interface
 * section 8: Remaining counts down to 0, the next request is a 429 with Retry-After, and after
 * waiting for it the key is served again. Runs after every other check that sends.
 */
function remainingOf(exchange: Exchange | undefined): number | undefined {
  const text = exchange?.response?.headers['x-ratelimit-remaining'];
  return text !== undefined && /^\d+$/.test(text.trim()) ? Number(text) : undefined;
}

function spend(run: CheckRun): Promise<Exchange> {
  return sendOperation(run, listCategories, { spendToLimit: true });
}

export default defineArea('Main key exhausted (§8.1, §8.2, --exhaust-main-key)', 'sequential', (check) => {
  check(
    {
      id: 'rate.main-budget-spent',
      rule: '§8.1',
      title:
        'the main key spent to its limit: Remaining counts down to 0, the next request is a 429 with Retry-After, and the key is served after waiting for it',
      operation: listCategories.label,
      operationId: listCategories.operationId,
    },
    async (run) => {
      if (!run.target.thorough || !run.target.exhaustMainKey)
        throw new OverBudget('spending the main key to its 429 needs --thorough --exhaust-main-key');
      const first = await spend(run);
      expectStatus(first, 200, 'a valid key');
      const left = remainingOf(first);
      if (left === undefined) return run.skip('X-RateLimit-Remaining of the main key is missing or not an integer');
      if (left + 1 > run.target.maxRequests)
        throw new OverBudget(
          `the main key has ${left} requests left; --max-requests ${run.target.maxRequests} allows fewer`,
        );
      let last = first;
      for (let sent = 0; sent < left; sent += 1) {
        const next = await spend(run);
        const remaining = remainingOf(next);
        if (next.response?.status === 429)
          throw new CheckFailure(`429 after ${sent} of the ${left} requests the key had left`, [
            evidenceOf(last, `Remaining ${remainingOf(last)}`, { header: 'X-RateLimit-Remaining' }),
            evidenceOf(next, `429 with ${left - sent} requests left`),
          ]);
        if (remaining !== undefined && remaining > (remainingOf(last) ?? remaining))
          return run.inconclusive('a new window of the main key started while it was being spent');
        last = next;
      }
      const over = await spend(run);
      if (over.response?.status !== 429)
        throw new CheckFailure(
          `the request after Remaining 0 was answered ${over.response?.status ?? 'not at all'}, not 429`,
          [evidenceOf(over, `after ${left + 1} requests in one window`)],
        );
      run.judged(left + 2);
      const clock = serverClock(over.response.headers, over.receivedAtMs);
      const retry = parseRetryAfter(over.response.headers['retry-after'], clock.nowMs);
      if (!retry.ok)
        throw new CheckFailure('the 429 of the main key has no usable Retry-After', [
          evidenceOf(over, `Retry-After ${over.response.headers['retry-after'] ?? 'missing'}`, {
            header: 'Retry-After',
          }),
        ]);
      const again = await sendOperation(run, listCategories, {
        notBefore: { atMs: over.receivedAtMs + retry.delayMs + 1_000, why: "waiting out the main key's 429" },
      });
      expectStatus(again, 200, 'the main key after waiting for its Retry-After');
      run.note(`${left} served, then 429 with Retry-After ${over.response.headers['retry-after']}, then served again`);
    },
  );
});

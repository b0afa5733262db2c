import { newWindowBetween } from '../../spec/interface/rate-limit-headers.js';
import { defineArea } from '../lib/check.js';
import { CheckFailure } from '../lib/check-errors.js';
import { evidenceOf } from '../lib/exchange.js';
import { responseOf } from '../lib/expect-response.js';
import type { ApiRequest } from '../lib/http-client.js';
import { affordKeyRequests, isLimited, rateLimitKeyList, retryAtOf } from '../lib/rate-limit-key.js';
import type { RegisterCheck } from '../lib/register-check.js';
import { anonymousBurstCheck } from './10-anonymous-burst.js';
import { banWatchChecks } from './10-ban-watch.js';
import { dayWindowChecks } from './10-day-window.js';
import { callOf, createCategory, listCategories } from './operations.js';
import { budgetReading, keyAnswers, servedKey, waitAndSend } from './rate-limit-key-answers.js';

/**
 * Interface section 8 in time: what the rate-limit key sees after waiting what it was told to wait,
 * when a window rolls over, when it keeps sending after a 429 (rule 3, 10-ban-watch.ts), and over a
 * whole day (10-day-window.ts). These checks wait on purpose; each runs only when its waits fit
 * --window-wait (and --deadline) and its requests fit --max-requests, and is otherwise INCONCLUSIVE
 * for its own cell (SKIP, never PASS). They run in this order, each from where the one before left the key.
 */
export default defineArea('Rate limits over time (§8.1 to §8.3)', 'sequential', (check) => {
  afterRetryAfterCheck(check);
  limitBeforeValidationCheck(check);
  // Keeping on sending after the 429 above: a POST over the limit, then whether a ban starts, is announced and ends.
  banWatchChecks(check);
  // Requests without a key at once, as the address's budget allows (--thorough).
  anonymousBurstCheck(check);
  dayWindowChecks(check);
});

/** The 429 of rate.429 waited out as its Retry-After said: the key is served again, in a new window that starts full. */
function afterRetryAfterCheck(check: RegisterCheck): void {
  check(
    {
      id: 'rate.after-retry-after',
      rule: '§8.2',
      title:
        'after waiting what Retry-After said, the key is served again; a new window starts full (Remaining = Limit - 1) and resets later',
      operation: listCategories.label,
      operationId: listCategories.operationId,
    },
    async (run) => {
      const limited =
        run.state.shared.get(keyAnswers.limited) ??
        run.skip(
          run.target.rateLimitKey === undefined ? 'needs --rate-limit-key' : 'no 429 was received (see rate.429)',
        );
      const before = run.state.shared.get(keyAnswers.lastAllowed);
      const retryAt = retryAtOf(limited) ?? run.skip('the 429 gave no usable Retry-After (see rate.429-retry-after)');
      const after = await waitAndSend(
        run,
        retryAt,
        'the time the 429 gave in Retry-After, to see the key served again',
      );
      if (isLimited(after)) {
        throw new CheckFailure(
          `the key waited the ${Math.round((retryAt - limited.receivedAtMs) / 1000)} s that Retry-After asked for and was refused again with 429: Retry-After did not say when the client may retry`,
          [
            evidenceOf(limited, `Retry-After ${responseOf(limited).headers['retry-after']}`, { header: 'Retry-After' }),
            evidenceOf(
              after,
              `429 again after waiting (Retry-After ${responseOf(after).headers['retry-after'] ?? 'missing'})`,
            ),
          ],
        );
      }
      const now = budgetReading(after);
      const previous = before === undefined ? undefined : budgetReading(before);
      if (previous === undefined || !newWindowBetween(previous, now)) {
        run.note(
          `served again after waiting; the headers still report the window of the 429 (Reset ${now.resetSeconds})`,
        );
        return;
      }
      if (now.limit !== undefined && now.remaining !== undefined && now.remaining !== now.limit - 1) {
        throw new CheckFailure(
          `a new window began (X-RateLimit-Reset ${previous.resetSeconds} -> ${now.resetSeconds}), yet its first request left X-RateLimit-Remaining ${now.remaining}, not ${now.limit - 1} (Limit ${now.limit} minus this request); the key sent nothing else in between`,
          [
            evidenceOf(before!, `the window before: X-RateLimit-Reset ${previous.resetSeconds}`, {
              header: 'X-RateLimit-Reset',
            }),
            evidenceOf(after, `X-RateLimit-Limit ${now.limit}, X-RateLimit-Remaining ${now.remaining}`, {
              header: 'X-RateLimit-Remaining',
            }),
          ],
        );
      }
      run.note(
        `served after ${Math.round((retryAt - limited.receivedAtMs) / 1000)} s: Remaining ${now.remaining} of ${now.limit}, Reset ${previous.resetSeconds} -> ${now.resetSeconds}`,
      );
    },
  );
}

/** The key exhausted once more, then a request the service would refuse anyway: refused for the limit first. */
function limitBeforeValidationCheck(check: RegisterCheck): void {
  check(
    {
      id: 'rate.limit-before-validation',
      rule: '§8.1',
      title:
        'a request over the limit gets 429 whatever else is wrong with it (an invalid body, an unknown path): the limit is applied first',
      operation: createCategory.label,
      operationId: createCategory.operationId,
      maxCreates: (target) => (target.rateLimitKey === undefined ? 0 : 1),
    },
    async (run) => {
      const served = await servedKey(run, 'waiting out the last 429, to exhaust the key once more');
      const left =
        budgetReading(served).remaining ?? run.skip('X-RateLimit-Remaining of the rate-limit key is missing');
      affordKeyRequests(run, left + 1, 'exhausting the key again');
      let last = served;
      for (let index = 0; index < left; index += 1) {
        const next = await run.send(rateLimitKeyList(run));
        if (isLimited(next)) {
          run.state.shared.set(keyAnswers.latest429, next);
          return run.skip('the key was refused before it was exhausted (judged by rate.429-only-when-exhausted)');
        }
        last = next;
      }
      if ((budgetReading(last).remaining ?? 0) > 0)
        return run.skip(
          `a new window began while the key was being exhausted (Remaining ${budgetReading(last).remaining})`,
        );
      // The request that exceeds the limit is one the service would refuse anyway: a POST without name, or (read-only) an unknown path.
      const over: ApiRequest = run.target.readOnly
        ? {
            operationId: 'unknownPath',
            method: 'GET',
            path: `/${run.target.namePrefix}-no-such-resource`,
            authorization: run.bearer(run.target.rateLimitKey),
            identity: 'rate-limit',
          }
        : {
            ...callOf(createCategory),
            authorization: run.bearer(run.target.rateLimitKey),
            identity: 'rate-limit',
            json: { description: 'over the limit and without a name' },
          };
      const exchange = await run.send(over);
      run.state.shared.set(keyAnswers.latest429, exchange);
      if (!isLimited(exchange)) {
        throw new CheckFailure(
          `the key had X-RateLimit-Remaining 0, and its next request (${run.target.readOnly ? 'an unknown path' : 'a POST without name'}) was answered ${responseOf(exchange).status}, not 429: a request over the limit must be refused for the limit (§8.1), whatever else is wrong with it`,
          [
            evidenceOf(last, 'X-RateLimit-Remaining 0', { header: 'X-RateLimit-Remaining' }),
            evidenceOf(exchange, `${responseOf(exchange).status} instead of 429`),
          ],
        );
      }
      run.note(`429 for ${run.target.readOnly ? 'an unknown path' : 'a POST without name'} once the key was exhausted`);
    },
  );
}

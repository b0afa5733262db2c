import { planOfMinuteLimit } from '../../spec/interface/plans.js';
import {
  type BudgetReading,
  newWindowBetween,
  readBudget,
  serverClock,
} from '../../spec/interface/rate-limit-headers.js';
import { type CheckRun, defineArea } from '../lib/check.js';
import { CheckFailure, OverBudget } from '../lib/check-errors.js';
import { type Exchange, evidenceOf } from '../lib/exchange.js';
import { responseOf } from '../lib/expect-response.js';
import type { ApiRequest } from '../lib/http-client.js';
import {
  affordKeyRequests,
  isLimited,
  rateLimitKeyList,
  rateLimitKeyRecord,
  retryAtOf,
} from '../lib/rate-limit-key.js';
import { anonymousBurstCheck } from './10-anonymous-burst.js';
import { banWatchChecks } from './10-ban-watch.js';
import { callOf, createCategory, listCategories } from './operations.js';

/**
 * Interface section 8 in time: what the rate-limit key sees after waiting what it was told to wait,
 * when a window rolls over, when it keeps sending after a 429 (rule 3, 10-ban-watch.ts), and over a whole day.
 * These checks wait on purpose; each runs only when its waits fit --window-wait (and --deadline)
 * and its requests fit --max-requests, and is otherwise INCONCLUSIVE for its own cell (SKIP,
 * never PASS). They run in this order, each from where the one before left the key.
 */
const limitedKey = 'rate-limit-429';
const lastAllowedKey = 'rate-limit-last-allowed';
/** The 429 that ended the key's day (rate.day-window), for rate.day-rollover. */
const dayLimitedKey = 'rate-limit-day-429';
/** The key's latest 429, whichever check provoked it. */
const latest429Key = 'rate-limit-latest-429';
/** The latest answer the key was served. */
const latestServedKey = 'rate-limit-latest-served';
/** Slack for whole-second rounding of Date, Reset and Retry-After. */
const slackMs = 2_000;

export default defineArea('Rate limits over time (§8.1 to §8.3)', 'sequential', (check) => {
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
        run.state.shared.get(limitedKey) ??
        run.skip(
          run.target.rateLimitKey === undefined ? 'needs --rate-limit-key' : 'no 429 was received (see rate.429)',
        );
      const before = run.state.shared.get(lastAllowedKey);
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
      const now = reading(after);
      const previous = before === undefined ? undefined : reading(before);
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
      const left = reading(served).remaining ?? run.skip('X-RateLimit-Remaining of the rate-limit key is missing');
      affordKeyRequests(run, left + 1, 'exhausting the key again');
      let last = served;
      for (let index = 0; index < left; index += 1) {
        const next = await run.send(rateLimitKeyList(run));
        if (isLimited(next)) {
          run.state.shared.set(latest429Key, next);
          return run.skip('the key was refused before it was exhausted (judged by rate.429-only-when-exhausted)');
        }
        last = next;
      }
      if ((reading(last).remaining ?? 0) > 0)
        return run.skip(`a new window began while the key was being exhausted (Remaining ${reading(last).remaining})`);
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
      run.state.shared.set(latest429Key, exchange);
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

  // Keeping on sending after the 429 above: a POST over the limit, then whether a ban starts, is announced and ends.
  banWatchChecks(check);
  // Requests without a key at once, as the address's budget allows (--thorough).
  anonymousBurstCheck(check);

  check(
    {
      id: 'rate.day-window',
      rule: '§8',
      title:
        "the day limit of the key's plan (Free: 1,000 a day) holds: no more served in a day window, and a 429 with Retry-After at most a day ahead when it is spent",
      operation: listCategories.label,
      operationId: listCategories.operationId,
    },
    async (run) => {
      const served = await servedKey(run, "waiting out the last 429, to spend the key's day");
      const plan = planOfMinuteLimit(reading(served).limit);
      if (plan === undefined) {
        run.info(
          `X-RateLimit-Limit ${reading(served).limit ?? 'missing'} names no plan's minute window (an Enterprise key, or a day window), so the key's day limit is not known: not checked`,
        );
        return;
      }
      // What is left of the key's day (UTC, by the server's Date): the plan's day less what this run was served today,
      // plus a minute's worth in case the server's day window is not the UTC day and ended meanwhile.
      const today = utcDay(served);
      const earlier = run.state.exchanges.filter(
        (exchange) =>
          exchange.identity === 'rate-limit' &&
          exchange.response !== undefined &&
          !isLimited(exchange) &&
          exchange.seq < served.seq &&
          utcDay(exchange) === today,
      ).length;
      const allowed = Math.max(0, plan.perDay - earlier) + plan.perMinute;
      const minutes = Math.ceil(allowed / plan.perMinute);
      // Known before the first request: spending a day takes a minute window per plan.perMinute requests.
      if (run.target.windowWaitMs < minutes * 60_000) {
        throw new OverBudget(
          `spending the rest of the key's day takes about ${minutes} minute windows, up to ${minutes * 60} s of waiting; --window-wait is ${run.target.windowWaitMs / 1000} s`,
        );
      }
      affordKeyRequests(
        run,
        allowed + minutes + 2,
        `spending the rest of the key's day (the ${plan.name} plan allows ${plan.perDay.toLocaleString('en')} a day; this run was served ${earlier} today)`,
      );
      const answers: Exchange[] = [served];
      let dayLimited: Exchange | undefined;
      let last = served;
      while (dayLimited === undefined) {
        const next = await run.send(rateLimitKeyList(run));
        answers.push(next);
        if (!isLimited(next)) {
          last = next;
          const servedToday = answers.filter((answer) => !isLimited(answer)).length;
          if (servedToday > allowed) {
            if (utcDay(next) !== today)
              return run.skip("the key's day ran into the next UTC day before its limit was reached");
            throw new CheckFailure(
              `the key (X-RateLimit-Limit ${plan.perMinute}: the ${plan.name} plan, ${plan.perDay.toLocaleString('en')} a day) was served ${earlier + servedToday} requests in one UTC day by this run alone, without a 429 for the day`,
              [
                evidenceOf(served, `the first of the last ${servedToday}`),
                evidenceOf(next, `the ${earlier + servedToday}th of the day, served`),
              ],
            );
          }
          continue;
        }
        run.state.shared.set(latest429Key, next);
        const retryAt =
          retryAtOf(next) ?? run.skip('a 429 gave no usable Retry-After (judged by every.429-retry-after)');
        if (retryAt - next.receivedAtMs <= 60_000 + slackMs && reading(next).limit !== plan.perDay) {
          // The minute is spent: wait for it, as the client is told to.
          const again = await waitAndSend(run, retryAt, 'the end of the minute, to go on spending the day');
          answers.push(again);
          if (isLimited(again))
            return run.skip('the key was still refused after its minute (judged by rate.after-retry-after)');
          last = again;
        } else {
          dayLimited = next;
        }
      }
      const dayEnd = retryAtOf(dayLimited)!;
      // Whatever the day window's alignment, it began a day before it ends: every answer since counts.
      const inDay = answers.filter(
        (answer) => !isLimited(answer) && answer.receivedAtMs >= dayEnd - 86_400_000 - slackMs,
      );
      if (inDay.length > plan.perDay) {
        throw new CheckFailure(
          `${inDay.length} requests of the key were served in the day window that its 429 says ends at ${new Date(dayEnd).toISOString()}; the ${plan.name} plan allows ${plan.perDay.toLocaleString('en')} a day`,
          [
            evidenceOf(inDay[0]!, 'the first served in that day window'),
            evidenceOf(dayLimited, `the day's 429: Retry-After ${responseOf(dayLimited).headers['retry-after']}`, {
              header: 'Retry-After',
            }),
          ],
        );
      }
      if (dayEnd - dayLimited.receivedAtMs > 86_400_000 + slackMs) {
        throw new CheckFailure(
          `the day's 429 says to retry in ${Math.round((dayEnd - dayLimited.receivedAtMs) / 3_600_000)} h, more than a day`,
          [
            evidenceOf(dayLimited, `Retry-After ${responseOf(dayLimited).headers['retry-after']}`, {
              header: 'Retry-After',
            }),
          ],
        );
      }
      run.state.shared.set(dayLimitedKey, dayLimited);
      run.note(
        `${inDay.length} served in the day window (the last said Remaining ${reading(last).remaining} of ${reading(last).limit}), then a 429 until ${new Date(dayEnd).toISOString()}`,
      );
    },
  );

  check(
    {
      id: 'rate.day-rollover',
      rule: '§8.2',
      title: "after waiting what the day's 429 said (until the day window ends), the key is served again",
      operation: listCategories.label,
      operationId: listCategories.operationId,
    },
    async (run) => {
      if (run.target.rateLimitKey === undefined) return run.skip('needs --rate-limit-key');
      if (run.target.windowWaitMs < 86_400_000)
        throw new OverBudget(
          `waiting for the key's day window to end may take up to 24 h; --window-wait is ${run.target.windowWaitMs / 1000} s`,
        );
      const dayLimited =
        run.state.shared.get(dayLimitedKey) ?? run.skip("the key's day was not spent (see rate.day-window)");
      const dayEnd = retryAtOf(dayLimited)!;
      const nextDay = await waitAndSend(
        run,
        dayEnd,
        'the end of the day window, to see the key served on the next day',
      );
      if (isLimited(nextDay)) {
        throw new CheckFailure(`the key waited until the day's end that its 429 gave and was refused again with 429`, [
          evidenceOf(dayLimited, `Retry-After ${responseOf(dayLimited).headers['retry-after']}`, {
            header: 'Retry-After',
          }),
          evidenceOf(nextDay, '429 again on the next day'),
        ]);
      }
      run.note(
        `served again at ${new Date(nextDay.receivedAtMs).toISOString()}, Remaining ${reading(nextDay).remaining} of ${reading(nextDay).limit}`,
      );
    },
  );
});

/**
 * Each two answers of the rate-limit key that follow each other, in the order they were sent. The
 * parallel batch's answers are never one of a pair (the order among them is not the order of
 * arrival), yet they stay in the sequence: they spent the budget between their neighbours.
 */
function _consecutiveAnswers(run: CheckRun): [Exchange, Exchange][] {
  const parallel = rateLimitKeyRecord(run.state).parallel;
  const answers = run.state.exchanges
    .filter((exchange) => exchange.identity === 'rate-limit' && exchange.response !== undefined)
    .sort((a, b) => a.seq - b.seq);
  return answers.slice(1).flatMap((after, index) => {
    const before = answers[index]!;
    return parallel.has(before.seq) || parallel.has(after.seq) ? [] : [[before, after] as [Exchange, Exchange]];
  });
}

/** The UTC day (days since the epoch) of an answer, by its Date header (else the kit's clock). */
function utcDay(exchange: Exchange): number {
  return Math.floor(serverClock(responseOf(exchange).headers, exchange.receivedAtMs).nowMs / 86_400_000);
}

function reading(exchange: Exchange): BudgetReading {
  const response = exchange.response;
  return response === undefined
    ? { limit: undefined, remaining: undefined, resetSeconds: undefined }
    : readBudget(response.headers, exchange.receivedAtMs);
}

/** Waits (on purpose, out of --window-wait) until `atMs`, then sends one GET /categories with the rate-limit key. */
async function waitAndSend(run: CheckRun, atMs: number, why: string): Promise<Exchange> {
  affordKeyRequests(run, 1, `waiting for ${why}`);
  const exchange = await run.send(rateLimitKeyList(run, { notBefore: { atMs, why } }));
  run.state.shared.set(isLimited(exchange) ? latest429Key : latestServedKey, exchange);
  return exchange;
}

/** A served answer of the key to start from: the latest one, after waiting out the key's latest 429 if it had one since. */
async function servedKey(run: CheckRun, why: string): Promise<Exchange> {
  if (run.target.rateLimitKey === undefined) return run.skip('needs --rate-limit-key');
  const latest =
    [...run.state.exchanges]
      .reverse()
      .find((exchange) => exchange.identity === 'rate-limit' && exchange.response !== undefined) ??
    run.skip('the rate-limit key has not been used');
  if (!isLimited(latest)) return latest;
  const retryAt = retryAtOf(latest) ?? run.skip("the key's last 429 gave no usable Retry-After");
  const exchange = await waitAndSend(run, retryAt, why);
  if (isLimited(exchange))
    return run.skip(
      'the key was still refused after waiting (judged by rate.after-retry-after and rate.ban-temporary)',
    );
  return exchange;
}

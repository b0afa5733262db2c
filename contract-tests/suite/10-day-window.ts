import { type InterfacePlan, planOfMinuteLimit } from '../../spec/interface/plans.js';
import { serverClock } from '../../spec/interface/rate-limit-headers.js';
import type { CheckRun } from '../lib/check.js';
import { CheckFailure, OverBudget } from '../lib/check-errors.js';
import { type Exchange, evidenceOf } from '../lib/exchange.js';
import { responseOf } from '../lib/expect-response.js';
import { affordKeyRequests, isLimited, rateLimitKeyList, retryAtOf } from '../lib/rate-limit-key.js';
import type { RegisterCheck } from '../lib/register-check.js';
import { listCategories } from './operations.js';
import { budgetReading, keyAnswers, servedKey, slackMs, waitAndSend } from './rate-limit-key-answers.js';

/**
 * The day limit of the rate-limit key's plan (interface section 8: Free 1,000 a day), spent and
 * waited out with the key after the minute checks of 10-rate-limit-time.contract.ts. Both wait
 * minute windows (and then a day) on purpose, so they run only when --window-wait allows it.
 */
export function dayWindowChecks(check: RegisterCheck): void {
  dayWindowCheck(check);
  dayRolloverCheck(check);
}

/** What is left of the key's day when the check starts, by its plan. */
interface DayToSpend {
  plan: InterfacePlan;
  /** The served answer the check starts from. */
  served: Exchange;
  /** The UTC day of `served` (days since the epoch). */
  today: number;
  /** Answers of the key this run was served earlier today. */
  earlier: number;
  /** Most requests the key may still be served before its day's 429 (a minute's worth of slack included). */
  allowed: number;
}

/** The key's requests until its day's 429: every answer, the last one served, and that 429. */
interface SpentDay {
  answers: Exchange[];
  last: Exchange;
  dayLimited: Exchange;
}

function dayWindowCheck(check: RegisterCheck): void {
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
      const plan = planOfMinuteLimit(budgetReading(served).limit);
      if (plan === undefined) {
        run.info(
          `X-RateLimit-Limit ${budgetReading(served).limit ?? 'missing'} names no plan's minute window (an Enterprise key, or a day window), so the key's day limit is not known: not checked`,
        );
        return;
      }
      const day = dayToSpend(run, served, plan);
      judgeTheDay(run, day, await spendTheDay(run, day));
    },
  );
}

/**
 * What is left of the key's day (UTC, by the server's Date): the plan's day less what this run was served today,
 * plus a minute's worth in case the server's day window is not the UTC day and ended meanwhile. Ends the check
 * INCONCLUSIVE for its cell when spending it does not fit --window-wait or --max-requests.
 */
function dayToSpend(run: CheckRun, served: Exchange, plan: InterfacePlan): DayToSpend {
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
  return { plan, served, today, earlier, allowed };
}

/**
 * Sends one request after the other, waiting out each minute's 429 as told, until a 429 that is not the minute's:
 * the day's. Fails when more were served than the day allows.
 */
async function spendTheDay(run: CheckRun, day: DayToSpend): Promise<SpentDay> {
  const { plan, served, today, earlier, allowed } = day;
  const answers: Exchange[] = [served];
  let last = served;
  for (;;) {
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
    run.state.shared.set(keyAnswers.latest429, next);
    const retryAt = retryAtOf(next) ?? run.skip('a 429 gave no usable Retry-After (judged by every.429-retry-after)');
    if (retryAt - next.receivedAtMs > 60_000 + slackMs || budgetReading(next).limit === plan.perDay)
      return { answers, last, dayLimited: next };
    // The minute is spent: wait for it, as the client is told to.
    const again = await waitAndSend(run, retryAt, 'the end of the minute, to go on spending the day');
    answers.push(again);
    if (isLimited(again))
      return run.skip('the key was still refused after its minute (judged by rate.after-retry-after)');
    last = again;
  }
}

/** No more served in the day window the day's 429 names, and that 429 sends the key away at most a day. */
function judgeTheDay(run: CheckRun, { plan }: DayToSpend, { answers, last, dayLimited }: SpentDay): void {
  const dayEnd = retryAtOf(dayLimited)!;
  // Whatever the day window's alignment, it began a day before it ends: every answer since counts.
  const inDay = answers.filter((answer) => !isLimited(answer) && answer.receivedAtMs >= dayEnd - 86_400_000 - slackMs);
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
  run.state.shared.set(keyAnswers.dayLimited, dayLimited);
  run.note(
    `${inDay.length} served in the day window (the last said Remaining ${budgetReading(last).remaining} of ${budgetReading(last).limit}), then a 429 until ${new Date(dayEnd).toISOString()}`,
  );
}

function dayRolloverCheck(check: RegisterCheck): void {
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
        run.state.shared.get(keyAnswers.dayLimited) ?? run.skip("the key's day was not spent (see rate.day-window)");
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
        `served again at ${new Date(nextDay.receivedAtMs).toISOString()}, Remaining ${budgetReading(nextDay).remaining} of ${budgetReading(nextDay).limit}`,
      );
    },
  );
}

/** The UTC day (days since the epoch) of an answer, by its Date header (else the kit's clock). */
function utcDay(exchange: Exchange): number {
  return Math.floor(serverClock(responseOf(exchange).headers, exchange.receivedAtMs).nowMs / 86_400_000);
}

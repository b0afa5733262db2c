import type { CheckRun } from '../lib/check.js';
import { CheckFailure, OverBudget } from '../lib/check-errors.js';
import { type Exchange, evidenceOf } from '../lib/exchange.js';
import { responseOf } from '../lib/expect-response.js';
import {
  affordKeyRequests,
  isLimited,
  rateLimitKeyList,
  rateLimitKeyRecord,
  retryAtOf,
} from '../lib/rate-limit-key.js';
import type { RegisterCheck } from '../lib/register-check.js';
import { callOf, createCategory, listCategories } from './operations.js';
import { keyAnswers, rememberLatest, slackMs } from './rate-limit-key-answers.js';

/** GETs sent after a 429 without waiting: past our mock's default threshold (10) and the reference's (5). */
const keepSending = 12;
/** Without --thorough, the least --window-wait with which the kit provokes a possible ban (it must be able to wait it out). */
const banWaitNeededMs = 3_600_000;

/** Ends the check INCONCLUSIVE for its cell when the profile does not keep sending after a 429. */
function mayKeepSending(run: CheckRun): void {
  if (run.target.thorough || run.target.windowWaitMs >= banWaitNeededMs) return;
  throw new OverBudget(
    `keeping on sending after a 429 may get the key banned for a while, so a default run never does it; --thorough (or --window-wait ${banWaitNeededMs / 1000}) watches whether a ban starts, how it is announced and when it ends`,
  );
}

/** The key's latest answer when it is a 429 not yet waited out: the start of the row. */
function latest429(run: CheckRun): Exchange {
  const latest = run.state.shared.get(keyAnswers.latest429);
  const served = run.state.shared.get(keyAnswers.latestServed);
  if (latest === undefined || !isLimited(latest) || (served !== undefined && served.seq > latest.seq))
    return run.skip('no recent 429 of the rate-limit key to keep sending after (see rate.limit-before-validation)');
  return latest;
}

/**
 * What keeping on sending after a 429 gets (interface section 8, rules 1 and 3), watched by
 * --thorough with the rate-limit key, from the 429 that rate.limit-before-validation left it at:
 * a valid POST over the limit (refused with 429 like any request, and never stored), then GETs
 * one after the other until a ban shows (a 429 that sends the key away past the window it was
 * refused in) or `keepSending` were refused, then a wait for the last 429's Retry-After and one
 * more request. The rules are the catalogue's, judged on every answer of the key
 * (spec/interface/ban-rules.ts): rate.first-429-no-ban (start), rate.ban-announced
 * (announcement), rate.ban-temporary (end). A ban longer than the run may wait leaves its end
 * INCONCLUSIVE, naming --window-wait, never PASS. A default run never keeps sending after a 429.
 */
export function banWatchChecks(check: RegisterCheck): void {
  postOverLimitCheck(check);
  banWatchCheck(check);
}

/** A valid POST while the key is refused: 429 like any request (data.refused-not-stored checks it was not stored). */
function postOverLimitCheck(check: RegisterCheck): void {
  check(
    {
      id: 'rate.post-over-limit',
      rule: '§8.1',
      title:
        'a valid POST sent while the key is refused (before its 429 says to retry) gets 429 like any request, and is not stored: the limit applies to writes too',
      operation: createCategory.label,
      operationId: createCategory.operationId,
      writes: true,
      maxCreates: (target) => (target.rateLimitKey === undefined ? 0 : 1),
    },
    async (run) => {
      if (run.target.rateLimitKey === undefined) return run.skip('needs --rate-limit-key');
      mayKeepSending(run);
      const limited = latest429(run);
      const windowEnd = retryAtOf(limited) ?? run.skip('the 429 gave no usable Retry-After');
      affordKeyRequests(run, 2, 'a POST over the limit and a GET after it');
      const record = rateLimitKeyRecord(run.state);
      const post = await run.send({
        ...callOf(createCategory),
        authorization: run.bearer(run.target.rateLimitKey),
        identity: 'rate-limit',
        keepSendingAfter429: true,
        json: { name: run.categoryName('over-the-limit'), description: 'sent over the limit: never stored' },
      });
      const get = await run.send(rateLimitKeyList(run, { keepSendingAfter429: true }));
      for (const exchange of [post, get]) record.keptSending.add(exchange.seq);
      run.state.shared.set(keyAnswers.latest429, isLimited(get) ? get : post);
      run.judged(2);
      // Served between two 429s of one window, the POST was not counted against the limit.
      if (
        !isLimited(post) &&
        isLimited(get) &&
        post.sentAtMs < windowEnd &&
        (retryAtOf(get) ?? 0) <= windowEnd + slackMs
      ) {
        throw new CheckFailure(
          `a valid POST sent while the key was refused (its 429 said to retry at ${new Date(windowEnd).toISOString()}) was answered ${responseOf(post).status}, not 429, and the GET right after it was refused again in the same window: a request over the limit gets 429 (§8.1), writes included`,
          [
            evidenceOf(limited, `429, Retry-After ${responseOf(limited).headers['retry-after'] ?? 'missing'}`),
            evidenceOf(post, `${responseOf(post).status} instead of 429`),
            evidenceOf(get, '429 again, same window'),
          ],
        );
      }
      if (!isLimited(post)) return run.skip('the key was served again before its POST (a new window began)');
      run.note('429 for a valid POST over the limit (data.refused-not-stored checks that it was not stored)');
    },
  );
}

/** GETs after a 429 until a ban shows, then one after the last 429's Retry-After: what the server chose, as INFO. */
function banWatchCheck(check: RegisterCheck): void {
  check(
    {
      id: 'rate.ban-watch',
      rule: '§8.3',
      title:
        "keeps sending after a 429, then waits what the last 429 said: whether a ban starts, how it is announced and when it ends (judged by rate.first-429-no-ban, rate.ban-announced and rate.ban-temporary; whether and how long is the server's choice)",
      operation: listCategories.label,
      operationId: listCategories.operationId,
    },
    async (run) => {
      if (run.target.rateLimitKey === undefined) return run.skip('needs --rate-limit-key');
      mayKeepSending(run);
      const first = latest429(run);
      const windowEnd = retryAtOf(first) ?? run.skip('the 429 gave no usable Retry-After');
      affordKeyRequests(run, keepSending + 1, 'keeping on sending after a 429');
      const row = await keepOnSending(run, windowEnd);
      const last = row.at(-1) ?? first;
      if (!isLimited(last)) return run.skip('the key was served again while it kept sending (its window ended)');
      const retryAt =
        retryAtOf(last) ?? run.skip('a 429 of the key kept sending gave no usable Retry-After (every.429-retry-after)');
      const banned = retryAt > windowEnd + slackMs;
      const seen = banned
        ? `a ban after ${row.findIndex((answer) => (retryAtOf(answer) ?? 0) > windowEnd + slackMs) + 1} requests kept sending: Retry-After ${responseOf(last).headers['retry-after']}`
        : `no ban after ${row.length} requests kept sending (the interface says keys "may" be banned)`;
      // Waiting what the last 429 said; a ban longer than --window-wait (or --deadline) allows throws OverBudget here.
      const after = await run
        .send(
          rateLimitKeyList(run, {
            notBefore: { atMs: retryAt, why: `the end of what the last 429 announced (${seen})` },
          }),
        )
        .catch((error: unknown) => {
          if (error instanceof OverBudget) throw new OverBudget(`${seen}; ${error.message.replace(/^[^:]*: /, '')}`);
          throw error;
        });
      rememberLatest(run, after);
      // rate.ban-temporary judges the answer; this check names what the server chose.
      run.info(
        `${seen}; after waiting it, ${isLimited(after) ? 'refused again (rate.ban-temporary)' : 'served again'}`,
      );
    },
  );
}

/** GETs one after the other without waiting, until a ban shows (and one more to see it announced again), or the row ends. */
async function keepOnSending(run: CheckRun, windowEnd: number): Promise<Exchange[]> {
  const record = rateLimitKeyRecord(run.state);
  const row: Exchange[] = [];
  let banSeenAt: number | undefined;
  for (let index = 0; index < keepSending && (banSeenAt === undefined || index <= banSeenAt + 1); index += 1) {
    const next = await run.send(rateLimitKeyList(run, { keepSendingAfter429: true }));
    record.keptSending.add(next.seq);
    row.push(next);
    rememberLatest(run, next);
    if (!isLimited(next)) break;
    if (banSeenAt === undefined && (retryAtOf(next) ?? 0) > windowEnd + slackMs) banSeenAt = index;
  }
  return row;
}

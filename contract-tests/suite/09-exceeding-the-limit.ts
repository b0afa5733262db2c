import { newWindowBetween } from '../../spec/interface/rate-limit-headers.js';
import type { CheckRun } from '../lib/check.js';
import { CheckFailure } from '../lib/check-errors.js';
import { type Exchange, evidenceOf } from '../lib/exchange.js';
import { responseOf } from '../lib/expect-response.js';
import { affordKeyRequests, isLimited, rateLimitKeyList, rateLimitKeyRecord } from '../lib/rate-limit-key.js';
import type { RegisterCheck } from '../lib/register-check.js';
import { listCategories } from './operations.js';
import { budgetReading, keyAnswers, latestOfKey } from './rate-limit-key-answers.js';

/** Attempts at the parallel batch when a new window starts during it. */
const batchAttempts = 3;

/**
 * rate.429: the rate-limit key driven to its limit. It reads what is left, sends one request at a
 * time until only a few are left, then one more than are left in parallel: a 429 is due. The 429
 * (and the served answer just before it) is left for the checks of that 429 and for suite 10.
 */
export function exceedingTheLimitCheck(check: RegisterCheck): void {
  check(
    {
      id: 'rate.429',
      rule: '§8.1',
      title: 'exceeding the limit -> 429 (with --rate-limit-key)',
      operation: listCategories.label,
      operationId: listCategories.operationId,
    },
    async (run) => {
      if (run.target.rateLimitKey === undefined)
        return run.skip('needs --rate-limit-key: a key the kit may drive into 429');
      if (limitedBefore(run)) return;
      const first = await firstReading(run);
      if (first === undefined) return;
      const walk = new WalkToTheLimit(run, first);
      for (let attempt = 1; ; attempt += 1) {
        const early = await walk.oneAtATime();
        if (early !== undefined) return limitedEarly(run, walk.last, early);
        const answers = await walk.lastInParallel();
        const served = answers.filter((answer) => !isLimited(answer));
        const newer = served.filter((answer) => newWindowBetween(budgetReading(walk.last), budgetReading(answer)));
        if (newer.length > 0 && attempt < batchAttempts && served.length === answers.length) {
          // A window began during the batch; go on in the new one.
          walk.goOnInNewWindow(newer);
          continue;
        }
        return walk.limitReached(answers, served);
      }
    },
  );
}

/**
 * The key refused already, at its very first request of the run or by a check above: that 429 is
 * the one to judge, and the key is not used again. True when it was.
 */
function limitedBefore(run: CheckRun): boolean {
  const start = run.state.shared.get(keyAnswers.start);
  if (start?.response?.status === 429) {
    run.state.shared.set(keyAnswers.limited, start);
    run.judged(1);
    run.note('the key was already over its limit at the start of the run');
    return true;
  }
  run.state.mainRequestsAtFirstProbe = run.state.requestsByIdentity.main;
  const earlier = latestOfKey(run);
  if (!isLimited(earlier)) return false;
  run.state.shared.set(keyAnswers.limited, earlier!);
  const served = [...run.state.exchanges]
    .reverse()
    .find((exchange) => exchange.identity === 'rate-limit' && exchange.response !== undefined && !isLimited(exchange));
  if (served !== undefined) run.state.shared.set(keyAnswers.lastAllowed, served);
  run.judged(1);
  run.note('the key reached its limit during the checks above');
  return true;
}

/**
 * The key's latest answer, which tells what is left (read afresh only when there is none): where
 * the walk to the limit starts. Undefined when that answer was a 429 already (noted); the check
 * ends as SKIP or INCONCLUSIVE when it cannot tell, or may not send, how many requests exceed it.
 */
async function firstReading(run: CheckRun): Promise<Exchange | undefined> {
  const last = latestOfKey(run) ?? (await run.send(rateLimitKeyList(run)));
  if (!run.state.shared.has(keyAnswers.firstProbe)) run.state.shared.set(keyAnswers.firstProbe, last);
  if (isLimited(last)) {
    run.state.shared.set(keyAnswers.limited, last);
    run.note('the key was already over its limit');
    return undefined;
  }
  if (responseOf(last).status === 401)
    return run.inconclusive('inconclusive: the server refused the rate-limit key with 401; check --rate-limit-key');
  const firstRemaining = budgetReading(last).remaining;
  if (firstRemaining === undefined)
    return run.skip(
      'inconclusive: X-RateLimit-Remaining of the rate-limit key is missing or not an integer, so the kit cannot tell how many requests exceed it',
    );
  if (firstRemaining + 1 > run.target.maxRequests - run.state.requestsByIdentity['rate-limit']) {
    return run.skip(
      `refused: exceeding the limit needs ${firstRemaining + 1} more requests (X-RateLimit-Remaining ${firstRemaining}), more than --max-requests ${run.target.maxRequests}`,
    );
  }
  return last;
}

/** A 429 before the batch: the answer before it must have said 0 (judged by rate.429-only-when-exhausted). */
function limitedEarly(run: CheckRun, last: Exchange, limited: Exchange): void {
  run.state.shared.set(keyAnswers.limited, limited);
  run.state.shared.set(keyAnswers.lastAllowed, last);
  run.note(
    `429 while sending one at a time, after an answer that said Remaining ${budgetReading(last).remaining ?? 'missing'}`,
  );
}

/**
 * The rate-limit key on its way to the limit, in one window: what that window promised when it was
 * first read, how many requests were sent in it since, and the key's latest served answer.
 */
class WalkToTheLimit {
  /** The answer whose Remaining is the window's promise: more requests than that, and a 429 is due. */
  #windowStart: Exchange;
  /** Requests sent in the window since `#windowStart`. */
  #sentInWindow = 0;
  /** The key's latest served answer. */
  last: Exchange;
  /** Remaining as the walk first read it, for the note. */
  readonly #firstRemaining: number | undefined;
  /** Requests sent at once at the end: the last few, and one more. */
  readonly #batch: number;
  readonly #run: CheckRun;

  constructor(run: CheckRun, first: Exchange) {
    this.#run = run;
    this.last = first;
    this.#windowStart = first;
    this.#firstRemaining = budgetReading(first).remaining;
    this.#batch = Math.min(4, run.target.concurrency);
  }

  /** Read afresh at each use: a window that begins mid-way makes a new promise. */
  #promised(): number {
    return (budgetReading(this.#windowStart).remaining ?? 0) + 1;
  }

  /**
   * One at a time while more than a batch is left: "the answer before" is then well defined.
   * Returns a 429 that came already (the walk's `last` is the answer before it).
   */
  async oneAtATime(): Promise<Exchange | undefined> {
    const run = this.#run;
    while (
      (budgetReading(this.last).remaining ?? 0) > this.#batch &&
      this.#promised() - this.#sentInWindow > this.#batch + 1
    ) {
      affordKeyRequests(run, 1, 'exceeding the limit');
      const next = await run.send(rateLimitKeyList(run));
      this.#sentInWindow += 1;
      if (isLimited(next)) return next;
      if (newWindowBetween(budgetReading(this.last), budgetReading(next))) {
        this.#windowStart = next;
        this.#sentInWindow = 0;
      }
      this.last = next;
    }
    return undefined;
  }

  /** The last few (and one more) in parallel: a server that checks and counts in two steps lets more through. */
  async lastInParallel(): Promise<Exchange[]> {
    const run = this.#run;
    const left = budgetReading(this.last).remaining ?? 0;
    const size = Math.max(1, Math.min(left + 1, this.#promised() - this.#sentInWindow));
    affordKeyRequests(run, size, 'exceeding the limit');
    const answers = await Promise.all(Array.from({ length: size }, () => run.send(rateLimitKeyList(run))));
    this.#sentInWindow += size;
    const record = rateLimitKeyRecord(run.state);
    for (const answer of answers) record.parallel.add(answer.seq);
    return answers;
  }

  /** Goes on from the served answer of the new window with the least Remaining. */
  goOnInNewWindow(newer: Exchange[]): void {
    this.last = newer.reduce((lowest, answer) =>
      (budgetReading(answer).remaining ?? 0) < (budgetReading(lowest).remaining ?? 0) ? answer : lowest,
    );
    this.#windowStart = this.last;
    this.#sentInWindow = 0;
  }

  /** After the batch: a 429 among its answers is left for the checks after, none fails. */
  limitReached(answers: Exchange[], served: Exchange[]): void {
    const run = this.#run;
    const limited = answers.filter(isLimited);
    if (limited.length === 0) throw this.#no429(answers);
    run.state.shared.set(keyAnswers.limited, limited[0]!);
    const lowest =
      served.length === 0
        ? this.last
        : served.reduce((low, answer) =>
            (budgetReading(answer).remaining ?? Infinity) < (budgetReading(low).remaining ?? Infinity) ? answer : low,
          );
    run.state.shared.set(keyAnswers.lastAllowed, lowest);
    run.state.shared.set(keyAnswers.beforeBatch, this.last);
    run.note(
      `429 after ${run.state.requestsByIdentity['rate-limit']} requests of the key in this run (Remaining ${this.#firstRemaining} at first; the last ${answers.length} in parallel)`,
    );
  }

  #no429(answers: Exchange[]): CheckFailure {
    const promise = budgetReading(this.#windowStart).remaining;
    return new CheckFailure(
      `no 429: X-RateLimit-Remaining was ${promise}, and all ${this.#sentInWindow} requests sent since in that window were served (the last ${answers.length} in parallel)`,
      [
        evidenceOf(this.#windowStart, `X-RateLimit-Remaining ${promise}`, { header: 'X-RateLimit-Remaining' }),
        ...answers
          .slice(-2)
          .map((answer) =>
            evidenceOf(
              answer,
              `${responseOf(answer).status}, X-RateLimit-Remaining ${responseOf(answer).headers['x-ratelimit-remaining'] ?? 'missing'}`,
            ),
          ),
      ],
    );
  }
}

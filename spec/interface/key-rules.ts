import type { ObservedExchange } from './observed.js';
import {
  isoTime,
  newWindowBetween,
  parseHttpDate,
  parseNonNegativeInteger,
  parseRetryAfter,
  readBudget,
  serverClock,
} from './rate-limit-headers.js';

/**
 * The rules of interface section 8 that live across the answers of one key: what one answer
 * promised about the budget and what the next one shows. Pure functions of two observed answers
 * (each with the clock it arrived on), shared by the active kit (suite/09, suite/10) and the judging
 * proxy, which applies them to consecutive answers of each key of real traffic.
 */

/** Evidence that names which of the two answers shows what. */
export interface KeyRuleEvidence {
  which: 'before' | 'after';
  detail: string;
  header?: string;
}

/**
 * Does the budget an answer promised (its X-RateLimit-Remaining, until its X-RateLimit-Reset)
 * still hold for a later answer of the same key? Yes when the headers show no new window, and also
 * when they do but the later answer came before the earlier one's Reset (by the later one's Date,
 * a second of rounding aside): a 429 that reports another window (the day's) cannot undo what the
 * minute's answer promised before its minute ended.
 *
 * @example promiseStillHeld(minuteAnswerSaying20Left, daysFirst429) // true: the 429 broke the promise
 */
export function promiseStillHeld(before: ObservedExchange, after: ObservedExchange): boolean {
  const promised = readBudget(before.response.headers, before.receivedAtMs);
  if (!newWindowBetween(promised, readBudget(after.response.headers, after.receivedAtMs))) return true;
  return (
    promised.resetSeconds !== undefined &&
    serverClock(after.response.headers, after.receivedAtMs).nowMs < promised.resetSeconds * 1000 - 1_000
  );
}

/**
 * Two answers of one key, the second sent after the first arrived and no other request of the key
 * between them: within one window, and neither a 429, Remaining must fall by exactly one. Undefined
 * when it did, or when the pair says nothing (a new window, a 429, a Remaining that cannot be read:
 * the header rules judge those).
 *
 * @example remainingStepProblem(answerSaying10, answerSaying8) // { previous: 10, next: 8, message: '...' }
 */
export function remainingStepProblem(
  before: ObservedExchange,
  after: ObservedExchange,
): { previous: number; next: number } | undefined {
  if (before.response.status === 429 || after.response.status === 429) return undefined;
  const promised = readBudget(before.response.headers, before.receivedAtMs);
  const reported = readBudget(after.response.headers, after.receivedAtMs);
  if (newWindowBetween(promised, reported)) return undefined;
  const previous = promised.remaining;
  const next = reported.remaining;
  if (previous === undefined || next === undefined || next === previous - 1) return undefined;
  return { previous, next };
}

/**
 * A 429 comes only when the budget says none is left: the 429 itself and the last answer served
 * before it (when its promise still holds) must say Remaining 0. Returns what contradicts that,
 * empty when nothing does.
 *
 * @example limitedWithBudgetLeft(answerSaying3Left, the429) // [{ which: 'before', detail: 'X-RateLimit-Remaining 3 on ...' }]
 */
export function limitedWithBudgetLeft(
  lastServed: ObservedExchange | undefined,
  limited: ObservedExchange,
): KeyRuleEvidence[] {
  const problems: KeyRuleEvidence[] = [];
  const ownRemaining = parseNonNegativeInteger(limited.response.headers['x-ratelimit-remaining']);
  if (ownRemaining !== undefined && ownRemaining > 0)
    problems.push({
      which: 'after',
      detail: `the 429 says X-RateLimit-Remaining ${ownRemaining}: requests are left, yet this one was refused`,
      header: 'X-RateLimit-Remaining',
    });
  if (lastServed !== undefined && lastServed.response.status !== 429 && promiseStillHeld(lastServed, limited)) {
    const promised = readBudget(lastServed.response.headers, lastServed.receivedAtMs).remaining;
    if (promised !== undefined && promised > 0)
      problems.push({
        which: 'before',
        detail: `X-RateLimit-Remaining ${promised} on the last answer served before the 429 (same window)`,
        header: 'X-RateLimit-Remaining',
      });
  }
  return problems;
}

/**
 * Retry-After of a 429 against the X-RateLimit-Reset the same 429 reports (judged by its Date,
 * 2 s of rounding either way; 60 s on the observer's clock): later is a failure, earlier is what a
 * sliding window may do (information). `unjudged` when either header cannot be read.
 */
export type RetryAfterVersusReset =
  | { kind: 'unjudged' }
  | { kind: 'agrees' | 'later' | 'earlier'; retryAtMs: number; resetMs: number; slackMs: number; clockSource: string };

export function retryAfterVersusReset(limited: ObservedExchange): RetryAfterVersusReset {
  const headers = limited.response.headers;
  const clock = serverClock(headers, limited.receivedAtMs);
  const retry = parseRetryAfter(headers['retry-after'], clock.nowMs);
  const reset = parseNonNegativeInteger(headers['x-ratelimit-reset']);
  if (!retry.ok || reset === undefined || reset > 100_000_000_000 || reset < 10 * 86_400) return { kind: 'unjudged' };
  const retryAtMs = clock.nowMs + retry.delayMs;
  const resetMs = reset * 1000;
  // Date and Reset have one-second resolution and either may be rounded up: 2 s either way.
  const slackMs = clock.source === 'Date header' ? 2_000 : 60_000;
  const kind = retryAtMs > resetMs + slackMs ? 'later' : retryAtMs < resetMs - slackMs ? 'earlier' : 'agrees';
  return { kind, retryAtMs, resetMs, slackMs, clockSource: clock.source };
}

/**
 * A Retry-After given as an HTTP-date must not be in the past (by the answer's Date; 60 s on the
 * observer's clock). The reason when it is, else undefined.
 *
 * @example retryAfterInThePast(a429WithRetryAfterYesterday) // 'Retry-After Wed, ... is in the past (...)'
 */
export function retryAfterInThePast(limited: ObservedExchange): string | undefined {
  const headers = limited.response.headers;
  const clock = serverClock(headers, limited.receivedAtMs);
  const parsed = parseRetryAfter(headers['retry-after'], clock.nowMs);
  if (!parsed.ok || parsed.form !== 'HTTP-date') return undefined;
  const at = parseHttpDate(headers['retry-after']) ?? clock.nowMs;
  const slackMs = clock.source === 'Date header' ? 2_000 : 60_000;
  return at < clock.nowMs - slackMs
    ? `Retry-After ${headers['retry-after']} is in the past (server time ${isoTime(clock.nowMs)}, from the ${clock.source})`
    : undefined;
}

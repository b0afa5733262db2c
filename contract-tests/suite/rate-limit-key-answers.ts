import { type BudgetReading, readBudget } from '../../spec/interface/rate-limit-headers.js';
import type { CheckRun } from '../lib/check.js';
import type { Exchange } from '../lib/exchange.js';
import { affordKeyRequests, isLimited, rateLimitKeyList, retryAtOf } from '../lib/rate-limit-key.js';

/**
 * The answers of the rate-limit key (--rate-limit-key) that its checks leave for each other in
 * `run.state.shared`: suite 09 drives the key to its first 429, the checks of 10-rate-limit-time
 * and 10-ban-watch go on from where the one before left it. One name each, written here once.
 */
export const keyAnswers = {
  /** The key's first reading of the run, before the main key spent anything (set by runner/run-contract.ts). */
  start: 'rate-limit-start',
  /** The rate.429 check's first request with the rate-limit key. */
  firstProbe: 'rate-limit-first-probe',
  /** The key's latest answer before the parallel batch of rate.429. */
  beforeBatch: 'rate-limit-before-batch',
  /** The 429 that rate.429 judges (and the checks of that 429 after it). */
  limited: 'rate-limit-429',
  /** The served answer with the least Remaining, just before that 429. */
  lastAllowed: 'rate-limit-last-allowed',
  /** The key's latest 429, whichever check provoked it. */
  latest429: 'rate-limit-latest-429',
  /** The latest answer the key was served. */
  latestServed: 'rate-limit-latest-served',
  /** The 429 that ended the key's day (rate.day-window), for rate.day-rollover. */
  dayLimited: 'rate-limit-day-429',
} as const;

/** Slack for whole-second rounding of Date, Reset and Retry-After. */
export const slackMs = 2_000;

/** The budget an answer reports (all undefined without a response). */
export function budgetReading(exchange: Exchange): BudgetReading {
  const response = exchange.response;
  return response === undefined
    ? { limit: undefined, remaining: undefined, resetSeconds: undefined }
    : readBudget(response.headers, exchange.receivedAtMs);
}

/** The latest answer to the rate-limit key. */
export function latestOfKey(run: CheckRun): Exchange | undefined {
  return [...run.state.exchanges]
    .reverse()
    .find((exchange) => exchange.identity === 'rate-limit' && exchange.response !== undefined);
}

/** Keeps the key's answer as its latest 429 or its latest served answer. */
export function rememberLatest(run: CheckRun, exchange: Exchange): void {
  run.state.shared.set(isLimited(exchange) ? keyAnswers.latest429 : keyAnswers.latestServed, exchange);
}

/** Waits (on purpose, out of --window-wait) until `atMs`, then sends one GET /categories with the rate-limit key. */
export async function waitAndSend(run: CheckRun, atMs: number, why: string): Promise<Exchange> {
  affordKeyRequests(run, 1, `waiting for ${why}`);
  const exchange = await run.send(rateLimitKeyList(run, { notBefore: { atMs, why } }));
  rememberLatest(run, exchange);
  return exchange;
}

/** A served answer of the key to start from: the latest one, after waiting out the key's latest 429 if it had one since. */
export async function servedKey(run: CheckRun, why: string): Promise<Exchange> {
  if (run.target.rateLimitKey === undefined) return run.skip('needs --rate-limit-key');
  const latest = latestOfKey(run) ?? run.skip('the rate-limit key has not been used');
  if (!isLimited(latest)) return latest;
  const retryAt = retryAtOf(latest) ?? run.skip("the key's last 429 gave no usable Retry-After");
  const exchange = await waitAndSend(run, retryAt, why);
  if (isLimited(exchange))
    return run.skip(
      'the key was still refused after waiting (judged by rate.after-retry-after and rate.ban-temporary)',
    );
  return exchange;
}

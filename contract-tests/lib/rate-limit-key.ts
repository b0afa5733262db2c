import { parseRetryAfter, serverClock } from '../../spec/interface/rate-limit-headers.js';
import type { CheckRun } from './check.js';
import { OverBudget } from './check-errors.js';
import type { Exchange } from './exchange.js';
import type { ApiRequest } from './http-client.js';
import type { RunState } from './run-state.js';

/**
 * What the checks of the rate-limit key (--rate-limit-key) share beyond single exchanges: which
 * answers came from requests sent in parallel (the exact arithmetic of sequential requests does
 * not apply to them). One record per run, keyed by its state: two runs never mix.
 */
export interface RateLimitKeyRecord {
  /** Sequence numbers of the exchanges of the parallel batch that ended the first burst. */
  parallel: Set<number>;
  /** Sequence numbers of the 429s the ban probe provoked on purpose, by sending on after a 429. */
  keptSending: Set<number>;
}

const records = new WeakMap<RunState, RateLimitKeyRecord>();

/** The run's record of the rate-limit key. */
export function rateLimitKeyRecord(state: RunState): RateLimitKeyRecord {
  let record = records.get(state);
  if (record === undefined) {
    record = { parallel: new Set(), keptSending: new Set() };
    records.set(state, record);
  }
  return record;
}

/** A GET /categories with the rate-limit key. */
export function rateLimitKeyList(run: CheckRun, extra: Partial<ApiRequest> = {}): ApiRequest {
  return {
    operationId: 'listCategories',
    method: 'GET',
    path: '/categories',
    authorization: run.bearer(run.target.rateLimitKey),
    identity: 'rate-limit',
    ...extra,
  };
}

/**
 * Ends the check as INCONCLUSIVE for its cell when `count` more requests with the rate-limit key
 * would exceed --max-requests.
 *
 * @example affordKeyRequests(run, 61, 'exhausting the key again');
 */
export function affordKeyRequests(run: CheckRun, count: number, what: string): void {
  const sent = run.state.requestsByIdentity['rate-limit'];
  if (sent + count > run.target.maxRequests) {
    throw new OverBudget(
      `${what} needs ${count} more requests with the rate-limit key; --max-requests ${run.target.maxRequests} allows ${Math.max(0, run.target.maxRequests - sent)} more`,
    );
  }
}

/**
 * When a 429 said the client may retry, on the kit's clock (its Retry-After, a delay or an
 * HTTP-date judged by the answer's own Date); undefined without a usable Retry-After.
 */
export function retryAtOf(exchange: Exchange): number | undefined {
  const response = exchange.response;
  if (response === undefined) return undefined;
  const clock = serverClock(response.headers, exchange.receivedAtMs);
  const retry = parseRetryAfter(response.headers['retry-after'], clock.nowMs);
  return retry.ok ? exchange.receivedAtMs + retry.delayMs : undefined;
}

/** Is this a 429? */
export function isLimited(exchange: Exchange | undefined): boolean {
  return exchange?.response?.status === 429;
}

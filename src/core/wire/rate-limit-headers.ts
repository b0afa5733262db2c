import type { RateDecision } from '../state/rate-limiter.js';
import { integerText } from './number-text.js';

// The rate-limit fields of an answer, written from the limiter's decision.

/**
 * Which rate-limit fields answers carry: the ones the spec's responses declare (or the config asks
 * for). The Petstore's: X-RateLimit-* on every answer and Retry-After on a 429.
 */
export interface RateLimitFields {
  /** X-RateLimit-Limit, -Remaining and -Reset. */
  readonly xRateLimit: boolean;
  /** The IETF RateLimit and RateLimit-Policy fields. */
  readonly ietf: boolean;
  /** Retry-After on a 429. */
  readonly retryAfter: boolean;
}

/**
 * The rate-limit fields of a decision that `fields` asks for.
 *
 * @example rateLimitFields(decision, nowMs, { xRateLimit: true, ietf: false, retryAfter: true }); // { 'X-RateLimit-Limit': '60', ... }
 */
export function rateLimitFields(
  decision: RateDecision,
  nowMs: number,
  fields: RateLimitFields,
): Record<string, string> {
  const headers = fields.xRateLimit ? rateLimitHeaders(decision) : {};
  if (!fields.retryAfter) delete headers['Retry-After'];
  else if (!fields.xRateLimit && decision.outcome !== 'allowed')
    headers['Retry-After'] = `${decision.retryAfterSeconds}`;
  return fields.ietf ? Object.assign(headers, ietfRateLimitHeaders(decision, nowMs)) : headers;
}

/**
 * The X-RateLimit-* headers of a decision (interface section 8), plus Retry-After when refused.
 * Reset is Unix time in whole seconds, rounded up so a client that waits until it never comes early.
 */
export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  // Template literals, not String(): optimized code converts the number in place, where String()
  // stays a call to the String constructor (seen in the hot path's profile, docs/decisions/015).
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': `${decision.limit}`,
    // A new number on every request: written without V8's number-string cache, which would keep its text.
    'X-RateLimit-Remaining': integerText(decision.remaining),
    'X-RateLimit-Reset': `${Math.ceil(decision.resetAtMs / 1000)}`,
  };
  if (decision.outcome !== 'allowed') headers['Retry-After'] = `${decision.retryAfterSeconds}`;
  return headers;
}

/**
 * The IETF `RateLimit-Policy` and `RateLimit` fields (draft-ietf-httpapi-ratelimit-headers-11),
 * structured-field Lists with one item per window: the policy is the quota `q` per window `w`
 * seconds; the service limit is what remains `r` and the seconds `t` until that window ends.
 * Unlike X-RateLimit-*, which reports the tighter window only, both windows are listed.
 *
 * @example
 * ietfRateLimitHeaders(decision);
 * // { 'RateLimit-Policy': '"minute";q=60;w=60, "day";q=1000;w=86400', RateLimit: '"minute";r=59;t=60, "day";r=999;t=86400' }
 */
export function ietfRateLimitHeaders(decision: RateDecision, nowMs: number): Record<string, string> {
  return {
    'RateLimit-Policy': decision.windows
      .map((window) => `"${window.name}";q=${sfInteger(window.quota)};w=${window.windowSeconds}`)
      .join(', '),
    RateLimit: decision.windows
      .map(
        (window) =>
          `"${window.name}";r=${sfInteger(window.remaining)};t=${sfInteger(Math.ceil((window.resetAtMs - nowMs) / 1000))}`,
      )
      .join(', '),
  };
}

/** A structured-field Integer has at most 15 digits (RFC 9651 3.3.1) and here is never negative. */
function sfInteger(value: number): number {
  return Math.min(999_999_999_999_999, Math.max(0, value));
}

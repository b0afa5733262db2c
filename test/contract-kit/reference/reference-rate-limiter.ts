import type { Plan } from './plans.js';
import type { LimiterTweaks } from './reference-hooks.js';

const minuteMs = 60_000;
const dayMs = 86_400_000;
/** Requests answered 429 in a row that a client may send before the next one bans it. */
const strikesBeforeBan = 5;
const banMs = 10 * minuteMs;

/** What the limiter decided for one request, and what the X-RateLimit-* headers say. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** When the reported window (or the ban) ends, epoch ms. */
  resetMs: number;
  /** Whole seconds until the client may retry; only for a refused request. */
  retryAfterSeconds: number;
}

interface Usage {
  minute: number;
  minuteCount: number;
  day: number;
  dayCount: number;
  /** Requests refused in a row since the client was last served. */
  strikes: number;
  bannedUntilMs: number;
}

/**
 * Fixed windows on the calendar: each UTC minute and each UTC day. A request is served only when
 * both windows of its client have room; served requests count in both, refused ones in neither.
 * The headers report the window with fewer requests left (the day on a tie: it resets later).
 * A client that keeps sending while refused is banned for ten minutes.
 *
 * @example
 * const limiter = new ReferenceRateLimiter(clock);
 * limiter.take('key:abc', plans.free).remaining; // 59
 */
export class ReferenceRateLimiter {
  readonly #clock: { now(): number };
  readonly #usage = new Map<string, Usage>();
  /** The bug corpus's changes to the arithmetic below (test/contract-kit/bug-servers/); none by default. */
  readonly #tweaks: LimiterTweaks;

  constructor(clock: { now(): number }, tweaks: LimiterTweaks = {}) {
    this.#clock = clock;
    this.#tweaks = tweaks;
  }

  take(client: string, plan: Plan): RateDecision {
    const now = this.#clock.now();
    // Stryker disable next-line OptionalChaining,LogicalOperator: a hook point of the bug corpus; no tweaks in the reference
    const minute = this.#tweaks.minuteOf?.(now) ?? Math.floor(now / minuteMs);
    // Stryker disable next-line OptionalChaining,LogicalOperator: a hook point of the bug corpus; no tweaks in the reference
    const day = this.#tweaks.dayOf?.(now) ?? Math.floor(now / dayMs);
    const usage = this.#usage.get(client) ?? { minute, minuteCount: 0, day, dayCount: 0, strikes: 0, bannedUntilMs: 0 };
    this.#usage.set(client, usage);
    if (usage.minute !== minute) {
      usage.minute = minute;
      usage.minuteCount = 0;
    }
    if (usage.day !== day) {
      usage.day = day;
      usage.dayCount = 0;
    }
    // Stryker disable next-line OptionalChaining,LogicalOperator: a hook point of the bug corpus; no tweaks in the reference
    if ((this.#tweaks.banEnd?.(usage.bannedUntilMs) ?? usage.bannedUntilMs) > now)
      return refused(now, plan.perMinute, usage.bannedUntilMs);

    const minuteEndMs = (minute + 1) * minuteMs;
    const dayEndMs = (day + 1) * dayMs;
    // Stryker disable OptionalChaining,LogicalOperator,StringLiteral: hook points of the bug corpus; no tweaks in the reference
    const dayFull = this.#tweaks.full?.(usage.dayCount, plan.perDay, 'day') ?? usage.dayCount >= plan.perDay;
    const minuteFull =
      this.#tweaks.full?.(usage.minuteCount, plan.perMinute, 'minute') ?? usage.minuteCount >= plan.perMinute;
    // Stryker restore OptionalChaining,LogicalOperator,StringLiteral
    if (dayFull || minuteFull) {
      usage.strikes += 1;
      if (usage.strikes > strikesBeforeBan) {
        usage.strikes = 0;
        usage.bannedUntilMs = now + banMs;
        return refused(now, plan.perMinute, usage.bannedUntilMs);
      }
      return dayFull ? refused(now, plan.perDay, dayEndMs) : refused(now, plan.perMinute, minuteEndMs);
    }

    usage.minuteCount += 1;
    usage.dayCount += 1;
    usage.strikes = 0;
    const minuteLeft = plan.perMinute - usage.minuteCount;
    const dayLeft = plan.perDay - usage.dayCount;
    if (minuteLeft < dayLeft)
      return {
        allowed: true,
        limit: plan.perMinute,
        remaining: minuteLeft,
        resetMs: minuteEndMs,
        retryAfterSeconds: 0,
      };
    return { allowed: true, limit: plan.perDay, remaining: dayLeft, resetMs: dayEndMs, retryAfterSeconds: 0 };
  }
}

function refused(now: number, limit: number, untilMs: number): RateDecision {
  return {
    allowed: false,
    limit,
    remaining: 0,
    resetMs: untilMs,
    retryAfterSeconds: Math.ceil((untilMs - now) / 1000),
  };
}

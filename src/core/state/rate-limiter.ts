import type { Limits } from '../config/mock-config.js';
import type { ExactWindows as ClientWindows } from '../config/scenario-windows.js';
import type { Clock } from '../types.js';

const minuteMs = 60_000;
const dayMs = 86_400_000;
/**
 * A ban that ends before every time: "not banned" is no instant, so a request at any time (before
 * 1970, at Go's zero time) compares after it. 0 was a time, and read every request before 1970 as banned.
 */
const notBanned = Number.NEGATIVE_INFINITY;

/** What the limiter decided for one request, and what the X-RateLimit-* headers report. */
export interface RateDecision {
  outcome: 'allowed' | 'limited' | 'banned';
  limit: number;
  remaining: number;
  /** Unix time in milliseconds when the reported window (or the ban) ends. */
  resetAtMs: number;
  /** Whole seconds until `resetAtMs`, at least 1; meaningful when not allowed. */
  retryAfterSeconds: number;
  /**
   * Both windows, not only the one the X-RateLimit-* headers report: the IETF `RateLimit` field
   * lists a service limit per quota policy.
   */
  windows: readonly RateWindow[];
}

/** One quota policy of a client and where it stands. */
export interface RateWindow {
  /** The policy's name in the IETF fields: "minute" or "day". */
  name: 'minute' | 'day';
  quota: number;
  windowSeconds: number;
  remaining: number;
  /** Unix time in milliseconds when this window ends (or, for a banned client, the ban). */
  resetAtMs: number;
}

export interface BanPolicy {
  enabled: boolean;
  /** Requests answered 429 in a row after which the next one bans the client. */
  threshold: number;
  durationMs: number;
}

interface Bucket {
  minuteStart: number;
  minuteCount: number;
  dayStart: number;
  dayCount: number;
  /** Consecutive requests answered 429 since the client was last allowed. */
  strikes: number;
  /** When the ban ends; `notBanned` when there is none (never a time: any time, 1969 too, may be a request's). */
  bannedUntil: number;
  /** When the bucket was last moved to the recent end of the table. */
  touchedAt: number;
}

/**
 * Per-client fixed windows of one minute and one day, each starting at the client's first request
 * after the previous window ended (GitHub-style). A request is allowed only when both windows have
 * room; allowed requests count in both, refused ones in neither.
 *
 * The headers report the window with the fewest requests left (on a tie, the one that resets
 * later), because that is the one that will refuse the client first.
 *
 * Memory is bounded: buckets whose windows and ban have all expired are dropped, and past
 * `maxBuckets` the least recently seen client is forgotten.
 *
 * @example
 * const limiter = new RateLimiter({ clock, ban: { enabled: true, threshold: 10, durationMs: 900_000 } });
 * limiter.hit('key:abc', { perMinute: 60, perDay: 1_000 }).outcome; // 'allowed'
 */
export class RateLimiter {
  readonly #clock: Clock;
  readonly #ban: BanPolicy;
  readonly #maxBuckets: number;
  #evicted = 0;
  #buckets = new Map<string, Bucket>();
  #hitsSinceSweep = 0;

  constructor(options: { clock: Clock; ban: BanPolicy; maxBuckets?: number }) {
    this.#clock = options.clock;
    this.#ban = options.ban;
    this.#maxBuckets = options.maxBuckets ?? 10_000;
  }

  /** Counts one request of `clientId` against `limits` and says whether it may be served. */
  hit(clientId: string, limits: Limits): RateDecision {
    const now = this.#clock.now();
    const bucket = this.#touch(clientId, now);

    if (bucket.bannedUntil > now) return this.#banned(bucket, limits, now);
    if (bucket.bannedUntil !== notBanned) {
      bucket.bannedUntil = notBanned;
      bucket.strikes = 0;
    }
    rollWindows(bucket, now);

    const minuteFull = bucket.minuteCount >= limits.perMinute;
    const dayFull = bucket.dayCount >= limits.perDay;
    if (minuteFull || dayFull) {
      bucket.strikes += 1;
      if (this.#ban.enabled && bucket.strikes > this.#ban.threshold) {
        bucket.bannedUntil = now + this.#ban.durationMs;
        return this.#banned(bucket, limits, now);
      }
      // When both are full the client waits for the later of the two resets.
      const useDay = dayFull && (!minuteFull || bucket.dayStart + dayMs >= bucket.minuteStart + minuteMs);
      const resetAtMs = useDay ? bucket.dayStart + dayMs : bucket.minuteStart + minuteMs;
      return { ...this.#limited(bucket, limits, resetAtMs, now), limit: useDay ? limits.perDay : limits.perMinute };
    }

    bucket.minuteCount += 1;
    bucket.dayCount += 1;
    bucket.strikes = 0;
    return this.#report(bucket, limits, now, 'allowed');
  }

  /** What the headers would say for `clientId` now, without counting a request. */
  peek(clientId: string, limits: Limits): RateDecision {
    const now = this.#clock.now();
    const bucket = this.#buckets.get(clientId);
    if (!bucket) return this.#report(freshBucket(now), limits, now, 'allowed');
    if (bucket.bannedUntil > now) return this.#banned(bucket, limits, now);
    const view: Bucket = { ...bucket };
    if (now >= view.minuteStart + minuteMs) Object.assign(view, { minuteStart: now, minuteCount: 0 });
    if (now >= view.dayStart + dayMs) Object.assign(view, { dayStart: now, dayCount: 0 });
    return this.#report(view, limits, now, 'allowed');
  }

  /**
   * Puts `clientId` where that many served requests would have (scenario files; see StateStore.setSpent):
   * a running window keeps its start, an ended or new one starts now; a count left out stays; the day
   * holds at least the minute; strikes start over, a ban stays.
   */
  setSpent(clientId: string, spent: { minute?: number; day?: number }): void {
    const now = this.#clock.now();
    const bucket = this.#touch(clientId, now);
    rollWindows(bucket, now);
    if (spent.minute !== undefined) bucket.minuteCount = spent.minute;
    if (spent.day !== undefined) bucket.dayCount = spent.day;
    if (bucket.dayCount < bucket.minuteCount) bucket.dayCount = bucket.minuteCount;
    bucket.strikes = 0;
  }

  /** Bans `clientId` for `durationMs` from now, as the ban policy would have; returns when the ban ends. */
  banFor(clientId: string, durationMs: number): number {
    const now = this.#clock.now();
    const bucket = this.#touch(clientId, now);
    bucket.bannedUntil = now + durationMs;
    return bucket.bannedUntil;
  }

  /** Where `clientId` stands (a snapshot's part), or null when it has no record. */
  stateOf(clientId: string): ClientWindows | null {
    const bucket = this.#buckets.get(clientId);
    if (!bucket) return null;
    return {
      minuteStartMs: bucket.minuteStart,
      minuteCount: bucket.minuteCount,
      dayStartMs: bucket.dayStart,
      dayCount: bucket.dayCount,
      strikes: bucket.strikes,
      bannedUntilMs: bucket.bannedUntil === notBanned ? null : bucket.bannedUntil,
    };
  }

  /**
   * The clients that would not answer as new ones at `now` (a window still running, or a ban), with
   * where each stands: what a snapshot keeps.
   */
  liveStates(now: number): [string, ClientWindows][] {
    const live: [string, ClientWindows][] = [];
    for (const [id, bucket] of this.#buckets) {
      if (now >= bucket.dayStart + dayMs && now >= bucket.minuteStart + minuteMs && bucket.bannedUntil <= now) continue;
      live.push([id, this.stateOf(id)!]);
    }
    return live;
  }

  /** Puts `clientId` exactly where a snapshot found it (its windows, strikes and ban); see StateStore.snapshot. */
  setState(clientId: string, windows: ClientWindows): void {
    const bucket = this.#touch(clientId, this.#clock.now());
    bucket.minuteStart = windows.minuteStartMs;
    bucket.minuteCount = windows.minuteCount;
    bucket.dayStart = windows.dayStartMs;
    bucket.dayCount = windows.dayCount;
    bucket.strikes = windows.strikes;
    bucket.bannedUntil = windows.bannedUntilMs ?? notBanned;
  }

  /** Live clients forgotten to stay within `maxBuckets` since the last reset (expired ones are not counted). */
  get evicted(): number {
    return this.#evicted;
  }

  reset(): void {
    this.#evicted = 0;
    this.#buckets.clear();
    this.#hitsSinceSweep = 0;
  }

  /** Whether `clientId` has a live record (windows, strikes or a ban); expired ones are dropped in sweeps. */
  has(clientId: string): boolean {
    return this.#buckets.has(clientId);
  }

  /** Number of clients currently tracked. */
  get size(): number {
    return this.#buckets.size;
  }

  #touch(clientId: string, now: number): Bucket {
    let bucket = this.#buckets.get(clientId);
    if (bucket) {
      if (dueForMove(bucket.touchedAt, now)) {
        bucket.touchedAt = now;
        this.#buckets.delete(clientId);
        this.#buckets.set(clientId, bucket);
      }
      return bucket;
    }
    bucket = freshBucket(now);
    if (++this.#hitsSinceSweep >= 1024) this.#sweep(now);
    if (this.#buckets.size >= this.#maxBuckets) {
      this.#buckets.delete(this.#buckets.keys().next().value!);
      this.#evicted += 1;
    }
    this.#buckets.set(clientId, bucket);
    return bucket;
  }

  #sweep(now: number): void {
    this.#hitsSinceSweep = 0;
    for (const [id, bucket] of this.#buckets) {
      if (now >= bucket.dayStart + dayMs && now >= bucket.minuteStart + minuteMs && bucket.bannedUntil <= now)
        this.#buckets.delete(id);
    }
    // Still too many live clients: forget the least recently seen ones.
    for (const id of this.#buckets.keys()) {
      if (this.#buckets.size < this.#maxBuckets) break;
      this.#buckets.delete(id);
      this.#evicted += 1;
    }
  }

  #report(bucket: Bucket, limits: Limits, now: number, outcome: 'allowed'): RateDecision {
    const minuteLeft = limits.perMinute - bucket.minuteCount;
    const dayLeft = limits.perDay - bucket.dayCount;
    const useDay = dayLeft <= minuteLeft;
    const resetAtMs = useDay ? bucket.dayStart + dayMs : bucket.minuteStart + minuteMs;
    return {
      outcome,
      limit: useDay ? limits.perDay : limits.perMinute,
      remaining: Math.max(0, useDay ? dayLeft : minuteLeft),
      resetAtMs,
      retryAfterSeconds: secondsUntil(resetAtMs, now),
      windows: windowsOf(bucket, limits),
    };
  }

  #limited(bucket: Bucket, limits: Limits, resetAtMs: number, now: number): RateDecision {
    return {
      outcome: 'limited',
      limit: Math.min(limits.perMinute, limits.perDay),
      remaining: 0,
      resetAtMs,
      retryAfterSeconds: secondsUntil(resetAtMs, now),
      windows: windowsOf(bucket, limits),
    };
  }

  #banned(bucket: Bucket, limits: Limits, now: number): RateDecision {
    const resetAtMs = bucket.bannedUntil;
    // A banned client has nothing left in either window until the ban ends, whatever its counts say
    // (so Retry-After, the ban, is also where every effective window ends, as the IETF draft asks).
    const windows = windowsOf(bucket, limits).map((window) => ({ ...window, remaining: 0, resetAtMs }));
    return {
      outcome: 'banned',
      limit: Math.min(limits.perMinute, limits.perDay),
      remaining: 0,
      resetAtMs,
      retryAfterSeconds: secondsUntil(resetAtMs, now),
      windows,
    };
  }
}

/**
 * Whether an entry of a least-recently-seen table, last moved to its recent end at `movedAtMs`, moves
 * again at `nowMs`: at most once a second (a Map's delete and set on every request would cost more
 * than the rest of a hit: V8 shrinks the table at each delete), and at once when the clock went back
 * (else it would stay put, and look stale, until the clock caught up).
 */
export function dueForMove(movedAtMs: number, nowMs: number): boolean {
  return nowMs < movedAtMs || nowMs - movedAtMs >= 1_000;
}

/** Both windows of a client's counts (the Redis store builds its decisions with it too, so both stores agree). */
export function windowsOf(
  bucket: Pick<Bucket, 'minuteStart' | 'minuteCount' | 'dayStart' | 'dayCount'>,
  limits: Limits,
): RateWindow[] {
  return [
    {
      name: 'minute',
      quota: limits.perMinute,
      windowSeconds: minuteMs / 1000,
      remaining: Math.max(0, limits.perMinute - bucket.minuteCount),
      resetAtMs: bucket.minuteStart + minuteMs,
    },
    {
      name: 'day',
      quota: limits.perDay,
      windowSeconds: dayMs / 1000,
      remaining: Math.max(0, limits.perDay - bucket.dayCount),
      resetAtMs: bucket.dayStart + dayMs,
    },
  ];
}

function freshBucket(now: number): Bucket {
  return {
    minuteStart: now,
    minuteCount: 0,
    dayStart: now,
    dayCount: 0,
    strikes: 0,
    bannedUntil: notBanned,
    touchedAt: now,
  };
}

function secondsUntil(atMs: number, now: number): number {
  return Math.max(1, Math.ceil((atMs - now) / 1000));
}

/** A window that has ended starts over at `now`, empty. */
function rollWindows(bucket: Bucket, now: number): void {
  if (now >= bucket.minuteStart + minuteMs) {
    bucket.minuteStart = now;
    bucket.minuteCount = 0;
  }
  if (now >= bucket.dayStart + dayMs) {
    bucket.dayStart = now;
    bucket.dayCount = 0;
  }
}

import { parseList } from 'structured-headers';
import { describe, expect, it } from 'vitest';
import { createFixedClock } from '../clock.js';
import { ietfRateLimitHeaders, rateLimitHeaders } from '../wire/rate-limit-headers.js';
import { dueForMove, RateLimiter } from './rate-limiter.js';

const start = Date.UTC(2026, 0, 1);
const noBan = { enabled: false, threshold: 10, durationMs: 900_000 };

function setup(ban = noBan, maxBuckets?: number) {
  const clock = createFixedClock(start);
  return { clock, limiter: new RateLimiter({ clock, ban, maxBuckets }) };
}

describe('RateLimiter', () => {
  it('allows exactly the per-minute limit, then refuses until the minute is over', () => {
    const { clock, limiter } = setup();
    const limits = { perMinute: 3, perDay: 100 };
    expect([1, 2, 3].map(() => limiter.hit('a', limits).outcome)).toEqual(['allowed', 'allowed', 'allowed']);
    const refused = limiter.hit('a', limits);
    expect(refused).toMatchObject({
      outcome: 'limited',
      limit: 3,
      remaining: 0,
      resetAtMs: start + 60_000,
      retryAfterSeconds: 60,
    });
    clock.advance(59_999);
    expect(limiter.hit('a', limits)).toMatchObject({ outcome: 'limited', retryAfterSeconds: 1 });
    clock.advance(1);
    expect(limiter.hit('a', limits)).toMatchObject({ outcome: 'allowed', remaining: 2, resetAtMs: start + 120_000 });
  });

  it('reports the window with the fewest requests left', () => {
    const { clock, limiter } = setup();
    const limits = { perMinute: 10, perDay: 12 };
    expect(limiter.hit('a', limits)).toMatchObject({ limit: 10, remaining: 9, resetAtMs: start + 60_000 });
    for (let index = 0; index < 9; index += 1) limiter.hit('a', limits);
    clock.advance(60_000);
    // 10 used today: the day window has 2 left, the new minute 9.
    expect(limiter.hit('a', limits)).toMatchObject({
      outcome: 'allowed',
      limit: 12,
      remaining: 1,
      resetAtMs: start + 86_400_000,
    });
    limiter.hit('a', limits);
    expect(limiter.hit('a', limits)).toMatchObject({
      outcome: 'limited',
      limit: 12,
      remaining: 0,
      resetAtMs: start + 86_400_000,
      retryAfterSeconds: 86_400 - 60,
    });
  });

  it('does not count refused requests', () => {
    const { clock, limiter } = setup();
    const limits = { perMinute: 1, perDay: 2 };
    limiter.hit('a', limits);
    for (let index = 0; index < 5; index += 1) expect(limiter.hit('a', limits).outcome).toBe('limited');
    clock.advance(60_000);
    expect(limiter.hit('a', limits)).toMatchObject({ outcome: 'allowed', remaining: 0 });
  });

  it('keeps clients apart', () => {
    const { limiter } = setup();
    const limits = { perMinute: 1, perDay: 10 };
    expect(limiter.hit('a', limits).outcome).toBe('allowed');
    expect(limiter.hit('b', limits).outcome).toBe('allowed');
    expect(limiter.hit('a', limits).outcome).toBe('limited');
  });

  it('bans a client that sends more than the threshold after a 429, until the ban ends', () => {
    const { clock, limiter } = setup({ enabled: true, threshold: 3, durationMs: 300_000 });
    const limits = { perMinute: 1, perDay: 100 };
    limiter.hit('a', limits);
    expect([1, 2, 3].map(() => limiter.hit('a', limits).outcome)).toEqual(['limited', 'limited', 'limited']);
    const banned = limiter.hit('a', limits);
    expect(banned).toMatchObject({
      outcome: 'banned',
      remaining: 0,
      resetAtMs: start + 300_000,
      retryAfterSeconds: 300,
    });
    // The minute is long over, but the ban holds.
    clock.advance(299_000);
    expect(limiter.hit('a', limits)).toMatchObject({ outcome: 'banned', retryAfterSeconds: 1 });
    clock.advance(1_000);
    expect(limiter.hit('a', limits).outcome).toBe('allowed');
  });

  it('forgives strikes once the client is allowed again', () => {
    const { clock, limiter } = setup({ enabled: true, threshold: 2, durationMs: 300_000 });
    const limits = { perMinute: 1, perDay: 100 };
    limiter.hit('a', limits);
    limiter.hit('a', limits);
    limiter.hit('a', limits);
    clock.advance(60_000);
    limiter.hit('a', limits);
    expect(limiter.hit('a', limits).outcome).toBe('limited');
    expect(limiter.hit('a', limits).outcome).toBe('limited');
    expect(limiter.hit('a', limits).outcome).toBe('banned');
  });

  it('peek reports without counting', () => {
    const { limiter } = setup();
    const limits = { perMinute: 5, perDay: 100 };
    limiter.hit('a', limits);
    expect(limiter.peek('a', limits)).toMatchObject({ remaining: 4 });
    expect(limiter.peek('a', limits)).toMatchObject({ remaining: 4 });
    expect(limiter.peek('unknown', limits)).toMatchObject({ remaining: 5 });
  });

  it('never tracks more clients than its bound and drops expired ones', () => {
    const { clock, limiter } = setup(noBan, 100);
    const limits = { perMinute: 5, perDay: 5 };
    for (let index = 0; index < 1_000; index += 1) limiter.hit(`anon:${index}`, limits);
    expect(limiter.size).toBeLessThanOrEqual(100);
    clock.advance(86_400_000);
    for (let index = 0; index < 1_100; index += 1) limiter.hit(`fresh:${index % 10}`, limits);
    expect(limiter.size).toBeLessThanOrEqual(100);
  });

  it('turns a decision into X-RateLimit-* headers with Reset in Unix seconds', () => {
    const { limiter } = setup();
    const limits = { perMinute: 1, perDay: 10 };
    expect(rateLimitHeaders(limiter.hit('a', limits))).toEqual({
      'X-RateLimit-Limit': '1',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(start / 1000 + 60),
    });
    expect(rateLimitHeaders(limiter.hit('a', limits))).toEqual({
      'X-RateLimit-Limit': '1',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(start / 1000 + 60),
      'Retry-After': '60',
    });
  });
});

/** The IETF fields as a client library reads them: structured-field Lists, item -> parameters. */
function parseIetf(headers: Record<string, string>) {
  const read = (value: string) =>
    Object.fromEntries(parseList(value).map(([item, parameters]) => [String(item), Object.fromEntries(parameters)]));
  // Policy names are sf-strings (draft 11 section 3: the Item value MUST be a String), not tokens.
  for (const [item] of [...parseList(headers['RateLimit-Policy']!), ...parseList(headers.RateLimit!)])
    expect(typeof item).toBe('string');
  return { policy: read(headers['RateLimit-Policy']!), limit: read(headers.RateLimit!) };
}

describe('dueForMove', () => {
  it('moves a table entry once a second, and at once when the clock went back', () => {
    expect(dueForMove(10_000, 10_999)).toBe(false);
    expect(dueForMove(10_000, 11_000)).toBe(true);
    expect(dueForMove(10_000, 9_999)).toBe(true);
    expect(dueForMove(10_000, 10_000)).toBe(false);
  });
});

describe('ietfRateLimitHeaders (draft-ietf-httpapi-ratelimit-headers-11)', () => {
  it('lists both windows as policies (q per w seconds) and service limits (r left, t seconds to go)', () => {
    const { clock, limiter } = setup();
    const limits = { perMinute: 60, perDay: 1_000 };
    limiter.hit('a', limits);
    clock.advance(30_000);
    const decision = limiter.hit('a', limits);
    expect(parseIetf(ietfRateLimitHeaders(decision, clock.now()))).toEqual({
      policy: { minute: { q: 60, w: 60 }, day: { q: 1_000, w: 86_400 } },
      limit: { minute: { r: 58, t: 30 }, day: { r: 998, t: 86_370 } },
    });
  });

  it('says 0 left in the full window of a limited client, and in both windows, until the ban ends, of a banned one', () => {
    const { clock, limiter } = setup({ enabled: true, threshold: 1, durationMs: 900_000 });
    const limits = { perMinute: 2, perDay: 100 };
    limiter.hit('a', limits);
    limiter.hit('a', limits);
    const limited = limiter.hit('a', limits);
    expect(limited.outcome).toBe('limited');
    expect(parseIetf(ietfRateLimitHeaders(limited, clock.now())).limit).toEqual({
      minute: { r: 0, t: 60 },
      day: { r: 98, t: 86_400 },
    });
    const banned = limiter.hit('a', limits);
    expect(banned.outcome).toBe('banned');
    expect(parseIetf(ietfRateLimitHeaders(banned, clock.now())).limit).toEqual({
      minute: { r: 0, t: 900 },
      day: { r: 0, t: 900 },
    });
    // Retry-After (the ban) is not earlier than the end of the effective windows (draft section 6).
    expect(rateLimitHeaders(banned)['Retry-After']).toBe('900');
  });

  it('stays a valid structured field for huge custom limits (at most 15 digits)', () => {
    const { clock, limiter } = setup();
    const decision = limiter.hit('a', { perMinute: 10 ** 18, perDay: 10 ** 18 });
    expect(parseIetf(ietfRateLimitHeaders(decision, clock.now())).policy.minute).toEqual({
      q: 999_999_999_999_999,
      w: 60,
    });
  });
});

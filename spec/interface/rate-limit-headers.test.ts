import { describe, expect, it } from 'vitest';
import { planOfMinuteLimit } from './plans.js';
import {
  missingRateHeaders,
  newWindowBetween,
  parseNonNegativeInteger,
  parseRetryAfter,
  rateHeaderValueProblems,
  readBudget,
  resetProblem,
  serverClock,
} from './rate-limit-headers.js';

const now = Date.parse('2026-01-01T00:00:00Z');
const nowSeconds = now / 1000;

describe('rate-limit headers', () => {
  it('accepts only plain non-negative integers', () => {
    expect(parseNonNegativeInteger('59')).toBe(59);
    expect(parseNonNegativeInteger('0')).toBe(0);
    for (const text of ['60.0', '-1', '1e3', ' 60', '', 'sixty', undefined])
      expect(parseNonNegativeInteger(text), String(text)).toBeUndefined();
  });

  it('names the missing headers', () => {
    expect(missingRateHeaders({ 'x-ratelimit-limit': '60' })).toEqual(['X-RateLimit-Remaining', 'X-RateLimit-Reset']);
    expect(
      missingRateHeaders({ 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '1', 'x-ratelimit-reset': '1' }),
    ).toEqual([]);
  });

  it('reports non-integers and Remaining above Limit', () => {
    expect(
      rateHeaderValueProblems({
        'x-ratelimit-limit': '60.0',
        'x-ratelimit-remaining': '59',
        'x-ratelimit-reset': String(nowSeconds),
      }),
    ).toEqual([{ header: 'X-RateLimit-Limit', detail: 'is "60.0", not a non-negative integer' }]);
    expect(rateHeaderValueProblems({ 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '61' })).toEqual([
      { header: 'X-RateLimit-Remaining', detail: 'is 61, more than X-RateLimit-Limit 60' },
    ]);
  });

  it('accepts a Reset in seconds from now to a day ahead', () => {
    expect(resetProblem(String(nowSeconds + 60), now, 'Date header')).toBeUndefined();
    expect(resetProblem(String(nowSeconds), now, 'Date header')).toBeUndefined();
    expect(resetProblem(String(nowSeconds + 86_400), now, 'Date header')).toBeUndefined();
  });

  it('names Reset in milliseconds, as a delta, in the past and too far ahead', () => {
    expect(resetProblem(String((nowSeconds + 60) * 1000), now, 'Date header')?.detail).toContain(
      'milliseconds, not seconds',
    );
    expect(resetProblem('60', now, 'Date header')?.detail).toContain('(a delta), not a Unix timestamp');
    expect(resetProblem(String(nowSeconds - 3600), now, 'Date header')?.detail).toContain('in the past');
    expect(resetProblem(String(nowSeconds + 3 * 86_400), now, 'Date header')?.detail).toContain(
      'more than a day ahead',
    );
  });

  it('judges time by the server Date header when there is one', () => {
    expect(serverClock({ date: 'Thu, 01 Jan 2026 00:00:00 GMT' }, 0)).toEqual({ nowMs: now, source: 'Date header' });
    expect(serverClock({}, 42)).toEqual({ nowMs: 42, source: 'local clock' });
  });

  it('parses Retry-After as positive seconds or an HTTP-date', () => {
    expect(parseRetryAfter('42', now)).toEqual({ ok: true, delayMs: 42_000, form: 'seconds' });
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:01:00 GMT', now)).toEqual({
      ok: true,
      delayMs: 60_000,
      form: 'HTTP-date',
    });
    expect(parseRetryAfter('0', now).ok).toBe(false);
    expect(parseRetryAfter('soon', now).ok).toBe(false);
    expect(parseRetryAfter('1.5', now).ok).toBe(false);
    expect(parseRetryAfter(undefined, now)).toEqual({ ok: false, reason: 'is missing' });
  });

  it('reads a budget, ignoring a Reset that is no believable Unix time in seconds', () => {
    expect(
      readBudget(
        { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59', 'x-ratelimit-reset': String(nowSeconds + 60) },
        now,
      ),
    ).toEqual({ limit: 60, remaining: 59, resetSeconds: nowSeconds + 60 });
    expect(readBudget({ 'x-ratelimit-reset': String((nowSeconds + 60) * 1000) }, now).resetSeconds).toBeUndefined();
    expect(readBudget({ 'x-ratelimit-reset': '60' }, now).resetSeconds).toBeUndefined();
  });

  it('tells a new window from the headers alone: Reset moved on by more than a second (by one when the budget came back), or the Limit changed', () => {
    const at = (remaining: number, reset: number, limit = 60) => ({ limit, remaining, resetSeconds: reset });
    expect(newWindowBetween(at(3, 1000), at(2, 1000))).toBe(false);
    // Rounding of whole seconds and sliding windows move Reset a little: the same window.
    expect(newWindowBetween(at(3, 1000), at(2, 1001))).toBe(false);
    expect(newWindowBetween(at(1, 1000), at(59, 1060))).toBe(true);
    // The budget came back with a Reset one second later: a one-second window rolled over, not rounding.
    expect(newWindowBetween(at(1, 1000), at(14, 1001))).toBe(true);
    // The budget came back with Reset unmoved: no new window announced (reset-moves-at-rollover fails it).
    expect(newWindowBetween(at(1, 1000), at(14, 1000))).toBe(false);
    expect(newWindowBetween(at(40, 1000, 60), at(30, 86_400, 1000))).toBe(true);
    // A Reset that moved earlier is no new window (the reset-steady check fails it).
    expect(newWindowBetween(at(3, 1000), at(2, 980))).toBe(false);
    // Unreadable Resets say nothing: the same window, judged by the checks that read them.
    expect(newWindowBetween({ limit: 60, remaining: 3, resetSeconds: undefined }, at(2, 1000))).toBe(false);
    expect(newWindowBetween(at(3, 1000), { limit: undefined, remaining: undefined, resetSeconds: undefined })).toBe(
      false,
    );
  });

  it('knows a plan by its per-minute limit only where the number names one plan', () => {
    expect(planOfMinuteLimit(60)).toMatchObject({ name: 'Free', perDay: 1_000 });
    expect(planOfMinuteLimit(300)).toMatchObject({ name: 'Pro', perDay: 10_000 });
    // 1,000 is Business's minute and Free's day.
    expect(planOfMinuteLimit(1_000)).toBeUndefined();
    expect(planOfMinuteLimit(5_000)).toBeUndefined();
    expect(planOfMinuteLimit(undefined)).toBeUndefined();
  });
});

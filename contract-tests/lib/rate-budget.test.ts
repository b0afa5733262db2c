import { describe, expect, it } from 'vitest';
import { InconclusiveError } from './check-errors.js';
import { RateBudget, WaitAllowance } from './rate-budget.js';

/** A budget on a virtual clock: sleeping moves the clock, nothing waits for real. */
function virtualBudget(maxWaitMs: number, start = Date.parse('2026-01-01T00:00:00Z')) {
  let now = start;
  const sleeps: number[] = [];
  const logs: string[] = [];
  const budget = new RateBudget({
    label: 'the main key',
    reserve: 2,
    allowance: new WaitAllowance(maxWaitMs),
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
    log: (line) => logs.push(line),
  });
  const headers = (remaining: number, resetOffsetSeconds: number) => ({
    'x-ratelimit-remaining': String(remaining),
    'x-ratelimit-reset': String(Math.floor(now / 1000) + resetOffsetSeconds),
  });
  return { budget, sleeps, logs, headers, advance: (ms: number) => (now += ms), now: () => now };
}

describe('RateBudget', () => {
  it('sends without waiting while Remaining is above the reserve', async () => {
    const { budget, sleeps, headers, now } = virtualBudget(60_000);
    budget.observe({ status: 200, headers: headers(10, 30), receivedAtMs: now() });
    await budget.acquire();
    budget.release();
    expect(sleeps).toEqual([]);
  });

  it('waits until just after X-RateLimit-Reset when Remaining falls to the reserve, and says so', async () => {
    const { budget, sleeps, logs, headers, now } = virtualBudget(60_000);
    budget.observe({ status: 200, headers: headers(2, 30), receivedAtMs: now() });
    await budget.acquire();
    expect(sleeps).toEqual([31_000]);
    expect(logs[0]).toMatch(
      /^X-RateLimit-Remaining of the main key is 2 \(reserve 2\); waiting for X-RateLimit-Reset .*: 31 s$/,
    );
  });

  it('counts requests in flight against Remaining', async () => {
    const { budget, sleeps, headers, now } = virtualBudget(60_000);
    budget.observe({ status: 200, headers: headers(4, 30), receivedAtMs: now() });
    await budget.acquire();
    await budget.acquire();
    expect(sleeps).toEqual([]);
    await budget.acquire(); // 4 - 2 in flight = 2: the reserve
    expect(sleeps).toEqual([31_000]);
  });

  it('throws InconclusiveError instead of waiting past --max-wait', async () => {
    const { budget, sleeps, headers, now } = virtualBudget(10_000);
    budget.observe({ status: 200, headers: headers(1, 30), receivedAtMs: now() });
    await expect(budget.acquire()).rejects.toThrow(InconclusiveError);
    await expect(budget.acquire()).rejects.toThrow(/would exceed --max-wait 10 s \(0 s already waited\)/);
    expect(sleeps).toEqual([]);
  });

  it('holds off for Retry-After after a 429', async () => {
    const { budget, sleeps, headers, now } = virtualBudget(60_000);
    budget.observe({ status: 429, headers: { ...headers(0, 30), 'retry-after': '5' }, receivedAtMs: now() });
    await budget.acquire();
    expect(sleeps[0]).toBe(5_000);
  });

  it('trusts the lowest Remaining of a window and the new numbers of a new window', async () => {
    const { budget, headers, now, advance } = virtualBudget(60_000);
    budget.observe({ status: 200, headers: headers(5, 30), receivedAtMs: now() });
    budget.observe({ status: 200, headers: headers(7, 30), receivedAtMs: now() });
    expect(budget.remaining).toBe(5);
    advance(40_000);
    budget.observe({ status: 200, headers: headers(59, 60), receivedAtMs: now() });
    expect(budget.remaining).toBe(59);
  });

  it('does not pace by a Reset that is not a Unix timestamp in seconds', async () => {
    const { budget, sleeps, now } = virtualBudget(60_000);
    budget.observe({
      status: 200,
      headers: { 'x-ratelimit-remaining': '1', 'x-ratelimit-reset': String(now() + 30_000) },
      receivedAtMs: now(),
    });
    await budget.acquire();
    expect(sleeps).toEqual([]);
  });

  it('lets parallel requests share one wait and book it once', async () => {
    const { budget, sleeps, headers, now } = virtualBudget(40_000);
    budget.observe({ status: 200, headers: headers(2, 30), receivedAtMs: now() });
    await Promise.all([budget.acquire(), budget.acquire()]);
    expect(sleeps).toEqual([31_000]);
  });
});

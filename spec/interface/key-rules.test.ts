import { describe, expect, it } from 'vitest';
import {
  limitedWithBudgetLeft,
  promiseStillHeld,
  remainingStepProblem,
  retryAfterInThePast,
  retryAfterVersusReset,
} from './key-rules.js';
import type { ObservedExchange } from './observed.js';

const nowMs = Date.parse('2026-01-01T00:00:00Z');
const reset = nowMs / 1000 + 60;

function answer(status: number, headers: Record<string, string>, atMs = nowMs): ObservedExchange {
  return {
    operationId: 'listCategories',
    request: { method: 'GET' },
    receivedAtMs: atMs,
    response: {
      status,
      headers: {
        date: new Date(atMs).toUTCString(),
        'x-ratelimit-limit': '60',
        'x-ratelimit-reset': String(reset),
        ...headers,
      },
      bodyText: '',
      hasJson: false,
      json: undefined,
    },
  };
}

describe('remainingStepProblem', () => {
  it('passes a step of exactly one and reports a skip or a standstill', () => {
    expect(
      remainingStepProblem(
        answer(200, { 'x-ratelimit-remaining': '10' }),
        answer(200, { 'x-ratelimit-remaining': '9' }),
      ),
    ).toBeUndefined();
    expect(
      remainingStepProblem(
        answer(200, { 'x-ratelimit-remaining': '10' }),
        answer(200, { 'x-ratelimit-remaining': '8' }),
      ),
    ).toEqual({ previous: 10, next: 8 });
    expect(
      remainingStepProblem(
        answer(200, { 'x-ratelimit-remaining': '10' }),
        answer(400, { 'x-ratelimit-remaining': '10' }),
      ),
    ).toEqual({ previous: 10, next: 10 });
  });

  it('says nothing across a new window, of a 429, or of a Remaining it cannot read', () => {
    const later = answer(
      200,
      { 'x-ratelimit-remaining': '59', 'x-ratelimit-reset': String(reset + 60) },
      nowMs + 61_000,
    );
    expect(remainingStepProblem(answer(200, { 'x-ratelimit-remaining': '3' }), later)).toBeUndefined();
    expect(
      remainingStepProblem(
        answer(200, { 'x-ratelimit-remaining': '3' }),
        answer(429, { 'x-ratelimit-remaining': '0' }),
      ),
    ).toBeUndefined();
    expect(
      remainingStepProblem(
        answer(200, { 'x-ratelimit-remaining': 'x' }),
        answer(200, { 'x-ratelimit-remaining': '5' }),
      ),
    ).toBeUndefined();
  });
});

describe('limitedWithBudgetLeft', () => {
  it('accepts a 429 after Remaining 0, and names each answer that says requests were left', () => {
    expect(
      limitedWithBudgetLeft(
        answer(200, { 'x-ratelimit-remaining': '0' }),
        answer(429, { 'x-ratelimit-remaining': '0' }),
      ),
    ).toEqual([]);
    expect(
      limitedWithBudgetLeft(
        answer(200, { 'x-ratelimit-remaining': '3' }),
        answer(429, { 'x-ratelimit-remaining': '2' }),
      ).map((problem) => problem.which),
    ).toEqual(['after', 'before']);
  });

  it('does not hold a promise of an earlier window against the 429 of a later one', () => {
    const before = answer(200, { 'x-ratelimit-remaining': '3' });
    const limited = answer(
      429,
      { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset + 60) },
      nowMs + 70_000,
    );
    expect(promiseStillHeld(before, limited)).toBe(false);
    expect(limitedWithBudgetLeft(before, limited)).toEqual([]);
  });
});

describe('Retry-After on a 429', () => {
  it('agrees with Reset within 2 s by the Date header; later is a failure, earlier information', () => {
    expect(retryAfterVersusReset(answer(429, { 'retry-after': '60' })).kind).toBe('agrees');
    expect(retryAfterVersusReset(answer(429, { 'retry-after': '999999' })).kind).toBe('later');
    expect(retryAfterVersusReset(answer(429, { 'retry-after': '5' })).kind).toBe('earlier');
    expect(retryAfterVersusReset(answer(429, { 'retry-after': 'soon' })).kind).toBe('unjudged');
  });

  it('reports an HTTP-date in the past, not one in the future', () => {
    expect(retryAfterInThePast(answer(429, { 'retry-after': new Date(nowMs - 60_000).toUTCString() }))).toContain(
      'is in the past',
    );
    expect(retryAfterInThePast(answer(429, { 'retry-after': new Date(nowMs + 60_000).toUTCString() }))).toBeUndefined();
    expect(retryAfterInThePast(answer(429, { 'retry-after': '30' }))).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import {
  limitedWithBudgetLeft,
  promiseStillHeld,
  remainingStepProblem,
  retryAfterInThePast,
  retryAfterVersusReset,
} from './key-rules.js';
import { KeySequences } from './key-sequences.js';
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

/** An answer of a key in a sequence: status, Remaining, and what else differs from this window's. */
function keyAnswer(
  status: number,
  remaining: number,
  more: { reset?: number; atMs?: number; retryAfter?: string; date?: string } = {},
): ObservedExchange {
  return answer(
    status,
    {
      'x-ratelimit-remaining': String(remaining),
      ...(more.reset === undefined ? {} : { 'x-ratelimit-reset': String(more.reset) }),
      ...(more.retryAfter === undefined ? {} : { 'retry-after': more.retryAfter }),
      ...(more.date === undefined ? {} : { date: more.date }),
    },
    more.atMs,
  );
}

/** Sends and answers each in turn (one at a time): the verdicts on the last. */
function inTurn(...answers: ObservedExchange[]) {
  const sequences = new KeySequences();
  let last: ReturnType<KeySequences['answered']> = { verdicts: [], notes: [] };
  for (const each of answers) last = sequences.answered(sequences.sent('k'), each);
  return last;
}

const failed = (findings: ReturnType<typeof inTurn>) =>
  findings.verdicts.filter((verdict) => verdict.violations.length > 0).map((verdict) => verdict.id);

describe('the sequence rules of a key', () => {
  it('hold on a conforming pair, and fail a step of two', () => {
    expect(inTurn(keyAnswer(200, 10), keyAnswer(200, 9)).verdicts.map((verdict) => verdict.id)).toEqual([
      'rate.remaining-exact',
      'rate.reset-steady',
    ]);
    expect(failed(inTurn(keyAnswer(200, 10), keyAnswer(200, 9)))).toEqual([]);
    expect(failed(inTurn(keyAnswer(200, 10), keyAnswer(200, 8)))).toEqual(['rate.remaining-exact']);
  });

  it('judge no pair of requests that were in flight together', () => {
    const sequences = new KeySequences();
    sequences.answered(sequences.sent('k'), keyAnswer(200, 10));
    const first = sequences.sent('k');
    const second = sequences.sent('k');
    expect(sequences.answered(second, keyAnswer(200, 7)).verdicts).toEqual([]);
    expect(sequences.answered(first, keyAnswer(200, 8)).verdicts).toEqual([]);
  });

  it('take a fall of more than one after an answer that overlapped another of the key (the server may have counted them in either order), never a standstill', () => {
    const sequences = new KeySequences();
    sequences.answered(sequences.sent('k'), keyAnswer(200, 70));
    // Two in flight together; the server counts `late` (66) before `early` (65), yet answers `early` first.
    const early = sequences.sent('k');
    const late = sequences.sent('k');
    sequences.answered(early, keyAnswer(200, 65));
    sequences.answered(late, keyAnswer(200, 66));
    // The next one, sent alone after both answers: 64 follows the server's last count, not the last answer read.
    expect(failed(sequences.answered(sequences.sent('k'), keyAnswer(200, 64)))).toEqual([]);
    // Between two alone, the step is exact again.
    expect(failed(sequences.answered(sequences.sent('k'), keyAnswer(200, 62)))).toEqual(['rate.remaining-exact']);
    // After an overlap, Remaining that stands still is still a fault: no order of counting explains it.
    const again = new KeySequences();
    again.answered(again.sent('k'), keyAnswer(200, 70));
    const one = again.sent('k');
    const other = again.sent('k');
    again.answered(one, keyAnswer(200, 69));
    again.answered(other, keyAnswer(200, 68));
    expect(failed(again.answered(again.sent('k'), keyAnswer(200, 68)))).toEqual(['rate.remaining-exact']);
  });

  it('judge no pair across a new window as one window, and ask a renewed budget for a later Reset', () => {
    expect(failed(inTurn(keyAnswer(200, 0), keyAnswer(200, 59, { reset: reset + 60, atMs: nowMs + 61_000 })))).toEqual(
      [],
    );
    expect(failed(inTurn(keyAnswer(200, 0), keyAnswer(200, 59, { atMs: nowMs + 61_000 })))).toEqual([
      'rate.remaining-exact',
      'rate.reset-moves-at-rollover',
    ]);
  });

  it('take a budget that came back with Reset one second later as a new one-second window, never a failure', () => {
    // Windows as short as the headers' resolution: the next window's Reset is the old one plus one.
    expect(failed(inTurn(keyAnswer(200, 0), keyAnswer(200, 14, { reset: reset + 1, atMs: nowMs + 1_000 })))).toEqual(
      [],
    );
  });

  it('fail a Reset that moves earlier within a window', () => {
    expect(failed(inTurn(keyAnswer(200, 10), keyAnswer(200, 9, { reset: reset - 20 })))).toEqual(['rate.reset-steady']);
  });

  it('skip pairs whose credentials were refused (401 or 403: not the key budget)', () => {
    expect(inTurn(keyAnswer(200, 10), keyAnswer(403, 99)).verdicts).toEqual([]);
    expect(inTurn(keyAnswer(401, 99), keyAnswer(200, 9)).verdicts).toEqual([]);
  });

  it("judge a key's first 429: its own Remaining always, the answer before only when sequential", () => {
    expect(failed(inTurn(keyAnswer(429, 3, { retryAfter: '60' })))).toEqual(['rate.429-only-when-exhausted']);
    expect(failed(inTurn(keyAnswer(200, 4), keyAnswer(429, 0, { retryAfter: '60' })))).toEqual([
      'rate.429-only-when-exhausted',
    ]);
    expect(failed(inTurn(keyAnswer(200, 0), keyAnswer(429, 0, { retryAfter: '60' })))).toEqual([]);
    // Past the window the served answer announced: also a ban that came too early (ban-rules.ts).
    expect(failed(inTurn(keyAnswer(200, 0), keyAnswer(429, 0, { retryAfter: '900' })))).toEqual([
      'rate.first-429-no-ban',
      'rate.retry-after-matches-reset',
    ]);
  });

  it('note a Retry-After before Reset as what the interface leaves open, never a failure', () => {
    const findings = inTurn(keyAnswer(200, 0), keyAnswer(429, 0, { retryAfter: '5' }));
    expect(failed(findings)).toEqual([]);
    expect(findings.notes.map((note) => note.id)).toEqual(['rate.retry-after-matches-reset']);
  });

  it('judge values no clock can hold without throwing (issue 40 row 3)', () => {
    for (const hostile of [
      { retryAfter: '99999999999999999' },
      { retryAfter: 'Sat, 13 Sep 275760 00:00:00 GMT' },
      { retryAfter: '60', date: 'Sat, 13 Sep 275760 00:00:00 GMT' },
      { retryAfter: '60', reset: 9_999_999_999_999 },
    ])
      expect(() => inTurn(keyAnswer(200, 0), keyAnswer(429, 0, hostile)), JSON.stringify(hostile)).not.toThrow();
  });
});

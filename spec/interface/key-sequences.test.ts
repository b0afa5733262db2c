import { describe, expect, it } from 'vitest';
import { KeySequences } from './key-sequences.js';
import type { ObservedExchange } from './observed.js';

const nowMs = Date.parse('2026-01-01T00:00:30Z');
const reset = Math.floor(nowMs / 1000) + 30;

/** An answer of a key: status, Remaining, and the Reset (default: this window's), at `atMs`. */
function answer(
  status: number,
  remaining: number,
  more: { reset?: number; atMs?: number; retryAfter?: string; date?: string } = {},
): ObservedExchange {
  const atMs = more.atMs ?? nowMs;
  return {
    operationId: 'listCategories',
    request: { method: 'GET' },
    receivedAtMs: atMs,
    response: {
      status,
      headers: {
        date: more.date ?? new Date(atMs).toUTCString(),
        'x-ratelimit-limit': '60',
        'x-ratelimit-remaining': String(remaining),
        'x-ratelimit-reset': String(more.reset ?? reset),
        ...(more.retryAfter === undefined ? {} : { 'retry-after': more.retryAfter }),
      },
      bodyText: '',
      hasJson: false,
      json: undefined,
    },
  };
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
    expect(inTurn(answer(200, 10), answer(200, 9)).verdicts.map((verdict) => verdict.id)).toEqual([
      'rate.remaining-exact',
      'rate.reset-steady',
    ]);
    expect(failed(inTurn(answer(200, 10), answer(200, 9)))).toEqual([]);
    expect(failed(inTurn(answer(200, 10), answer(200, 8)))).toEqual(['rate.remaining-exact']);
  });

  it('judge no pair of requests that were in flight together', () => {
    const sequences = new KeySequences();
    sequences.answered(sequences.sent('k'), answer(200, 10));
    const first = sequences.sent('k');
    const second = sequences.sent('k');
    expect(sequences.answered(second, answer(200, 7)).verdicts).toEqual([]);
    expect(sequences.answered(first, answer(200, 8)).verdicts).toEqual([]);
  });

  it('judge no pair across a new window as one window, and ask a renewed budget for a later Reset', () => {
    expect(failed(inTurn(answer(200, 0), answer(200, 59, { reset: reset + 60, atMs: nowMs + 31_000 })))).toEqual([]);
    expect(failed(inTurn(answer(200, 0), answer(200, 59, { atMs: nowMs + 31_000 })))).toEqual([
      'rate.remaining-exact',
      'rate.reset-moves-at-rollover',
    ]);
  });

  it('fail a Reset that moves earlier within a window', () => {
    expect(failed(inTurn(answer(200, 10), answer(200, 9, { reset: reset - 20 })))).toEqual(['rate.reset-steady']);
  });

  it('skip pairs whose credentials were refused (401 or 403: not the key budget)', () => {
    expect(inTurn(answer(200, 10), answer(403, 99)).verdicts).toEqual([]);
    expect(inTurn(answer(401, 99), answer(200, 9)).verdicts).toEqual([]);
  });

  it("judge a key's first 429: its own Remaining always, the answer before only when sequential", () => {
    expect(failed(inTurn(answer(429, 3, { retryAfter: '30' })))).toEqual(['rate.429-only-when-exhausted']);
    expect(failed(inTurn(answer(200, 4), answer(429, 0, { retryAfter: '30' })))).toEqual([
      'rate.429-only-when-exhausted',
    ]);
    expect(failed(inTurn(answer(200, 0), answer(429, 0, { retryAfter: '30' })))).toEqual([]);
    expect(failed(inTurn(answer(200, 0), answer(429, 0, { retryAfter: '900' })))).toEqual([
      'rate.retry-after-matches-reset',
    ]);
  });

  it('note a Retry-After before Reset as what the interface leaves open, never a failure', () => {
    const findings = inTurn(answer(200, 0), answer(429, 0, { retryAfter: '5' }));
    expect(failed(findings)).toEqual([]);
    expect(findings.notes.map((note) => note.id)).toEqual(['rate.retry-after-matches-reset']);
  });

  it('judge values no clock can hold without throwing (issue 40 row 3)', () => {
    for (const hostile of [
      { retryAfter: '99999999999999999' },
      { retryAfter: 'Sat, 13 Sep 275760 00:00:00 GMT' },
      { retryAfter: '30', date: 'Sat, 13 Sep 275760 00:00:00 GMT' },
      { retryAfter: '30', reset: 9_999_999_999_999 },
    ])
      expect(() => inTurn(answer(200, 0), answer(429, 0, hostile)), JSON.stringify(hostile)).not.toThrow();
  });
});

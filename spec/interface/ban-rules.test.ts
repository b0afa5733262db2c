import { describe, expect, it } from 'vitest';
import { retryAtMs } from './ban-rules.js';
import { KeySequences } from './key-sequences.js';
import type { ObservedExchange } from './observed.js';

const startMs = Date.parse('2026-01-01T00:00:10Z');
/** The minute window the answers below are in ends at 00:01:00. */
const windowEnd = Date.parse('2026-01-01T00:01:00Z') / 1000;

/** One answer of the key `k`, sent and answered at `atMs`. */
function keyAnswer(status: number, atMs: number, headers: Record<string, string> = {}): ObservedExchange {
  return {
    operationId: 'listCategories',
    request: { method: 'GET' },
    sentAtMs: atMs,
    receivedAtMs: atMs,
    response: {
      status,
      headers: {
        date: new Date(atMs).toUTCString(),
        'x-ratelimit-limit': '60',
        'x-ratelimit-remaining': status === 200 ? '0' : '0',
        'x-ratelimit-reset': String(windowEnd),
        ...headers,
      },
      bodyText: '',
      hasJson: false,
      json: undefined,
    },
  };
}

const refused = (atMs: number, retryAfterSeconds: number) =>
  keyAnswer(429, atMs, { 'retry-after': String(retryAfterSeconds) });

/** Feeds the answers in turn, one after the other; returns every finding of the ban rules. */
function inTurn(...answers: ObservedExchange[]) {
  const sequences = new KeySequences();
  const found: { id: string; failed: boolean }[] = [];
  const notes: string[] = [];
  for (const each of answers) {
    const findings = sequences.answered(sequences.sent('k'), each);
    for (const verdict of findings.verdicts)
      if (verdict.id.includes('ban')) found.push({ id: verdict.id, failed: verdict.violations.length > 0 });
    for (const note of findings.notes) if (note.id.includes('ban')) notes.push(note.text);
  }
  return { found, notes, sequences };
}

describe('a ban: its start, announcement and end (§8.3)', () => {
  it('holds on a conforming key: refused to the window end, banned after keeping on sending, served once the ban is waited out', () => {
    const { found, notes, sequences } = inTurn(
      keyAnswer(200, startMs),
      refused(startMs + 1_000, 49),
      refused(startMs + 2_000, 48),
      refused(startMs + 3_000, 600),
      refused(startMs + 4_000, 599),
      keyAnswer(200, startMs + 4_000 + 600_000, { 'x-ratelimit-remaining': '59' }),
    );
    expect(found).toEqual([
      { id: 'rate.first-429-no-ban', failed: false },
      { id: 'rate.ban-announced', failed: false },
      { id: 'rate.ban-announced', failed: false },
      { id: 'rate.ban-announced', failed: false },
      { id: 'rate.ban-temporary', failed: false },
    ]);
    expect(notes[0]).toContain('a ban: after 3 requests refused in a row, the key was told to wait 600 s');
    expect(sequences.unendedRefusals()).toEqual([]);
  });

  it('fails a first 429 that sends the key away past its window', () => {
    expect(inTurn(keyAnswer(200, startMs), refused(startMs + 1_000, 600)).found).toEqual([
      { id: 'rate.first-429-no-ban', failed: true },
    ]);
  });

  it('does not judge a first 429 that others in flight may have preceded', () => {
    const sequences = new KeySequences();
    sequences.answered(sequences.sent('k'), keyAnswer(200, startMs));
    const tickets = [sequences.sent('k'), sequences.sent('k')];
    const findings = sequences.answered(tickets[1]!, refused(startMs + 1_000, 600));
    expect(findings.verdicts.filter((verdict) => verdict.id === 'rate.first-429-no-ban')).toEqual([]);
  });

  it('fails a ban that does not end when its 429 said, and one announced with the minute it was refused in', () => {
    expect(inTurn(refused(startMs, 600), keyAnswer(429, startMs + 600_000, { 'retry-after': '60' })).found).toEqual([
      { id: 'rate.ban-temporary', failed: true },
    ]);
    // The ban's 429 says the minute's end; waiting that, the key is still refused.
    expect(
      inTurn(refused(startMs, 50), refused(startMs + 1_000, 49), refused(startMs + 50_000, 550)).found.at(-1),
    ).toEqual({ id: 'rate.ban-temporary', failed: true });
  });

  it('fails a key told it is invalid while it keeps sending, once the key was served', () => {
    expect(
      inTurn(keyAnswer(200, startMs), refused(startMs + 1_000, 49), keyAnswer(401, startMs + 2_000)).found,
    ).toEqual([
      { id: 'rate.first-429-no-ban', failed: false },
      { id: 'rate.ban-announced', failed: true },
    ]);
    // An unknown key (never served) may be refused any way: not judged a failure.
    expect(inTurn(refused(startMs, 49), keyAnswer(401, startMs + 1_000)).found).toEqual([
      { id: 'rate.ban-announced', failed: false },
    ]);
  });

  it('says which keys were left refused after keeping on sending: their ban end was not seen', () => {
    const { sequences } = inTurn(refused(startMs, 49), refused(startMs + 1_000, 600));
    expect(sequences.unendedRefusals().map((refusal) => refusal.refusedInRow)).toEqual([2]);
    expect(inTurn(refused(startMs, 49)).sequences.unendedRefusals()).toEqual([]);
  });

  it('reads when a 429 lets the key come back, as a delay or an HTTP-date', () => {
    expect(retryAtMs(refused(startMs, 30))).toBe(startMs + 30_000);
    expect(retryAtMs(keyAnswer(429, startMs, { 'retry-after': new Date(startMs + 20_000).toUTCString() }))).toBe(
      startMs + 20_000,
    );
    expect(retryAtMs(keyAnswer(429, startMs, { 'retry-after': 'soon' }))).toBeUndefined();
  });
});

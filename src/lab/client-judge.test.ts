import { describe, expect, it } from 'vitest';
import {
  type ClientJudgeState,
  clientVerdicts,
  createClientJudgeState,
  maxSamples,
  observeClient,
} from './client-judge.js';
import type { LabObservation, Verdict } from './lab-types.js';
import { ban, obs } from './observation.fixture.js';

function judge(observations: LabObservation[], policy = ban): Record<string, Verdict> {
  let state: ClientJudgeState | undefined;
  for (const observation of observations)
    state = observeClient(state ?? createClientJudgeState(observation), observation);
  return Object.fromEntries(clientVerdicts(state!, policy).map((verdict) => [verdict.rule, verdict]));
}

describe('retry-after-honoured', () => {
  it('tolerates up to 999 ms early (whole-second rounding), fails at 1 s early', () => {
    expect(judge([obs(0, 429), obs(9.001, 200)])['retry-after-honoured']!.outcome).toBe('pass');
    const early = judge([obs(0, 429), obs(9, 200)])['retry-after-honoured']!;
    expect(early.outcome).toBe('fail');
    expect(early.evidence).toMatchObject({
      toleranceSeconds: 1,
      judged: 1,
      early: 1,
      samples: [
        {
          refusedAt: '2026-01-01T00:00:00.000Z',
          retryAfterSeconds: 10,
          retriedAt: '2026-01-01T00:00:09.000Z',
          waitSeconds: 9,
          earlyBySeconds: 1,
        },
      ],
    });
  });

  it('is not exercised without a 429, or when nothing followed the 429', () => {
    expect(judge([obs(0, 200)])['retry-after-honoured']!.outcome).toBe('not-exercised');
    expect(judge([obs(0, 200), obs(1, 429)])['retry-after-honoured']!.evidence.summary).toBe(
      'got a 429 but sent nothing after it',
    );
  });

  it('never judges a 429 forced with Prefer: the test chose it, the client did not earn it', () => {
    const verdicts = judge([
      obs(0, 429, { outcome: 'allowed', forced: true }),
      obs(0.1, 200),
      obs(0.2, 429, { outcome: 'allowed', forced: true }),
      obs(0.3, 200),
    ]);
    expect(verdicts['retry-after-honoured']!.outcome).toBe('not-exercised');
    expect(verdicts['retry-after-honoured']!.evidence.forced429Ignored).toBe(2);
    expect(verdicts['backoff-growing']!.outcome).toBe('not-exercised');
    expect(verdicts['no-hammering']!.outcome).toBe('not-exercised');
  });

  it('judges against the latest 429: a second 429 moves the moment', () => {
    // 429 at 0 (10 s), early retry at 2 gets 429 (8 s), then a request at 10 is on time for the second.
    const verdict = judge([obs(0, 429), obs(2, 429, { retryAfterSeconds: 8 }), obs(10, 200)])['retry-after-honoured']!;
    expect(verdict.evidence).toMatchObject({ judged: 2, early: 1 });
  });
});

describe('backoff-growing', () => {
  it('passes strictly growing waits, fails equal waits, is not exercised with one wait', () => {
    expect(judge([obs(0, 429), obs(1, 429), obs(3, 429), obs(7, 200)])['backoff-growing']!.outcome).toBe('pass');
    const equal = judge([obs(0, 429), obs(2, 429), obs(4, 200)])['backoff-growing']!;
    expect(equal.outcome).toBe('fail');
    expect(equal.evidence.samples).toEqual([
      { refusedAt: '2026-01-01T00:00:02.000Z', retryAfterSeconds: 10, previousWaitSeconds: 2, waitSeconds: 2 },
    ]);
    expect(judge([obs(0, 429), obs(10, 200)])['backoff-growing']!.outcome).toBe('not-exercised');
  });

  it('starts over after a success: waits of two runs are not compared', () => {
    const verdict = judge([obs(0, 429), obs(1, 429), obs(5, 200), obs(6, 429), obs(7, 429), obs(9, 200)])[
      'backoff-growing'
    ]!;
    expect(verdict.outcome).toBe('pass');
    expect(verdict.evidence.comparedWaits).toBe(2);
  });
});

describe('no-hammering', () => {
  it('fails a banned client and names when', () => {
    const observations = [
      obs(0, 200),
      ...Array.from({ length: 10 }, (_, index) => obs(1 + index, 429)),
      obs(11, 429, { outcome: 'banned', retryAfterSeconds: 900 }),
      obs(12, 429, { outcome: 'banned', retryAfterSeconds: 899 }),
    ];
    const verdict = judge(observations)['no-hammering']!;
    expect(verdict.outcome).toBe('fail');
    expect(verdict.evidence).toMatchObject({
      bans: 1,
      firstBanAt: '2026-01-01T00:00:11.000Z',
      maxRequestsInARowWhileLimited: 12,
    });
  });

  it('passes at the threshold, fails past it when bans are off', () => {
    const ten = Array.from({ length: 10 }, (_, index) => obs(index, 429));
    expect(judge(ten)['no-hammering']!.outcome).toBe('pass');
    const eleven = [...ten, obs(10, 429)];
    const verdict = judge(eleven, { ...ban, enabled: false })['no-hammering']!;
    expect(verdict.outcome).toBe('fail');
    expect(verdict.evidence.summary).toMatch(/bans are off/);
  });

  it('counts a new ban after a ban was lifted', () => {
    const banned = (at: number) => obs(at, 429, { outcome: 'banned', retryAfterSeconds: 900 });
    // As the limiter gives them: each ban ends a run of 429s.
    expect(
      judge([obs(0, 429), banned(1), banned(2), obs(902, 200), obs(903, 429), banned(1000)])['no-hammering']!.evidence
        .bans,
    ).toBe(2);
  });

  it("does not count a ban met on the first refusal of a run (a scenario's ban): the client did not earn it", () => {
    const banned = (at: number) => obs(at, 429, { outcome: 'banned', retryAfterSeconds: 900 });
    expect(judge([banned(0)])['no-hammering']!.outcome).toBe('pass');
    // Hammering that ban is still hammering.
    const hammered = judge(Array.from({ length: 12 }, (_, index) => banned(index)))['no-hammering']!;
    expect(hammered.outcome).toBe('fail');
    expect(hammered.evidence).toMatchObject({ bans: 0, maxRequestsInARowWhileLimited: 12 });
  });
});

describe('deprecated-operation', () => {
  it('is info with the count and sunset when called', () => {
    const deprecated = {
      operationId: 'getPetById',
      path: '/v1/pets/1',
      deprecated: { sunset: '2027-12-31T23:59:59.000Z' },
    };
    const verdict = judge([obs(0, 200, deprecated), obs(5, 200), obs(9, 200, deprecated)])['deprecated-operation']!;
    expect(verdict.outcome).toBe('info');
    expect(verdict.evidence).toMatchObject({
      calls: 2,
      sunset: '2027-12-31T23:59:59.000Z',
      operations: ['getPetById'],
      firstAt: '2026-01-01T00:00:00.000Z',
      lastAt: '2026-01-01T00:00:09.000Z',
    });
  });
});

describe('bounded memory', () => {
  it('keeps the same size of state whatever the history', () => {
    const sizeAfter = (count: number) => {
      let state = createClientJudgeState(obs(0, 429));
      for (let index = 0; index < count; index += 1)
        state = observeClient(
          state,
          obs(index * 0.1, 429, { outcome: index > 10 ? 'banned' : 'limited', retryAfterSeconds: 900 }),
        );
      return { bytes: JSON.stringify(state).length, state };
    };
    const small = sizeAfter(100);
    const large = sizeAfter(100_000);
    expect(large.state.retrySamples).toHaveLength(maxSamples);
    expect(large.state.backoffSamples).toHaveLength(maxSamples);
    expect(large.bytes).toBeLessThan(small.bytes * 1.2);
    // Round-trips through JSON (a store may keep it as text).
    expect(clientVerdicts(JSON.parse(JSON.stringify(large.state)), ban)).toEqual(clientVerdicts(large.state, ban));
  });
});

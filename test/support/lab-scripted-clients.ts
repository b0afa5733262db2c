/**
 * The scripted clients of issue 12's proofs (their retry policies and the verdicts each must get),
 * shared by the proof against the core's responses (src/lab/scripted-clients.test.ts) and the one
 * through the running mock's report route (test/integration/lab-report.test.ts).
 */
import type { Verdict } from '../../src/lab/lab-types.js';

/** Given the attempt number (0 for the first retry) and the Retry-After just received, how long to wait (ms), or null to give up. */
export type RetryPolicy = (attempt: number, retryAfterSeconds: number) => number | null;

/** A seeded generator (mulberry32): the jitter is the same on every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** These clients meet 429s and no failed answer: their resilience verdicts are not exercised. */
const resilienceNotExercised = {
  'retries-idempotent': 'not-exercised',
  'no-blind-resend': 'not-exercised',
  'bounded-attempts': 'not-exercised',
} as const;

export const scriptedClients: {
  name: string;
  policy: () => RetryPolicy;
  expected: Record<string, Verdict['outcome']>;
}[] = [
  {
    name: 'honours Retry-After',
    policy: () => (_attempt, retryAfter) => retryAfter * 1000,
    expected: {
      'retry-after-honoured': 'pass',
      'backoff-growing': 'not-exercised',
      'no-hammering': 'pass',
      'deprecated-operation': 'info',
      ...resilienceNotExercised,
    },
  },
  {
    name: 'retries at once',
    policy: () => () => 0,
    expected: {
      'retry-after-honoured': 'fail',
      'backoff-growing': 'fail',
      'no-hammering': 'fail',
      'deprecated-operation': 'info',
      ...resilienceNotExercised,
    },
  },
  {
    name: 'retries every second',
    policy: () => () => 1000,
    expected: {
      'retry-after-honoured': 'fail',
      'backoff-growing': 'fail',
      'no-hammering': 'fail',
      'deprecated-operation': 'info',
      ...resilienceNotExercised,
    },
  },
  {
    name: 'exponential backoff starting below Retry-After',
    policy: () => (attempt) => 1000 * 2 ** attempt,
    expected: {
      'retry-after-honoured': 'fail',
      'backoff-growing': 'pass',
      'no-hammering': 'pass',
      'deprecated-operation': 'info',
      ...resilienceNotExercised,
    },
  },
  {
    name: 'exponential backoff with jitter (seeded)',
    policy: () => {
      const random = seededRandom(42);
      // "Equal jitter": half the step fixed, half random, so each wait still exceeds the one before.
      return (attempt) => Math.round(1000 * 2 ** attempt * (1 + random() * 0.5));
    },
    expected: {
      'retry-after-honoured': 'fail',
      'backoff-growing': 'pass',
      'no-hammering': 'pass',
      'deprecated-operation': 'info',
      ...resilienceNotExercised,
    },
  },
  {
    name: 'hammers until banned',
    policy: () => () => 100,
    expected: {
      'retry-after-honoured': 'fail',
      'backoff-growing': 'fail',
      'no-hammering': 'fail',
      'deprecated-operation': 'info',
      ...resilienceNotExercised,
    },
  },
];

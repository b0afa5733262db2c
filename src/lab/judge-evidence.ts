import type { Verdict } from './lab-types.js';

/**
 * What the client judge (after 429s) and the resilience judge (after failures) both keep: evidence
 * samples of a bounded number, waits in seconds, the one meaning of "the wait grew" their
 * growing-waits rules share (`backoff-growing`, `retries-idempotent`), and the shape of a verdict.
 */

/** Evidence samples kept per rule (the first ones: they show where the behaviour began). */
export const maxSamples = 5;

/** Keeps the sample `make` builds while fewer than `maxSamples` are kept: built only when kept (a hammering client meets this on every request). */
export function keepSample<T>(samples: T[], make: () => T): void {
  if (samples.length < maxSamples) samples.push(make());
}

/** Milliseconds as seconds with at most 3 decimals (exact for the virtual clock's whole ms). */
export function seconds(ms: number): number {
  return Math.round(ms) / 1000;
}

/**
 * A wait of a series (after each 429 of a run; between attempts of a failing request) against the
 * one before it: `first` when there is none to compare with, `grew` when strictly longer, else
 * `not-grown` (an equal wait is no backoff).
 */
export function compareWait(previousWaitMs: number | null, waitMs: number): 'first' | 'grew' | 'not-grown' {
  if (previousWaitMs === null) return 'first';
  return waitMs > previousWaitMs ? 'grew' : 'not-grown';
}

/** The two waits of a pair, as a sample shows them. */
export function waitPair(previousWaitMs: number, waitMs: number): { previousWaitSeconds: number; waitSeconds: number } {
  return { previousWaitSeconds: seconds(previousWaitMs), waitSeconds: seconds(waitMs) };
}

/** A verdict whose evidence is its one-line summary, then the rule's figures and samples, in the order reports show them. */
export function verdict(
  rule: Verdict['rule'],
  outcome: Verdict['outcome'],
  summary: string,
  figures: Record<string, unknown>,
): Verdict {
  return { rule, outcome, evidence: { summary, ...figures } };
}

import fc from 'fast-check';
import type { CheckRun } from './check.js';
import { CheckFailure } from './check-errors.js';

/**
 * Runs a fast-check property with the run's fixed seed and no shrinking (each shrink step would be
 * one more request to a server that may be rate limited); the first counterexample fails the check.
 *
 * @example await assertProperty(run, fc.integer(), 5, async (value) => { ... });
 */
export async function assertProperty<T>(
  run: CheckRun,
  arbitrary: fc.Arbitrary<T>,
  numRuns: number,
  predicate: (value: T) => Promise<void>,
): Promise<void> {
  let failure: unknown;
  const details = await fc.check(
    fc.asyncProperty(arbitrary, async (value) => {
      try {
        await predicate(value);
      } catch (error) {
        failure = error;
        throw error;
      }
    }),
    { seed: run.target.seed, numRuns, endOnFailure: true },
  );
  if (!details.failed) return;
  if (failure instanceof Error) {
    if (failure instanceof CheckFailure) {
      throw new CheckFailure(
        `${failure.message} (fast-check seed ${run.target.seed}, counterexample ${JSON.stringify(details.counterexample?.[0])})`,
        failure.evidence,
      );
    }
    throw failure;
  }
  throw new CheckFailure(`property failed (fast-check seed ${run.target.seed}): ${String(details.errorInstance)}`);
}

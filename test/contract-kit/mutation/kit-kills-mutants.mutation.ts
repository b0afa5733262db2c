import { expect, it } from 'vitest';
import { referenceRuns, runAgainstReference } from '../reference/reference-runs.js';

/**
 * The mutation run's test (`npm run mutation`, vitest.mutation.config.ts): Stryker changes the
 * reference server one plausible bug at a time and runs these; a mutant is killed when a run of
 * the kit stops saying CONFORMS. Each situation is its own test, so Stryker runs only those that
 * reach the mutated code and stops at the first that kills it.
 */
for (const scenario of referenceRuns) {
  it(`the kit still says CONFORMS: ${scenario.name}`, async () => {
    const { run, firstFailure } = await runAgainstReference(scenario, { stopAtFirstFailure: true });
    expect(firstFailure).toBeUndefined();
    expect(run.report.verdict).toBe('CONFORMS');
  });
}

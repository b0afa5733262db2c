import { describe, expect, it } from 'vitest';
import { referenceRuns, runAgainstReference } from './reference/reference-runs.js';
import { idsWith } from './support/run-kit.js';

/**
 * Keeps the reference server honest, and the kit with it: in every situation the mutation run
 * uses (reference/reference-runs.ts), the kit says CONFORMS about the reference server. A check
 * that fails here has found a bug in the reference server or in itself, and every mutant the
 * mutation run counts as killed would be meaningless.
 */
describe('the kit against the reference server (virtual clock)', () => {
  for (const scenario of referenceRuns) {
    it(`${scenario.name}: CONFORMS`, async () => {
      const { run } = await runAgainstReference(scenario);
      expect(idsWith(run, 'FAIL')).toEqual([]);
      expect(
        run.report.results.filter((result) => result.inconclusive).map((result) => `${result.id}: ${result.message}`),
      ).toEqual([]);
      expect(run.report.verdict).toBe('CONFORMS');
    });
  }
});

import type { CheckResult, CheckStatus } from '../../../contract-tests/report/report-model.js';
import type { ContractOptions } from '../../../contract-tests/runner/contract-options.js';
import { type ContractRun, runContract } from '../../../contract-tests/runner/run-contract.js';

/**
 * Runs the kit in-process with quiet, fast settings for tests: the log is kept instead of
 * printed, property-based checks send few bodies on a fixed seed, and the run id is fixed per call site.
 *
 * @example const { report, exitCode, log } = await runKit({ baseUrl, apiKey: 'fake-main-key' });
 */
export async function runKit(options: Omit<ContractOptions, 'log'>): Promise<ContractRun & { log: string[] }> {
  const log: string[] = [];
  const run = await runContract({
    propertyRuns: 6,
    // Pinned, so that a test pinning what a broken server fails is repeatable; a run without --seed draws a fresh one.
    seed: 424242,
    timeoutSeconds: 5,
    maxWaitSeconds: 0,
    ...options,
    log: (line) => log.push(line),
  });
  return { ...run, log };
}

/** The result of one check, or a thrown error naming the ids there are (a typo in a test fails loudly). */
export function resultOf(run: ContractRun, id: string): CheckResult {
  const result = run.report.results.find((candidate) => candidate.id === id);
  if (!result)
    throw new Error(
      `Failed to find check ${id}; the run has: ${run.report.results.map((candidate) => candidate.id).join(', ')}`,
    );
  return result;
}

/** Ids of the checks with a given status. */
export function idsWith(run: ContractRun, status: CheckStatus): string[] {
  return run.report.results.filter((result) => result.status === status).map((result) => result.id);
}

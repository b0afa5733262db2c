import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Reporter, TestSpecification } from 'vitest/node';
import { BaseSequencer } from 'vitest/node';
import type { ContractSuiteInput } from '../lib/contract-target.js';

/**
 * Where the suite lives: `contract-tests/suite` next to this runner, or, when the runner is
 * bundled into `dist/bin/`, the package's `contract-tests/suite` (vitest runs the suite's
 * TypeScript files itself, so they ship as source).
 */
export const defaultSuiteDir =
  [new URL('../suite/', import.meta.url), new URL('../../contract-tests/suite/', import.meta.url)].map((url) => fileURLToPath(url)).find((dir) => existsSync(join(dir, 'global-setup.ts'))) ??
  fileURLToPath(new URL('../suite/', import.meta.url));

/**
 * Runs the check files in file-name order (`01-authentication` ... `99-every-response`): the last
 * file judges every exchange of the run, so it must come last, whatever vitest's cache remembers.
 */
export class FileNameSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return [...files].sort((a, b) => a.moduleId.localeCompare(b.moduleId));
  }
}

/**
 * The suite's own vitest configuration (it never reads the project's vitest.config.ts):
 * one worker thread with `isolate: false`, so every check file shares the run's HTTP client, its
 * rate budgets and its record of exchanges; files in order; no test timeout, because every
 * request has --timeout and every wait is bounded by --max-wait.
 *
 * @example const vitest = await createVitest('test', suiteVitestConfig({ input, reporter: collector }));
 */
export function suiteVitestConfig(options: { input: ContractSuiteInput; reporter: Reporter; suiteDir?: string }) {
  const suiteDir = options.suiteDir ?? defaultSuiteDir;
  if (!existsSync(suiteDir)) throw new Error(`Failed to find the contract suite: ${suiteDir} does not exist`);
  return {
    watch: false,
    config: false as const,
    root: suiteDir,
    dir: suiteDir,
    include: ['**/*.contract.ts'],
    globalSetup: [join(suiteDir, 'global-setup.ts')],
    provide: { contractSuiteInput: options.input },
    reporters: [options.reporter],
    pool: 'threads' as const,
    isolate: false,
    fileParallelism: false,
    maxWorkers: 1,
    maxConcurrency: options.input.concurrency,
    sequence: { sequencer: FileNameSequencer, shuffle: false, concurrent: false },
    testTimeout: 0,
    hookTimeout: 60_000,
    passWithNoTests: false,
    printConsoleTrace: false,
    // Nothing else from the environment: the suite's behaviour is the same in CI and on a laptop.
    env: {},
  };
}

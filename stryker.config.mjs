// @ts-check
/**
 * `npm run mutation`: mutation testing of the contract kit. Stryker mutates the reference Petstore
 * server (test/contract-kit/reference/), never the kit, and runs the kit against each mutant
 * (test/contract-kit/mutation/, vitest.mutation.config.ts): a mutant is killed when the kit stops
 * saying CONFORMS. Survivors and their reasons: test/contract-kit/surviving-mutants.md.
 *
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'vitest.mutation.config.ts' },
  // The vitest runner always measures coverage per test: a mutant runs only the kit runs that reach it.
  coverageAnalysis: 'perTest',
  mutate: [
    'test/contract-kit/reference/**/*.ts',
    // Test harness, not the server: the clock the test moves and the runs it starts.
    '!test/contract-kit/reference/virtual-clock.ts',
    '!test/contract-kit/reference/reference-runs.ts',
    // Test support too: the open-choice variants wrap the reference for open-choices.test.ts; the
    // mutation run serves the reference alone, so their mutants would never be run.
    '!test/contract-kit/reference/open-choice-petstore.ts',
  ],
  // The sandbox needs the kit, the spec and the tests; not the mock, the docs or earlier reports.
  ignorePatterns: ['dist', 'reports', 'coverage', 'test-output', 'bench/results', 'mocks/example', '.ci'],
  reporters: ['html', 'json', 'clear-text', 'progress'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  concurrency: 2,
  // A run of the kit takes one to three seconds; a mutant that hangs the server is cut by the kit's
  // own 2 s request timeout well before this. Generous, so that a busy machine never turns a
  // survivor into a "timeout" (which would count as killed).
  timeoutMS: 60_000,
  timeoutFactor: 3,
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};

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
  ],
  // The sandbox needs the kit, the spec and the tests; not the mock, the docs or earlier reports.
  ignorePatterns: ['dist', 'reports', 'coverage', 'test-output', 'bench/results', 'mocks/example', '.ci'],
  reporters: ['html', 'json', 'clear-text', 'progress'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  concurrency: 2,
  // A run of the kit takes about a second; a mutant that hangs the server is cut by the kit's own
  // 2 s request timeout well before this.
  timeoutMS: 30_000,
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};

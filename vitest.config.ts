import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// One project per kind of test, so each can be run alone (`vitest run --project unit`).
export default defineConfig({
  test: {
    // Most files wait on servers, child processes, Redis and a browser rather than compute, so one
    // more file than vitest's default (cores - 1) runs: on a 2-core CI machine that default is a
    // single file at a time (leg 1 took 512 s so; 3 at a time, 315 s).
    maxWorkers: Math.max(3, availableParallelism() - 1),
    projects: [
      {
        test: {
          name: 'unit',
          include: [
            'src/**/*.test.ts',
            'mocks/**/*.test.ts',
            'spec/**/*.test.ts',
            'contract-tests/**/*.test.ts',
            'test/architecture/**/*.test.ts',
          ],
          exclude: ['**/node_modules/**', 'contract-tests/suite/**'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          testTimeout: 30_000,
        },
      },
      {
        test: {
          // The judging proxy in front of our mock, the kit's broken servers and scripted clients.
          name: 'proxy',
          include: ['test/proxy/**/*.test.ts'],
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'contract-kit',
          include: ['test/contract-kit/**/*.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'hardening',
          include: ['test/hardening/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          // The state stores against a real redis-server that each file starts on a free port.
          name: 'store',
          include: ['test/store/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          // npm pack + npm install into an empty project: the package as a user gets it.
          name: 'package',
          include: ['test/package/**/*.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 300_000,
        },
      },
      {
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // The dashboard polls the mock once a second: vitest's default 1 s window can close before
          // the next poll lands on a busy machine (a CI leg failed so, the gauge one poll behind).
          expect: { poll: { timeout: 10_000 } },
        },
      },
    ],
  },
});

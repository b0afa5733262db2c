import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { CheckStatus } from '../../contract-tests/report/report-model.js';
import { type RunningMockServer, startMockServer } from '../../src/server/start-server.js';
import { fakeKeys, startFakePetstore } from './support/fake-petstore.js';
import { startMswBridge } from './support/msw-bridge.js';
import { runKit } from './support/run-kit.js';

/**
 * One suite, every target: the same contract suite against our node:http mock, the MSW handlers
 * (through MSW's `getResponse`, support/msw-bridge.ts) and the independent reference fake, each
 * pinned in an expectation file (expectations/<target>.json, with the reason for anything that
 * is not PASS). Prism's mock is prism-mock.test.ts, the broken servers broken-servers.test.ts.
 * UPDATE_CONTRACT_EXPECTATIONS=1 rewrites the files from a run (review the diff).
 */
interface Expectations {
  description: string;
  checks: Record<string, { status: CheckStatus; why: string }>;
}

const targets: {
  name: string;
  description: string;
  start: () => Promise<{ baseUrl: string; apiKey: string; rateLimitKey: string; close: () => Promise<void> }>;
}[] = [
  {
    name: 'own-mock',
    description:
      'Our node:http mock (src/server) with its default config, keys demo-pro and demo-free: it conforms; only the Prism cross-check is skipped (no --via-prism).',
    start: async () => {
      const mock: RunningMockServer = await startMockServer({ port: 0, seed: 1 });
      return { baseUrl: mock.baseUrl, apiKey: 'demo-pro', rateLimitKey: 'demo-free', close: () => mock.close(1_000) };
    },
  },
  {
    name: 'msw',
    description:
      "The MSW handlers (mocks/handlers.ts) answered through MSW's getResponse behind a small node:http bridge: the same core as the mock, so the same verdicts.",
    start: async () => {
      const bridge = await startMswBridge({ seed: 1 });
      return { baseUrl: bridge.baseUrl, apiKey: 'demo-pro', rateLimitKey: 'demo-free', close: () => bridge.close() };
    },
  },
  {
    name: 'reference-fake',
    description:
      'The independent reference implementation of the interface used by the broken-server proofs (support/fake-petstore.ts), without faults.',
    start: async () => {
      const fake = await startFakePetstore();
      return {
        baseUrl: fake.baseUrl,
        apiKey: fakeKeys.main,
        rateLimitKey: fakeKeys.limited,
        close: () => fake.close(),
      };
    },
  },
];

describe('one suite, every target', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  for (const target of targets) {
    it(`${target.name}: passes and skips exactly what expectations/${target.name}.json pins`, async () => {
      const started = await target.start();
      close = started.close;
      const run = await runKit({
        baseUrl: started.baseUrl,
        apiKey: started.apiKey,
        rateLimitKey: started.rateLimitKey,
      });
      const path = fileURLToPath(new URL(`./expectations/${target.name}.json`, import.meta.url));
      const actual = Object.fromEntries(run.report.results.map((result) => [result.id, result.status]));
      if (process.env.UPDATE_CONTRACT_EXPECTATIONS === '1') {
        const previous = await readFile(path, 'utf8')
          .then((text) => JSON.parse(text) as Expectations)
          .catch(() => undefined);
        const checks = Object.fromEntries(
          run.report.results.map((result) => [
            result.id,
            {
              status: result.status,
              why: previous?.checks[result.id]?.why ?? (result.status === 'PASS' ? '' : (result.message ?? '')),
            },
          ]),
        );
        await writeFile(path, `${JSON.stringify({ description: target.description, checks }, null, 2)}\n`);
      }
      const expectations = JSON.parse(await readFile(path, 'utf8')) as Expectations;
      expect(actual).toEqual(
        Object.fromEntries(Object.entries(expectations.checks).map(([id, entry]) => [id, entry.status])),
      );
      expect(run.exitCode).toBe(0);
    });
  }
});

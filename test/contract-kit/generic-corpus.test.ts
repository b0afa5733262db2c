import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CheckResult } from '../../contract-tests/report/report-model.js';
import { startMockServer } from '../../src/server/start-server.js';
import { corpusMockConfig, sampledOperations } from '../support/kit-corpus.js';
import { isLargeRealSpec, realSpecs } from '../support/real-specs.js';
import { runKit } from './support/run-kit.js';

/**
 * The generic layer against the corpus of public documents (test/fixtures/specs): our mock starts
 * on every one, and the kit's generic layer (`petstore-contract --spec FILE`) finds no failure.
 * Prism's mock of two of them: generic-corpus-prism.test.ts.
 */
const corpusDirectory = fileURLToPath(new URL('../fixtures/specs/', import.meta.url));
const corpus = JSON.parse(readFileSync(`${corpusDirectory}sources.json`, 'utf8')) as {
  name: string;
  file: string;
  operations: number;
}[];

/**
 * Requests per document, to keep the whole file near half a minute on two cores: three invalid
 * requests per operation by default; the two large documents (generating their data is most of
 * the cost) get one, on every sixth operation (discord: every twentieth), in document order.
 */
const budgets: Record<string, { invalidCases: number; everyNth: number }> = {
  discord: { invalidCases: 1, everyNth: 20 },
  overseerr: { invalidCases: 1, everyNth: 6 },
};
const defaultBudget = { invalidCases: 3, everyNth: 1 };

const quiet = { info() {}, debug() {}, warn() {}, error() {} };

/**
 * The large documents of ../shared/real-specs (over 1 MB, or a tree of files; issue 42), read in
 * place where present, on a sample of their operations: one invalid request on every Nth, N chosen
 * so that each checks about 25 operations. `npm run corpus:kit-all` runs every document whole.
 */
const realSample: Record<string, number> = {
  'swagger2_slack-web.json': 7,
  'v3.0_box.json': 11,
  'v3.0_digitalocean.yaml': 21,
  'v3.1_lichess.yaml': 6,
  'v3.1_mastodon.json': 8,
  'v3.1_openai.yaml': 10,
};
const realCorpus = realSpecs()
  .filter(isLargeRealSpec)
  .map((spec) => ({ name: spec.name, file: spec.file, everyNth: realSample[spec.name.split('/')[1] ?? ''] ?? 10 }));

function failures(results: readonly CheckResult[]): string[] {
  return results
    .filter(
      (result) => result.status === 'FAIL' || (result.status === 'SKIP' && result.message?.startsWith('no evidence')),
    )
    .map((result) => `${result.id}: ${result.message}`);
}

describe.each(corpus)('the generic layer on $name, against our mock', ({ name, file, operations }) => {
  it('starts, and the generic layer finds no failure', async () => {
    const specPath = `${corpusDirectory}${file}`;
    const budget = budgets[name] ?? defaultBudget;
    const mock = await startMockServer({ port: 0, seed: 1, specPath, config: corpusMockConfig, logger: quiet });
    try {
      const chosen = await sampledOperations(specPath, budget.everyNth);
      const run = await runKit({
        baseUrl: mock.baseUrl,
        apiKey: 'demo-enterprise',
        specPath,
        allowDestructive: true,
        invalidCases: budget.invalidCases,
        ...(chosen === undefined ? {} : { operations: chosen }),
      });
      expect(failures(run.report.results)).toEqual([]);
      expect(run.report.summary.FAIL).toBe(0);
      expect(run.exitCode).toBe(0);
      // Every operation chosen got its valid-request check; none of the Petstore rule checks ran.
      const validRequests = run.report.results.filter((result) => result.id.startsWith('generic.valid-request:'));
      expect(validRequests).toHaveLength(chosen?.length ?? operations);
      expect(run.report.results.every((result) => result.id.startsWith('generic.'))).toBe(true);
    } finally {
      await mock.close();
    }
  });
});

describe.each(realCorpus)(
  'the generic layer on the large real document $name, against our mock',
  ({ file, everyNth }) => {
    it('starts, and the generic layer finds no failure on a sample of its operations', async () => {
      const mock = await startMockServer({ port: 0, seed: 1, specPath: file, config: corpusMockConfig, logger: quiet });
      try {
        const chosen = await sampledOperations(file, everyNth);
        const run = await runKit({
          baseUrl: mock.baseUrl,
          apiKey: 'demo-enterprise',
          specPath: file,
          allowDestructive: true,
          invalidCases: 1,
          ...(chosen === undefined ? {} : { operations: chosen }),
        });
        expect(failures(run.report.results)).toEqual([]);
        expect(run.exitCode).toBe(0);
        const validRequests = run.report.results.filter((result) => result.id.startsWith('generic.valid-request:'));
        expect(validRequests).toHaveLength(chosen?.length ?? 0);
      } finally {
        await mock.close();
      }
    });
  },
);

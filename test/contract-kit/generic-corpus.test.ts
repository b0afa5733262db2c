import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CheckResult } from '../../contract-tests/report/report-model.js';
import { compileSpecDefinition } from '../../spec/compile-spec.js';
import { readSpecFile } from '../../spec/load-spec.js';
import { startMockServer } from '../../src/server/start-server.js';
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

/** Keys and limits of a mock that a whole run may use: its own session, no anonymous budget to run out of. */
const corpusConfig = { anonymous: { perMinute: 1_000_000, perDay: 100_000_000 } };
const quiet = { info() {}, debug() {}, warn() {}, error() {} };

async function operationsOf(file: string, everyNth: number): Promise<string[] | undefined> {
  if (everyNth === 1) return undefined;
  const definition = compileSpecDefinition(await readSpecFile(file));
  return definition.operations
    .filter((_operation, index) => index % everyNth === 0)
    .map((operation) => operation.operationId);
}

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
    const mock = await startMockServer({ port: 0, seed: 1, specPath, config: corpusConfig, logger: quiet });
    try {
      const chosen = await operationsOf(specPath, budget.everyNth);
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

import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckStatus } from '../../contract-tests/report/report-model.js';
import { type RunningPrism, startPrism } from '../../contract-tests/runner/prism-process.js';
import { runKit } from './support/run-kit.js';

/**
 * The generic layer against Prism's mock of two corpus documents (`prism mock FILE`), a second
 * server the layer must judge by the document alone. Where Prism answers otherwise, the check is
 * pinned in expectations/generic-prism.json with the reason
 * (UPDATE_CONTRACT_EXPECTATIONS=1 npx vitest run --project contract-kit generic-corpus-prism).
 */
const corpusDirectory = fileURLToPath(new URL('../fixtures/specs/', import.meta.url));
const corpus = JSON.parse(readFileSync(`${corpusDirectory}sources.json`, 'utf8')) as { name: string; file: string }[];

interface PrismExpectations {
  description: string;
  /** `prism`: the first Prism version the entry applies to (Prism's answers move between minors). */
  documents: Record<string, Record<string, { status: CheckStatus; why: string; prism?: string }>>;
}

/** The installed Prism's major.minor as a number pair, to compare with an entry's `prism`. */
const installedPrism = (
  JSON.parse(readFileSync(fileURLToPath(import.meta.resolve('@stoplight/prism-cli/package.json')), 'utf8')) as {
    version: string;
  }
).version;
const minorOf = (version: string) => version.split('.').slice(0, 2).map(Number) as [number, number];
const appliesTo = (since: string | undefined) => {
  if (since === undefined) return true;
  const [major, minor] = minorOf(installedPrism);
  const [sinceMajor, sinceMinor] = minorOf(since);
  return major > sinceMajor || (major === sinceMajor && minor >= sinceMinor);
};

const prismExpectationsPath = fileURLToPath(new URL('./expectations/generic-prism.json', import.meta.url));
/** OpenAPI's own 3.0 example, and a 3.1 document with every security scheme. */
const prismDocuments = ['oai-petstore', 'scalar-galaxy'];

describe.each(prismDocuments)("the generic layer on %s, against Prism's mock", (name) => {
  const entry = corpus.find((candidate) => candidate.name === name)!;
  const specPath = `${corpusDirectory}${entry.file}`;
  let prism: RunningPrism;
  beforeAll(async () => {
    prism = await startPrism({ mode: 'mock', specPath });
  });
  afterAll(async () => {
    await prism?.stop();
  });

  it('passes every check but those pinned in expectations/generic-prism.json', async () => {
    // Prism serves the paths without the servers' prefix, and takes any credentials of the right form.
    const run = await runKit({
      baseUrl: prism.url,
      apiKey: 'any-token',
      specPath,
      allowDestructive: true,
      invalidCases: 3,
    });
    const expectations = JSON.parse(await readFile(prismExpectationsPath, 'utf8')) as PrismExpectations;
    const pinned = Object.fromEntries(
      Object.entries(expectations.documents[name] ?? {}).filter(([, entry]) => appliesTo(entry.prism)),
    );
    const actual = Object.fromEntries(
      run.report.results.filter((result) => result.status !== 'PASS').map((result) => [result.id, result.status]),
    );
    if (process.env.UPDATE_CONTRACT_EXPECTATIONS === '1') {
      expectations.documents[name] = Object.fromEntries(
        run.report.results
          .filter((result) => result.status !== 'PASS')
          .map((result) => [result.id, { status: result.status, why: pinned[result.id]?.why ?? result.message ?? '' }]),
      );
      await writeFile(prismExpectationsPath, `${JSON.stringify(expectations, null, 2)}\n`);
    }
    expect(actual).toEqual(Object.fromEntries(Object.entries(pinned).map(([id, value]) => [id, value.status])));
    expect(run.report.results.length).toBeGreaterThan(0);
  });
});

#!/usr/bin/env node
/**
 * `npm run corpus:kit-all`: for every document of ../shared/real-specs (set1, set2, read in place),
 * starts our mock on it (`--spec FILE`, port 0, in this process) and runs the contract kit's generic
 * layer against it (`petstore-contract --spec FILE --base-url ...`, in-process like
 * test/contract-kit/generic-corpus.test.ts), and prints per document: start time, checks passed /
 * failed / skipped / info / warn, wall time, verdict; then every failed check. Exits 1 when a document
 * does not start or a check fails. `npm test` samples the large ones (generic-corpus.test.ts).
 */
import { performance } from 'node:perf_hooks';
import type { CheckResult } from '../contract-tests/report/report-model.js';
import { startMockServer } from '../src/server/start-server.js';
import { runKit } from '../test/contract-kit/support/run-kit.js';
import { corpusMockConfig, sampledOperations } from '../test/support/kit-corpus.js';
import { isLargeRealSpec, realSpecs, realSpecsFolder } from '../test/support/real-specs.js';
import { integerOption, optionsOrExit, parseBenchArgs } from './lib/options.js';

const help = `npm run corpus:kit-all -- [options]

Starts our mock on every document of ../shared/real-specs (set1, set2), in this process on port 0,
runs the contract kit's generic layer against it (as petstore-contract --spec FILE --base-url URL
--allow-destructive would), and prints per document the start time, the checks passed, failed,
skipped, info and warn, the wall time of the run and the verdict; then every failed check with its
message. Exits 1 when a document does not start or a check fails.

Options:
  --only TEXT          Only the documents whose name contains TEXT
  --invalid-cases N    Invalid requests per operation (default 3)
  --every-nth N        Only every Nth operation of each document (default 1: all of them)
  --evidence           Under each failed check, the requests and answers it saw
  --help               Show this help
`;

const options = optionsOrExit(
  { script: 'corpus:kit-all', helpCommand: 'npm run corpus:kit-all -- --help', help },
  () => {
    const values = parseBenchArgs(process.argv.slice(2), {
      only: { type: 'string' },
      'invalid-cases': { type: 'string' },
      'every-nth': { type: 'string' },
      evidence: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) return 'help';
    return {
      only: values.only,
      invalidCases: integerOption(values['invalid-cases'], '--invalid-cases', 3, 0, 50),
      everyNth: integerOption(values['every-nth'], '--every-nth', 1, 1, 1000),
      evidence: values.evidence === true,
    };
  },
);

const quiet = { info() {}, debug() {}, warn() {}, error() {} };
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

interface DocumentFigures {
  line: string;
  failed: CheckResult[];
  ok: boolean;
}

/** One document: the mock started, the generic layer run, the row of figures. */
async function runDocument(name: string, file: string): Promise<DocumentFigures> {
  const label = name.padEnd(36);
  const started = performance.now();
  let mock: Awaited<ReturnType<typeof startMockServer>>;
  try {
    mock = await startMockServer({ port: 0, seed: 1, specPath: file, config: corpusMockConfig, logger: quiet });
  } catch (error) {
    return { line: `${label} NOT STARTED: ${(error as Error).message.split('\n')[0]}`, failed: [], ok: false };
  }
  const startMs = performance.now() - started;
  try {
    const chosen = await sampledOperations(file, options.everyNth);
    const runStarted = performance.now();
    const run = await runKit({
      baseUrl: mock.baseUrl,
      apiKey: 'demo-enterprise',
      specPath: file,
      allowDestructive: true,
      invalidCases: options.invalidCases,
      ...(chosen === undefined ? {} : { operations: chosen }),
    });
    const wallMs = performance.now() - runStarted;
    const { PASS, FAIL, SKIP, INFO, WARN } = run.report.summary;
    const counts = [PASS, FAIL, SKIP, INFO, WARN].map((count) => String(count).padStart(5)).join('');
    const verdict = FAIL === 0 && run.exitCode === 0 ? 'PASS' : `FAIL (exit ${run.exitCode})`;
    return {
      line: `${label} ${seconds(startMs).padStart(7)}${counts} ${seconds(wallMs).padStart(8)}  ${verdict}`,
      failed: run.report.results.filter((result) => result.status === 'FAIL'),
      ok: FAIL === 0 && run.exitCode === 0,
    };
  } catch (error) {
    return { line: `${label} KIT ERROR: ${(error as Error).message.split('\n')[0]}`, failed: [], ok: false };
  } finally {
    await mock.close();
  }
}

const documents = realSpecs().filter((spec) => options.only === undefined || spec.name.includes(options.only));
if (documents.length === 0) {
  process.stdout.write(`No documents in ${realSpecsFolder} (it is read in place: ../shared/real-specs)\n`);
  process.exit(options.only === undefined ? 0 : 2);
}
process.stdout.write(
  `The kit's generic layer against our mock on ../shared/real-specs: node ${process.version}, ${options.invalidCases} invalid cases per operation, every ${options.everyNth === 1 ? '' : `${options.everyNth}th `}operation\n`,
);
process.stdout.write(
  `${'document'.padEnd(36)} ${'start'.padStart(7)}${['pass', 'fail', 'skip', 'info', 'warn'].map((h) => h.padStart(5)).join('')} ${'wall'.padStart(8)}  verdict\n`,
);
const failures: string[] = [];
let bad = 0;
for (const spec of documents) {
  const name = `${spec.name}${isLargeRealSpec(spec) ? ' *' : ''}`;
  const figures = await runDocument(name, spec.file);
  process.stdout.write(`${figures.line}\n`);
  if (!figures.ok) bad += 1;
  for (const result of figures.failed) {
    failures.push(`${spec.name} ${result.id}: ${result.message ?? ''}`);
    if (options.evidence)
      failures.push(...result.evidence.map((item) => `    ${JSON.stringify(item).slice(0, 1_500)}`));
  }
}
process.stdout.write(
  `\n${bad === 0 ? 'ALL PASS' : `${bad} NOT PASSING`}: ${documents.length - bad} of ${documents.length} documents (* over 1 MB or a tree of files)\n`,
);
if (failures.length > 0) process.stdout.write(`\nFailed checks:\n${failures.map((line) => `- ${line}`).join('\n')}\n`);
process.exitCode = bad === 0 ? 0 : 1;

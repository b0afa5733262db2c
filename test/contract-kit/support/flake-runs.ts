/**
 * Runs the contract kit many times in a row against a correct server and counts the verdicts:
 * the proof behind "never a flaky verdict" (test/contract-kit/never-flaky.test.ts runs 20 of
 * them in `npm test`).
 *
 *   npx tsx test/contract-kit/support/flake-runs.ts [--runs 200] [--target reference|mock]
 *
 * `reference`: the reference server on a virtual clock that follows real time, each run starting
 * in the last second of a minute (every 16th in the last second of a UTC day), so every run
 * measures across a window reset. `mock`: our own mock server on the real clock, one run after
 * the other (its windows start at a key's first request, so runs fall anywhere in them).
 * Prints one line per run that is not CONFORMS, how many measurements were taken again because
 * a window began mid-way, and the count of CONFORMS.
 */
import { parseArgs } from 'node:util';
import { startMockServer } from '../../../src/server/start-server.js';
import { runAgainstReference } from '../reference/reference-runs.js';
import { runKit } from './run-kit.js';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '200' }, target: { type: 'string', default: 'reference' } },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1 || (values.target !== 'reference' && values.target !== 'mock')) {
  process.stderr.write('flake-runs: --runs must be a positive integer and --target reference or mock\n');
  process.exit(2);
}

let conforms = 0;
let retaken = 0;
const started = performance.now();
for (let index = 0; index < runs; index += 1) {
  const { report } =
    values.target === 'reference'
      ? (
          await runAgainstReference(
            { name: `run ${index + 1}`, startsAt: startOf(index), options: {} },
            { followRealTime: true },
          )
        ).run
      : await onOwnMock();
  if (report.verdict === 'CONFORMS') conforms += 1;
  else
    process.stdout.write(
      `run ${index + 1}: ${report.verdict}: ${report.results
        .filter((result) => result.status === 'FAIL' || result.inconclusive)
        .map((result) => `${result.id}: ${result.message}`)
        .join('; ')}\n`,
    );
  retaken += report.results.filter((result) => result.message?.includes('measured again') === true).length;
}
process.stdout.write(
  `${conforms} of ${runs} runs CONFORMS against the ${values.target === 'reference' ? 'reference server (each run starting in the last second of a minute)' : 'mock server (real clock)'}; ${retaken} measurements taken again because a window began mid-way; ${Math.round((performance.now() - started) / 1000)} s\n`,
);
process.exitCode = conforms === runs ? 0 : 1;

/** 59.000 s, 59.005 s, ... of successive minutes; every 16th run at the end of a UTC day. */
function startOf(index: number): string {
  const base = Date.parse('2026-03-02T00:00:59.000Z') + index * 60_000 + (index % 200) * 5;
  return new Date(
    index % 16 === 0 ? Date.parse('2026-03-02T23:59:59.000Z') + index * 86_400_000 + (index % 200) * 5 : base,
  ).toISOString();
}

async function onOwnMock() {
  const mock = await startMockServer({ port: 0, seed: 1 });
  try {
    return await runKit({ baseUrl: mock.baseUrl, apiKey: 'demo-pro', rateLimitKey: 'demo-free' });
  } finally {
    await mock.close(1_000);
  }
}

/**
 * Runs the contract kit many times in a row against correct servers and counts the verdicts: the
 * soak behind "never a flaky verdict" (test/contract-kit/never-flaky.test.ts runs 20 of them in
 * `npm test`).
 *
 *   npm run kit:soak -- [--runs 200] [--target reference|mock|open-choices] [--seed fresh|N] [--thorough]
 *     [--exhaust-main-key]
 *
 * `reference`: the reference server on a virtual clock that follows real time, each run starting
 * in the last second of a minute (every 16th in the last second of a UTC day), so every run
 * measures across a window reset; waiting costs no real time. `mock`: our own mock server on the
 * real clock, one run after the other. `open-choices`: the reference making the interface's open
 * choices differently (reference/open-choice-petstore.ts), cycling through its variants.
 * `--seed fresh` (the default) draws a new seed per run, so that the runs explore other picks
 * within each class; `--seed N` repeats one run's picks. Each run uses the profile's own settings
 * (the default run as a user gets it, or `--thorough`, which `--exhaust-main-key` lets spend the
 * main key's minute), not the quick ones of the tests' runKit. Prints, per run that is not CONFORMS, its seed, target and each FAIL (or inconclusive SKIP) with
 * its first evidence line, then the count of CONFORMS and the time per run.
 */
import { parseArgs } from 'node:util';
import { profileDefaults, runSeed } from '../../../contract-tests/lib/run-profile.js';
import { describeEvidence } from '../../../contract-tests/report/human-report.js';
import type { ContractReport } from '../../../contract-tests/report/report-model.js';
import type { ContractOptions } from '../../../contract-tests/runner/contract-options.js';
import { startMockServer } from '../../../src/server/start-server.js';
import { openChoiceServers } from '../reference/open-choice-petstore.js';
import { runAgainstReference } from '../reference/reference-runs.js';
import { runKit } from './run-kit.js';

const targets = ['reference', 'mock', 'open-choices'] as const;
type Target = (typeof targets)[number];

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '200' },
    target: { type: 'string', default: 'reference' },
    seed: { type: 'string', default: 'fresh' },
    thorough: { type: 'boolean', default: false },
    'exhaust-main-key': { type: 'boolean', default: false },
  },
});
const runs = Number(values.runs);
const target = targets.find((name) => name === values.target);
const givenSeed = values.seed === 'fresh' ? undefined : Number(values.seed);
if (
  !Number.isInteger(runs) ||
  runs < 1 ||
  target === undefined ||
  (givenSeed !== undefined && !Number.isInteger(givenSeed))
) {
  process.stderr.write(
    'flake-runs: --runs must be a positive integer, --target reference, mock or open-choices, --seed fresh or an integer\n',
  );
  process.exit(2);
}

let conforms = 0;
const started = performance.now();
for (let index = 0; index < runs; index += 1) {
  const seed = runSeed(givenSeed);
  const options: Partial<ContractOptions> = {
    ...profileDefaults(values.thorough),
    thorough: values.thorough,
    exhaustMainKey: values['exhaust-main-key'],
    seed,
  };
  const { report, where } = await runOnce(target, index, options);
  if (report.verdict === 'CONFORMS') conforms += 1;
  else process.stdout.write(notConforming(index, seed, where, report));
}
const seconds = (performance.now() - started) / 1000;
process.stdout.write(
  `${conforms} of ${runs} ${values.thorough ? 'thorough' : 'default'} runs CONFORMS against ${describeTarget(target)}; ${Math.round(seconds)} s (${(seconds / runs).toFixed(1)} s per run)\n`,
);
process.exitCode = conforms === runs ? 0 : 1;

/** One run of the kit against a fresh server of the target, and which server it was. */
async function runOnce(
  on: Target,
  index: number,
  options: Partial<ContractOptions>,
): Promise<{ report: ContractReport; where: string }> {
  if (on === 'mock') return { report: (await onOwnMock(options)).report, where: 'mock' };
  const variant = on === 'open-choices' ? openChoiceServers[index % openChoiceServers.length] : undefined;
  const startsAt = startOf(index);
  const { run } = await runAgainstReference(
    { name: `run ${index + 1}`, startsAt, options },
    { followRealTime: true, ...(variant === undefined ? {} : { choices: variant.choices }) },
  );
  const server = variant === undefined ? 'reference' : `reference that ${variant.name}`;
  return { report: run.report, where: `${server}, starting at ${startsAt} on its virtual clock` };
}

/** The lines of a run that is not CONFORMS: what repeats it, then each FAIL or inconclusive SKIP with its first evidence. */
function notConforming(index: number, seed: number, where: string, report: ContractReport): string {
  const failures = report.results
    .filter((result) => result.status === 'FAIL' || result.inconclusive === true)
    .map((result) => {
      const first = result.evidence[0];
      return `  ${result.status} ${result.id}: ${result.message ?? ''}${first === undefined ? '' : `\n    ${describeEvidence(first)}`}\n`;
    });
  return `run ${index + 1}: ${report.verdict}, seed ${seed} (--seed ${seed} repeats it), ${where}\n${failures.join('')}`;
}

function describeTarget(on: Target): string {
  if (on === 'mock') return 'the mock server (real clock)';
  const servers =
    on === 'reference' ? 'the reference server' : `${openChoiceServers.length} open-choice variants of the reference`;
  return `${servers} (each run starting in the last second of a minute)`;
}

/** 59.000 s, 59.005 s, ... of successive minutes; every 16th run at the end of a UTC day. */
function startOf(index: number): string {
  const base = Date.parse('2026-03-02T00:00:59.000Z') + index * 60_000 + (index % 200) * 5;
  return new Date(
    index % 16 === 0 ? Date.parse('2026-03-02T23:59:59.000Z') + index * 86_400_000 + (index % 200) * 5 : base,
  ).toISOString();
}

async function onOwnMock(options: Partial<ContractOptions>) {
  const mock = await startMockServer({ port: 0, seed: 1 });
  try {
    return await runKit({ baseUrl: mock.baseUrl, apiKey: 'demo-pro', rateLimitKey: 'demo-free', ...options });
  } finally {
    await mock.close(1_000);
  }
}

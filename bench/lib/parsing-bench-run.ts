/**
 * The body of `bench/parsing-bench.ts` (bundled, then run with plain node): each worst-case input of
 * test/hardening/support/parsing-cases.ts at its size limit, timed from its text to its answer. The
 * best of `--runs` runs counts (a run is one parse; the text is built once, untimed). Prints a line
 * per case and exits 1 when any is over the 1 s target or answers wrongly (a 5xx, a crash).
 */

import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { readSpecFile } from '../../spec/load-spec.js';
import { parsingCases } from '../../test/hardening/support/parsing-cases.js';

const targetMs = 1_000;
const usage = `npm run bench:parsing -- [--runs N] [--only TEXT] [--spec FILE]

Times each input the mock parses in its worst shape at its size limit (target: under 1 s each).
  --runs N      Runs per case; the best is kept (default 3)
  --only TEXT   Only the cases whose name contains TEXT
  --spec FILE   The spec the request-body cases use (default: the shipped Petstore spec)
`;
let values: { runs?: string; only?: string; spec?: string; help?: boolean };
try {
  ({ values } = parseArgs({
    options: {
      runs: { type: 'string' },
      only: { type: 'string' },
      spec: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  }));
} catch (error) {
  process.stderr.write(`parsing-bench: ${(error as Error).message}; npm run bench:parsing -- --help for the options\n`);
  process.exit(2);
}
if (values.help) {
  process.stdout.write(usage);
  process.exit(0);
}
const runs = Number(values.runs ?? 3);
if (!Number.isSafeInteger(runs) || runs < 1) {
  process.stderr.write('parsing-bench: --runs must be a positive whole number\n');
  process.exit(2);
}

const spec = await readSpecFile(values.spec);
const { cases, dispose } = await parsingCases(spec);
const selected = cases.filter((entry) => values.only === undefined || entry.name.includes(values.only));
const size = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(0)} KiB`;
process.stdout.write(
  `parsing-bench: ${selected.length} worst cases at their size limits, best of ${runs} runs each (target < ${targetMs} ms of wall time)\n`,
);
// The CPU time (every thread of the process: the collector's too) tells the cost apart from a busy machine.
process.stdout.write(
  `load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores\n  wall    cpu      size  outcome          case\n`,
);
const failures: string[] = [];
let slowest = { name: '', ms: 0 };
try {
  for (const entry of selected) {
    const text = entry.make();
    let best = Number.POSITIVE_INFINITY;
    let bestCpu = Number.POSITIVE_INFINITY;
    let last = { outcome: '' } as { outcome: string; problem?: string };
    for (let run = 0; run < runs; run += 1) {
      const started = performance.now();
      const cpuBefore = process.cpuUsage();
      last = await entry.run(text);
      best = Math.min(best, performance.now() - started);
      const cpu = process.cpuUsage(cpuBefore);
      bestCpu = Math.min(bestCpu, (cpu.user + cpu.system) / 1000);
    }
    if (best > slowest.ms) slowest = { name: entry.name, ms: best };
    const verdict = last.problem !== undefined ? `WRONG: ${last.problem}` : best >= targetMs ? 'OVER TARGET' : 'ok';
    if (verdict !== 'ok') failures.push(`${entry.name}: ${verdict}`);
    process.stdout.write(
      `${best.toFixed(0).padStart(6)} ms ${bestCpu.toFixed(0).padStart(6)} ms  ${size(text.length).padStart(8)}  ${last.outcome.padEnd(16)} ${entry.name}${verdict === 'ok' ? '' : `  ${verdict}`}\n`,
    );
  }
} finally {
  await dispose();
}
process.stdout.write(`slowest: ${slowest.name}, ${slowest.ms.toFixed(0)} ms (target < ${targetMs} ms)\n`);
if (failures.length > 0) {
  process.stdout.write(`${failures.length} case(s) failed:\n${failures.map((line) => `  ${line}`).join('\n')}\n`);
  process.exitCode = 1;
}

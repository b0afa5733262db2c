#!/usr/bin/env node
/**
 * `npm run bench`: load tests our mock, a bare node:http server answering the same bytes (the
 * ceiling) and Prism (the peer) side by side, with autocannon in a separate process, on 127.0.0.1.
 * Every (case, connections) starts a fresh process of each target, warms each up, then measures
 * them in alternating slices while /proc is sampled for their RSS; a ratio is the median of the
 * ratios of slices run back to back. See docs/decisions/004-performance.md and 015-hot-path.md.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchCases, benchConfigYaml, type CaseId, caseIds } from './lib/cases.js';
import { type ManagedProcess, stopAllProcesses, stopProcessesOnSignals } from './lib/child-processes.js';
import { planCpuPinning } from './lib/cpu-pinning.js';
import { type FirstResponseResult, measureFirstResponse } from './lib/first-response.js';
import { findFreePort } from './lib/http-probe.js';
import { runLoad } from './lib/load-generator.js';
import { integerOption, listOption, mockLaunchOption, parseBenchArgs, UsageError } from './lib/options.js';
import { canSampleRss, readCpuSeconds, sampleRss } from './lib/process-stats.js';
import {
  checkTargets,
  computeRatios,
  formatTable,
  type Measurement,
  measurementRows,
  ratioRows,
  summarizeSlices,
} from './lib/report.js';
import {
  captureMockResponses,
  detectMockLaunch,
  type LaunchContext,
  type MockLaunch,
  prepareCase,
  startTarget,
  type TargetId,
  targetIds,
  targets,
} from './lib/targets.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const help = `npm run bench -- [options]

Load-tests the mock, a bare node:http server (the ceiling) and Prism (the peer), side by side.
Each case: a fresh process of every target, a warm-up of each, then measured slices of autocannon
(a separate process) that alternate between the targets (A B, B A, A B, ...). A ratio (mock/bare)
is the median of the ratios of slices run back to back, so the drift of a shared machine, which
moves both alike, cancels; the table shows each target's median slice.

Options:
  --duration S         Seconds per measured slice (default 4)
  --slices N           Measured slices per target and case (default 5)
  --warmup S           Seconds of warm-up load of each target before its slices (default 2)
  --quick              Short runs for a smoke test (1 slice of 1 s, 1 s warm-up, one start-up sample)
  --targets LIST       Any of mock,bare,prism,prism-info,prism-silent ("prism" = both Prism modes;
                       default: all)
  --cases LIST         Any of get,post,401,429 (default: all)
  --connections LIST   Connection counts (default 10,100)
  --rounds N           Repeat every case N times with fresh processes; the slices of all rounds
                       count (default 1)
  --mock dist|src      Run the mock from the built package or from source via tsx
                       (default: dist when dist/bin/petstore-mock.js exists)
  --pin auto|off       auto (default): the servers on the first half of the CPUs this process may
                       use, autocannon on the rest (taskset), so neither takes the other's CPU and
                       a server's figures do not depend on where the kernel placed it; off: anywhere
  --skip-startup       Do not measure the first response after process start
  --json FILE          Write every figure to FILE
  --help               Show this help
`;

interface BenchOptions {
  durationSeconds: number;
  slices: number;
  warmupSeconds: number;
  targets: TargetId[];
  cases: CaseId[];
  connections: number[];
  rounds: number;
  mockLaunch: MockLaunch;
  startupAttempts: number;
  pin: 'auto' | 'off';
  jsonFile?: string;
}

function pinOption(text: string | undefined): 'auto' | 'off' {
  if (text === undefined || text === 'auto' || text === 'off') return text ?? 'auto';
  throw new UsageError(`--pin must be auto or off, got "${text}"`);
}

function parseOptions(argv: string[]): BenchOptions | 'help' {
  const values = parseBenchArgs(argv, {
    duration: { type: 'string' },
    slices: { type: 'string' },
    warmup: { type: 'string' },
    quick: { type: 'boolean' },
    targets: { type: 'string' },
    cases: { type: 'string' },
    connections: { type: 'string' },
    rounds: { type: 'string' },
    mock: { type: 'string' },
    'skip-startup': { type: 'boolean' },
    pin: { type: 'string' },
    json: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return 'help';
  const quick = values.quick === true;
  const mock = mockLaunchOption(values.mock, detectMockLaunch(root));
  const connections = (values.connections ?? '10,100')
    .split(',')
    .map((part) => integerOption(part.trim(), '--connections', 0, 1, 10_000));
  return {
    durationSeconds: integerOption(values.duration, '--duration', quick ? 1 : 4, 1, 600),
    slices: integerOption(values.slices, '--slices', quick ? 1 : 5, 1, 100),
    warmupSeconds: integerOption(values.warmup, '--warmup', quick ? 1 : 2, 0, 60),
    targets: listOption<TargetId>(values.targets, '--targets', targetIds, targetIds, {
      prism: ['prism-info', 'prism-silent'],
    }),
    cases: listOption<CaseId>(values.cases, '--cases', caseIds, caseIds),
    connections,
    rounds: integerOption(values.rounds, '--rounds', 1, 1, 20),
    mockLaunch: mock,
    startupAttempts: values['skip-startup'] ? 0 : quick ? 1 : 3,
    pin: pinOption(values.pin),
    jsonFile: values.json,
  };
}

/**
 * One case at one connection count on every target: a fresh process of each, prepared and warmed
 * up, then `slices` measured runs of each, alternating A B, B A, A B, ... so each pair of slices
 * compared runs back to back and a drift in time weighs on both alike.
 */
async function measureCase(
  options: BenchOptions,
  context: LaunchContext,
  caseId: CaseId,
  connections: number,
  round: number,
): Promise<Measurement[]> {
  const benchCase = benchCases[caseId];
  const started: {
    row: Measurement;
    server?: ManagedProcess;
    port?: number;
    sampler?: ReturnType<typeof sampleRss>;
  }[] = options.targets.map((target) => ({ row: { target, caseId, connections, slices: [] } }));
  try {
    for (const entry of started) {
      try {
        const port = await findFreePort();
        entry.server = await startTarget(targets[entry.row.target], port, caseId, context);
        await prepareCase(port, entry.row.target, caseId);
        entry.port = port;
        entry.sampler = sampleRss(entry.server.pid);
        if (options.warmupSeconds > 0)
          await runLoad({
            port,
            request: benchCase.request(targets[entry.row.target].dialect),
            connections,
            durationSeconds: options.warmupSeconds,
            cpus: context.loadCpus,
          });
      } catch (error) {
        entry.row.error = (error as Error).message;
      }
    }
    for (let slice = 0; slice < options.slices; slice += 1) {
      const order = slice % 2 === 0 ? started : [...started].reverse();
      for (const entry of order) {
        if (entry.row.error !== undefined || entry.server === undefined || entry.port === undefined) continue;
        try {
          const cpuBefore = readCpuSeconds(entry.server.pid);
          const load = await runLoad({
            port: entry.port,
            request: benchCase.request(targets[entry.row.target].dialect),
            connections,
            durationSeconds: options.durationSeconds,
            cpus: context.loadCpus,
          });
          const cpuSeconds = readCpuSeconds(entry.server.pid) - cpuBefore;
          entry.row.slices!.push({
            round,
            slice,
            load,
            cpuSeconds,
            cpuMicrosPerRequest:
              load.totalRequests > 0 && cpuSeconds > 0 ? (cpuSeconds * 1e6) / load.totalRequests : undefined,
          });
        } catch (error) {
          entry.row.error = (error as Error).message;
        }
      }
    }
  } finally {
    for (const entry of started) {
      if (entry.sampler) entry.row.rss = entry.sampler.stop();
      await entry.server?.stop();
    }
  }
  return started.map((entry) => entry.row);
}

function describeRow(row: Measurement): string {
  const name = `${targets[row.target].label}, ${benchCases[row.caseId].label}, ${row.connections} conns`;
  if (row.error !== undefined || !row.slices || row.slices.length === 0)
    return `  ${name}: FAILED: ${row.error ?? 'no slice measured'}`;
  const rss =
    row.rss && row.rss.peakRssBytes > 0 ? `, peak ${(row.rss.peakRssBytes / 1024 / 1024).toFixed(0)} MiB` : '';
  const slices = row.slices.map(
    (slice) =>
      `${Math.round(slice.load.requestsPerSecond).toLocaleString('en-US')}${slice.cpuMicrosPerRequest === undefined ? '' : ` (${slice.cpuMicrosPerRequest.toFixed(1)} us)`}`,
  );
  return `  ${name}: req/s (CPU per request) by slice: ${slices.join(', ')}${rss}`;
}

async function main(): Promise<number> {
  let options: BenchOptions | 'help';
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`bench: ${error.message}\nRun npm run bench -- --help for the options.\n`);
      return 2;
    }
    throw error;
  }
  if (options === 'help') {
    process.stdout.write(help);
    return 0;
  }
  stopProcessesOnSignals();

  const workDir = mkdtempSync(join(tmpdir(), 'petstore-bench-'));
  process.on('exit', () => rmSync(workDir, { recursive: true, force: true }));
  const configFile = join(workDir, 'bench-config.yaml');
  writeFileSync(configFile, benchConfigYaml);
  const { pinning, why: pinned } = planCpuPinning(options.pin);
  const context: LaunchContext = {
    root,
    configFile,
    mockLaunch: options.mockLaunch,
    ...(pinning ? { serverCpus: pinning.servers, loadCpus: pinning.load } : {}),
  };
  const loadBefore = loadavg();
  const rows = options.targets.length * options.cases.length * options.connections.length * options.rounds;
  const estimateMinutes = (rows * (options.slices * (options.durationSeconds + 0.5) + options.warmupSeconds + 2)) / 60;

  process.stdout.write(
    `petstore-kit bench: node ${process.version}, ${cpus().length} CPU(s), ${pinned}, load average ${loadBefore.map((value) => value.toFixed(2)).join(' ')}\n`,
  );
  process.stdout.write(
    `Mock started from ${options.mockLaunch === 'dist' ? 'the built package (node dist/bin/petstore-mock.js)' : 'source (node --import tsx src/cli/mock-cli.ts; run npm run build first to bench the package)'}\n`,
  );
  process.stdout.write(
    `${rows} rows of ${options.slices} slice(s) of ${options.durationSeconds} s after ${options.warmupSeconds} s of warm-up, connections ${options.connections.join(' and ')}: about ${estimateMinutes.toFixed(1)} min\n`,
  );
  if (!canSampleRss()) process.stdout.write('No /proc on this system: the RSS column stays empty.\n');

  const measurements: Measurement[] = [];
  const firstResponse: Partial<Record<TargetId, FirstResponseResult>> = {};
  try {
    if (options.targets.includes('bare') && options.targets.includes('mock')) {
      try {
        const responsesFile = join(workDir, 'bare-responses.json');
        writeFileSync(responsesFile, JSON.stringify(await captureMockResponses(context, caseIds)));
        context.responsesFile = responsesFile;
        process.stdout.write('Bare server: serving the responses just captured from the mock.\n');
      } catch (error) {
        process.stdout.write(
          `Bare server: serving its built-in copies (failed to capture the mock's responses: ${(error as Error).message.split('\n')[0]})\n`,
        );
      }
    }

    if (options.startupAttempts > 0) {
      process.stdout.write(
        `\nFirst response after process start (GET categories -> 200, polled every 5 ms, median of ${options.startupAttempts}):\n`,
      );
      for (const target of options.targets) {
        try {
          const result = await measureFirstResponse(targets[target], context, options.startupAttempts);
          firstResponse[target] = result;
          process.stdout.write(
            `  ${targets[target].label.padEnd(20)} ${result.medianMs.toFixed(0).padStart(5)} ms   (${result.attemptsMs.map((ms) => ms.toFixed(0)).join(', ')})\n`,
          );
        } catch (error) {
          process.stdout.write(`  ${targets[target].label.padEnd(20)} FAILED: ${(error as Error).message}\n`);
        }
      }
    }

    process.stdout.write('\nLoad:\n');
    for (let round = 1; round <= options.rounds; round += 1) {
      if (options.rounds > 1) process.stdout.write(`Round ${round} of ${options.rounds}:\n`);
      for (const caseId of options.cases) {
        for (const connections of options.connections) {
          for (const row of await measureCase(options, context, caseId, connections, round)) {
            process.stdout.write(`${describeRow(row)}\n`);
            // The slices of every round count; a row that failed once is reported failed.
            const kept = measurements.find(
              (entry) => entry.target === row.target && entry.caseId === caseId && entry.connections === connections,
            );
            if (kept === undefined) measurements.push(row);
            else {
              kept.slices!.push(...row.slices!);
              kept.error ??= row.error;
              if (row.rss && (!kept.rss || row.rss.peakRssBytes > kept.rss.peakRssBytes)) kept.rss = row.rss;
            }
          }
        }
      }
    }
    for (const row of measurements) summarizeSlices(row, benchCases[row.caseId].expectedStatus);
  } finally {
    await stopAllProcesses();
  }

  const ratios = computeRatios(measurements, options.cases, options.connections);
  const checks = checkTargets(measurements, ratios, firstResponse);
  const loadAfter = loadavg();
  const table = measurementRows(measurements);
  const ratioTable = ratioRows(ratios);
  const kept = ` (each row: the median of its ${options.slices * options.rounds} slice(s); ratios: the median of the ratios of slices run back to back, lowest and highest in brackets)`;
  process.stdout.write(
    `\n${formatTable(table.header, table.rows)}${kept}\n\n${formatTable(ratioTable.header, ratioTable.rows)}\n\nTargets (issues 6 and 11):\n`,
  );
  for (const check of checks) {
    process.stdout.write(
      `  ${check.met === undefined ? 'n/a ' : check.met ? 'MET ' : 'MISS'}  ${check.name}: ${check.measured} (goal ${check.goal})\n`,
    );
  }
  process.stdout.write(
    `\nLoad average before ${loadBefore.map((value) => value.toFixed(2)).join(' ')}, after ${loadAfter.map((value) => value.toFixed(2)).join(' ')}: on a shared ${cpus().length}-CPU machine the load generator, the server and other work compete, so treat differences under ~10% as noise.\n`,
  );

  if (options.jsonFile) {
    const report = {
      date: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      loadAverageBefore: loadBefore,
      loadAverageAfter: loadAfter,
      mockLaunch: options.mockLaunch,
      durationSeconds: options.durationSeconds,
      warmupSeconds: options.warmupSeconds,
      rounds: options.rounds,
      slices: options.slices,
      pinning: pinned,
      benchConfig: benchConfigYaml,
      bareResponses: context.responsesFile ? 'captured from the mock' : 'built-in',
      firstResponse,
      measurements,
      ratios,
      checks,
    };
    try {
      writeFileSync(options.jsonFile, `${JSON.stringify(report, null, 2)}\n`);
      process.stdout.write(`Figures written to ${options.jsonFile}\n`);
    } catch (error) {
      process.stderr.write(`bench: Failed to write ${options.jsonFile}: ${(error as Error).message}\n`);
      return 1;
    }
  }
  const failed = measurements.filter((row) => !row.load || row.error !== undefined);
  if (failed.length > 0) {
    process.stderr.write(`bench: ${failed.length} run(s) failed; see the rows marked FAILED above.\n`);
    return 1;
  }
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  async (error: unknown) => {
    await stopAllProcesses();
    process.stderr.write(`bench: ${(error as Error).message}\n`);
    process.exitCode = 1;
  },
);

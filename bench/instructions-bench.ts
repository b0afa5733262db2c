#!/usr/bin/env node
/**
 * `npm run bench:instructions`: the CPU work per request of the mock and of the bare node:http
 * server, counted in instructions by valgrind's callgrind rather than timed. A count does not
 * move with the machine: another tenant of a shared VM, a busy second core or a CPU that changes
 * speed change every timed figure of `npm run bench` by up to 2 x here, and leave this one alone
 * (the same build gives the same count to within about 1 %). CodSpeed and rustc's perf suite
 * measure the same way for the same reason. See docs/decisions/015-hot-path.md.
 *
 * Each target runs under callgrind with V8's optimizing compiler on the main thread
 * (`--no-concurrent-recompilation`), and the instructions spent compiling are taken out of the
 * count: under callgrind V8 keeps optimizing long after the warm-up (a run 50 times slower tiers up
 * over far more requests), while a timed server is done in its first second. What is left is the
 * steady state, of every thread: the main one and the garbage collector's helpers (parallel
 * scavenging, concurrent marking and sweeping), which `npm run bench`'s CPU time counts too and
 * which a mock that keeps more per request keeps busier; in user space only (the kernel's share,
 * about the same for both servers, is not counted, so the ratio errs high).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchCases, benchConfigYaml, type CaseId, caseIds } from './lib/cases.js';
import { type ManagedProcess, startProcess, stopAllProcesses, stopProcessesOnSignals } from './lib/child-processes.js';
import { findFreePort, probe, waitForAnswer } from './lib/http-probe.js';
import { runLoad } from './lib/load-generator.js';
import { integerOption, listOption, mockLaunchOption, parseBenchArgs, UsageError } from './lib/options.js';
import { coreTargets } from './lib/report.js';
import {
  bundleMockBin,
  captureMockResponses,
  detectMockLaunch,
  type LaunchContext,
  type MockLaunch,
  prepareCase,
  targets,
} from './lib/targets.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const help = `npm run bench:instructions -- [options]

Counts the instructions per request of the mock and of the bare node:http server (valgrind's
callgrind, user space, every thread, V8's optimizing compiler left out) for each bench case, after
a warm-up, and checks the mock against its CPU targets (per request, within 1.3 x bare on GET,
401 and 429, 1.5 x on POST; docs/decisions/015-hot-path.md). Needs
valgrind (Debian: apt-get install valgrind). About a minute and a half per case (both servers are
counted at the same time).

Options:
  --cases LIST       Any of get,post,401,429 (default: all)
  --warmup N         Requests before counting, to let V8 optimize; at its half the mock's
                     virtual clock moves on a minute, so the count is past a window rollover
                     (default 40000: after 20000, POST's count still caught V8 compiling)
  --requests N       Requests counted (default 3000); a window in which V8's optimizing compilers
                     took over 2 % of the instructions is counted again, 3 windows at most
  --connections N    autocannon connections (default 10)
  --mock dist|src    Count the built package's bin, or a bundle of it made from the source now
                     (default: dist when dist/bin/petstore-mock.js exists)
  --if-available     Without valgrind, say so and exit 0 (how npm run bench calls it)
  --json FILE        Write the figures to FILE
  --help             Show this help
`;

interface Options {
  cases: CaseId[];
  warmup: number;
  requests: number;
  connections: number;
  mockLaunch: MockLaunch;
  ifAvailable: boolean;
  jsonFile?: string;
}

function parseOptions(argv: string[]): Options | 'help' {
  const values = parseBenchArgs(argv, {
    cases: { type: 'string' },
    warmup: { type: 'string' },
    requests: { type: 'string' },
    connections: { type: 'string' },
    mock: { type: 'string' },
    'if-available': { type: 'boolean' },
    json: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return 'help';
  const cases = listOption<CaseId>(values.cases, '--cases', caseIds, caseIds);
  const mock = mockLaunchOption(values.mock, detectMockLaunch(root));
  return {
    cases,
    // 20,000 was too few for POST: three counts of one commit in three caught V8 still optimizing
    // (1.97-2.09 x, each a storm of compiles inside the count); after 40,000, 1.41 x.
    warmup: integerOption(values.warmup, '--warmup', 40_000, 0, 1_000_000),
    requests: integerOption(values.requests, '--requests', 3_000, 100, 1_000_000),
    connections: integerOption(values.connections, '--connections', 10, 1, 1_000),
    mockLaunch: mock,
    ifAvailable: values['if-available'] === true,
    ...(values.json === undefined ? {} : { jsonFile: values.json }),
  };
}

/** Whether `command --version` runs. */
function available(command: string): boolean {
  const result = spawnSync(command, ['--version'], { stdio: 'ignore' });
  return result.error === undefined && result.status === 0;
}

function callgrindControl(pid: number, action: '--zero' | '--dump'): void {
  const result = spawnSync('callgrind_control', [action, String(pid)], { encoding: 'utf8', timeout: 60_000 });
  if (result.error !== undefined || result.status !== 0)
    throw new Error(
      `Failed to run callgrind_control ${action} ${pid}: ${result.error?.message ?? result.stderr.trim().split('\n').at(-1)}`,
    );
}

/**
 * The instructions of one dump, every thread summed, how many of them ran on threads other than the
 * main one (the garbage collector's helpers), and how many V8's optimizing compilers took
 * (`Compiler::CompileOptimized`, inclusive, as callgrind_annotate sums it, on the main thread where
 * `--no-concurrent-recompilation` keeps it: TurboFan's and, on Node 22 and later, Maglev's; the
 * runtime functions that call it differ between V8 versions): callgrind writes
 * `<file>.<dump>-<thread>` per thread with `--separate-threads=yes`; thread 01 is the main one.
 */
function processInstructions(
  directory: string,
  prefix: string,
  dump: number,
): { total: number; helpers: number; compiling: number } {
  const files = readdirSync(directory).filter(
    (name) => name.startsWith(`${prefix}.`) && name.match(/\.(\d+)-\d+$/)?.[1] === String(dump),
  );
  const main = files.find((name) => name.endsWith(`.${dump}-01`));
  if (main === undefined) throw new Error(`Failed to find callgrind's dump for ${prefix} in ${directory}`);
  let total = 0;
  let helpers = 0;
  for (const file of files) {
    const totals = /^totals: (\d+)/m.exec(readFileSync(join(directory, file), 'utf8'));
    if (totals === null) throw new Error(`Failed to read the totals of ${file}`);
    total += Number(totals[1]);
    if (file !== main) helpers += Number(totals[1]);
  }
  const annotated = spawnSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', join(directory, main)], {
    encoding: 'utf8',
    timeout: 120_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (annotated.error !== undefined || annotated.status !== 0)
    throw new Error(
      `Failed to run callgrind_annotate on ${main}: ${annotated.error?.message ?? annotated.stderr.trim().split('\n').at(-1)}`,
    );
  const compiling = /^\s*([\d,]+) \([\s\d.]+%\)\s+\S*v8::internal::Compiler::CompileOptimized\(/m.exec(
    annotated.stdout,
  );
  return { total, helpers, compiling: compiling === null ? 0 : Number(compiling[1]!.replace(/,/g, '')) };
}

/**
 * Both servers' young generation at the size a server under load grows it to (16 MB a semi-space,
 * V8's largest by default on 64-bit Node 20). Left to V8, it starts at 1 MB and doubles each time
 * as many bytes have survived scavenges as it holds: a server that keeps more per request grows it
 * sooner, and a count taken after a warm-up of 20,000 requests falls wherever each server is in that
 * growth, each scavenge paying a fixed cost (a walk of V8's startup object cache) that a larger
 * young generation pays less often. The count is of the steady state, so it starts there.
 */
const steadyYoungGeneration = ['--min-semi-space-size=16', '--max-semi-space-size=16'];

/** Moves the mock's virtual clock (default session) forward, as `POST /__mock/clock` does for any client. */
async function advanceVirtualClock(port: number, seconds: number): Promise<void> {
  const response = await probe(
    port,
    {
      method: 'POST',
      path: '/__mock/clock',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ advanceSeconds: seconds }),
    },
    60_000,
  );
  if (response.status !== 200)
    throw new Error(`Failed to advance the mock's clock: answered ${response.status}: ${response.body.slice(0, 160)}`);
}

interface Count {
  target: 'mock' | 'bare';
  /** Per request counted, the optimizing compiler's share left out. */
  instructionsPerRequest?: number;
  /** Per request counted, what the optimizing compiler took (left out of the figure above). */
  compilingPerRequest?: number;
  /** Per request counted, the part of `instructionsPerRequest` run by threads other than the main one (the garbage collector's helpers). */
  helperThreadsPerRequest?: number;
  statusCounts?: Record<string, number>;
  /** How many windows were counted (the last one is reported; the ones before caught V8 compiling). */
  counts?: number;
  /** Seconds from the start under valgrind to the first answer. */
  readySeconds?: number;
  /** Why a first count failed, when this one is the second (`countTargetOnceMore`). */
  failedFirst?: string;
  error?: string;
}

/**
 * How long a server under valgrind may take to answer at all: 10 to 40 s on a quiet machine, past
 * 180 s on a CI machine running the test suite beside it (load 13 on 2 cores).
 */
const readyTimeoutMs = 600_000;

/** A window in which V8's optimizing compilers took more than this share of the instructions is counted again. */
const maxCompilingShare = 0.02;
/** Windows counted at most per target and case. */
const maxCounts = 3;

async function countTarget(
  target: 'mock' | 'bare',
  caseId: CaseId,
  options: Options,
  context: LaunchContext,
  workDir: string,
): Promise<Count> {
  const prefix = `${target}-${caseId}`;
  const port = await findFreePort();
  const { command, args } = targets[target].command(port, caseId, context);
  let server: ManagedProcess | undefined;
  try {
    server = startProcess(
      'valgrind',
      [
        '--tool=callgrind',
        '--separate-threads=yes',
        `--callgrind-out-file=${join(workDir, `${prefix}.%p`)}`,
        command,
        '--no-concurrent-recompilation',
        ...steadyYoungGeneration,
        ...args,
      ],
      `${targets[target].label} under callgrind`,
      { cwd: root },
    );
    const alive = () => server!.child.exitCode === null && server!.child.signalCode === null;
    const startedAtMs = Date.now();
    await waitForAnswer(
      port,
      { method: 'GET', path: '/bench-ready', headers: {} },
      { intervalMs: 200, timeoutMs: readyTimeoutMs, isAlive: alive },
    );
    const readySeconds = Math.round((Date.now() - startedAtMs) / 1000);
    await prepareCase(port, target, caseId, 60_000);
    const request = benchCases[caseId].request('mock');
    // Under callgrind a request takes about 50 times as long: the bounds are generous.
    const bound = { requestTimeoutSeconds: 120, durationSeconds: 1_800 };
    if (options.warmup > 0) {
      // Once a minute every client's window rolls over; the first roll runs code paths V8 has no
      // feedback for, and the functions holding them fall back to unoptimized code for a few thousand
      // requests. Timed, that is a blip in the first minute; under callgrind (50 times slower) it lands
      // wherever the first real minute ends, in the warm-up or in the count. So the warm-up passes a
      // rollover at its half, on the mock's virtual clock, and the count sees the steady state.
      const firstHalf = Math.ceil(options.warmup / 2);
      await runLoad({ port, request, connections: options.connections, amount: firstHalf, ...bound });
      if (target === 'mock') await advanceVirtualClock(port, 61);
      if (options.warmup > firstHalf)
        await runLoad({
          port,
          request,
          connections: options.connections,
          amount: options.warmup - firstHalf,
          ...bound,
        });
    }
    // A count that caught V8 still optimizing is not of the steady state: the functions waiting for
    // their optimized code run slower meanwhile, which taking the compiler's own share out does not
    // undo (a 429 count of 1.91 x with 72,835 instructions a request compiling; 1.2 x in the window
    // after). Such a count is made again on the next window, up to `maxCounts` in all.
    for (let dump = 1; ; dump += 1) {
      callgrindControl(server.pid, '--zero');
      const load = await runLoad({
        port,
        request,
        connections: options.connections,
        amount: options.requests,
        ...bound,
      });
      callgrindControl(server.pid, '--dump');
      const answered = Object.values(load.statusCounts).reduce((sum, count) => sum + count, 0);
      if (answered !== options.requests || load.errors > 0)
        throw new Error(`answered ${answered} of ${options.requests} requests (${load.errors} errors)`);
      const expected = String(benchCases[caseId].expectedStatus);
      if ((load.statusCounts[expected] ?? 0) !== answered)
        throw new Error(`expected every answer to be ${expected}, got ${JSON.stringify(load.statusCounts)}`);
      const { total, helpers, compiling } = processInstructions(workDir, prefix, dump);
      if (compiling > total * maxCompilingShare && dump < maxCounts) continue;
      return {
        target,
        instructionsPerRequest: (total - compiling) / options.requests,
        compilingPerRequest: compiling / options.requests,
        helperThreadsPerRequest: helpers / options.requests,
        statusCounts: load.statusCounts,
        counts: dump,
        readySeconds,
      };
    }
  } catch (error) {
    return {
      target,
      error: `${(error as Error).message}${server?.stderrTail() ? ` (${server.stderrTail().split('\n').at(-1)})` : ''}`,
    };
  } finally {
    await server?.stop(10_000);
  }
}

/**
 * A count that failed (the server under valgrind died, callgrind_control did not answer, a request
 * went unanswered) is made once more from a fresh server, in a folder of its own so the first
 * attempt's dumps are not summed in; the figure says that it was, and why.
 */
async function countTargetOnceMore(
  target: 'mock' | 'bare',
  caseId: CaseId,
  options: Options,
  context: LaunchContext,
  workDir: string,
): Promise<Count> {
  const first = await countTarget(target, caseId, options, context, workDir);
  if (first.error === undefined) return first;
  const againDir = join(workDir, `${target}-${caseId}-again`);
  mkdirSync(againDir);
  const again = await countTarget(target, caseId, options, context, againDir);
  return again.error === undefined
    ? { ...again, failedFirst: first.error }
    : { ...again, error: `${again.error}; the first count: ${first.error}` };
}

async function main(): Promise<number> {
  let options: Options | 'help';
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(
        `bench:instructions: ${error.message}\nRun npm run bench:instructions -- --help for the options.\n`,
      );
      return 2;
    }
    throw error;
  }
  if (options === 'help') {
    process.stdout.write(help);
    return 0;
  }
  if (!available('valgrind') || !available('callgrind_control')) {
    process.stdout.write(
      'bench:instructions: valgrind is not installed, so instructions are not counted (Debian: apt-get install valgrind)\n',
    );
    return options.ifAvailable ? 0 : 2;
  }
  stopProcessesOnSignals();
  const workDir = mkdtempSync(join(tmpdir(), 'petstore-instructions-'));
  process.on('exit', () => rmSync(workDir, { recursive: true, force: true }));
  const configFile = join(workDir, 'bench-config.yaml');
  writeFileSync(configFile, benchConfigYaml);
  const context: LaunchContext = { root, configFile, mockLaunch: options.mockLaunch };
  // From the source, the bin is bundled as the package ships it (tsx's loader would be counted too).
  if (options.mockLaunch === 'src') context.mockBin = await bundleMockBin(root, mkdtempSync(join(workDir, 'bin-')));
  process.stdout.write(
    `petstore-kit instructions: node ${process.version}, mock from ${context.mockLaunch === 'dist' ? 'dist/' : 'the source, bundled as npm run build does'}; ${options.warmup} requests of warm-up, ${options.requests} counted, ${options.connections} connections\n`,
  );

  const rows: { caseId: CaseId; mock: Count; bare: Count; ratio?: number }[] = [];
  try {
    const responsesFile = join(workDir, 'bare-responses.json');
    writeFileSync(responsesFile, JSON.stringify(await captureMockResponses(context, options.cases)));
    context.responsesFile = responsesFile;
    for (const caseId of options.cases) {
      // Both at once: a count does not depend on what else runs, and it halves the wait.
      const [mock, bare] = await Promise.all([
        countTargetOnceMore('mock', caseId, options, context, workDir),
        countTargetOnceMore('bare', caseId, options, context, workDir),
      ]);
      const ratio =
        mock.instructionsPerRequest !== undefined && bare.instructionsPerRequest !== undefined
          ? mock.instructionsPerRequest / bare.instructionsPerRequest
          : undefined;
      rows.push({ caseId, mock, bare, ...(ratio === undefined ? {} : { ratio }) });
      const figure = (count: Count) =>
        count.instructionsPerRequest === undefined
          ? `FAILED (${count.error})`
          : `${Math.round(count.instructionsPerRequest).toLocaleString('en-US')} (${Math.round(count.helperThreadsPerRequest ?? 0).toLocaleString('en-US')} on helper threads; +${Math.round(count.compilingPerRequest ?? 0).toLocaleString('en-US')} compiling${(count.counts ?? 1) > 1 ? `; window ${count.counts}, those before caught V8 compiling` : ''}${count.failedFirst === undefined ? '' : `; counted again, the first count failed: ${count.failedFirst}`})`;
      process.stdout.write(
        `  ${benchCases[caseId].label.padEnd(9)} mock ${figure(mock)}, bare ${figure(bare)} instructions per request${ratio === undefined ? '' : `: ${ratio.toFixed(2)} x`}\n`,
      );
    }
  } finally {
    await stopAllProcesses();
  }

  process.stdout.write('\nTargets:\n');
  for (const row of rows) {
    const goal = coreTargets[row.caseId].cpu;
    const met = row.ratio === undefined ? undefined : row.ratio <= goal;
    process.stdout.write(
      `  ${met === undefined ? 'n/a ' : met ? 'MET ' : 'MISS'}  Instructions per request, ${benchCases[row.caseId].label}: ${row.ratio === undefined ? 'not measured' : `${row.ratio.toFixed(2)} x`} (goal <= ${goal} x bare)\n`,
    );
  }
  if (options.jsonFile) {
    try {
      writeFileSync(
        options.jsonFile,
        `${JSON.stringify({ date: new Date().toISOString(), node: process.version, warmup: options.warmup, requests: options.requests, connections: options.connections, rows }, null, 2)}\n`,
      );
    } catch (error) {
      process.stderr.write(`bench:instructions: Failed to write ${options.jsonFile}: ${(error as Error).message}\n`);
      return 1;
    }
  }
  return rows.some((row) => row.ratio === undefined) ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  async (error: unknown) => {
    await stopAllProcesses();
    process.stderr.write(`bench:instructions: ${(error as Error).message}\n`);
    process.exitCode = 1;
  },
);

import { createRequire } from 'node:module';
import { startProcess } from './child-processes.js';
import { onCpus } from './cpu-pinning.js';
import type { ProbeRequest } from './http-probe.js';

/** The figures of one autocannon run that the bench reports. */
export interface LoadResult {
  /** Mean of autocannon's per-second samples ("Req/Sec Avg"). */
  requestsPerSecond: number;
  totalRequests: number;
  /** Latency percentiles in milliseconds (autocannon records whole milliseconds). */
  latencyP50: number;
  latencyP99: number;
  latencyMean: number;
  /** Responses by HTTP status, e.g. `{ '200': 123456 }`. */
  statusCounts: Record<string, number>;
  /** Socket errors and timeouts; a healthy run has none. */
  errors: number;
  timeouts: number;
  durationSeconds: number;
}

export interface LoadOptions {
  port: number;
  request: ProbeRequest;
  connections: number;
  durationSeconds: number;
  /** Send exactly this many requests instead of loading for `durationSeconds` (which then only bounds the run). */
  amount?: number;
  /** Per-request timeout of autocannon, seconds. Default 10. */
  requestTimeoutSeconds?: number;
  /** taskset's CPU list autocannon runs on (`planCpuPinning`); anywhere when undefined. */
  cpus?: string;
}

const require = createRequire(import.meta.url);

/** Path of autocannon's CLI script, run with this Node (no shell, no npx). */
function autocannonCli(): string {
  return require.resolve('autocannon/autocannon.js');
}

/**
 * Runs autocannon as a separate process (so the load generator never shares an event loop with a
 * server) against 127.0.0.1 and parses its `--json` output. Bounded: the process is killed when it
 * runs 30 s past its duration.
 *
 * @example
 * const result = await runLoad({ port, request: { method: 'GET', path: '/v1/categories', headers: {} }, connections: 10, durationSeconds: 10 });
 * result.requestsPerSecond; // 41234.5
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const { request } = options;
  const args = [
    autocannonCli(),
    '--json',
    '--connections',
    String(options.connections),
    '--timeout',
    String(options.requestTimeoutSeconds ?? 10),
    '--method',
    request.method,
  ];
  args.push(
    ...(options.amount === undefined
      ? ['--duration', String(options.durationSeconds)]
      : ['--amount', String(options.amount)]),
  );
  for (const [name, value] of Object.entries(request.headers)) args.push('--headers', `${name}=${value}`);
  if (request.body !== undefined) args.push('--body', request.body);
  args.push(`http://127.0.0.1:${options.port}${request.path}`);

  const launch = onCpus(process.execPath, args, options.cpus);
  const generator = startProcess(launch.command, launch.args, 'autocannon', { stdout: 'pipe' });
  let stdout = '';
  generator.child.stdout?.setEncoding('utf8');
  generator.child.stdout?.on('data', (chunk: string) => {
    stdout += chunk;
  });
  const limitMs = (options.durationSeconds + 30) * 1000;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void generator.stop(500);
  }, limitMs);
  try {
    await generator.exited();
  } finally {
    clearTimeout(timer);
    await generator.stop(500);
  }
  const code = generator.child.exitCode;
  if (code !== 0) {
    const why = timedOut
      ? `still running ${limitMs / 1000} s after its start, stopped`
      : code === null
        ? `killed by ${generator.child.signalCode ?? 'a signal'}`
        : `exit code ${code}`;
    throw new Error(
      `Failed to run autocannon: ${why}${generator.stderrTail() ? `: ${generator.stderrTail().split('\n').slice(-3).join(' ')}` : ''}`,
    );
  }
  return parseAutocannonJson(stdout);
}

/** Reads the figures out of autocannon's `--json` output (one JSON object on the last line). */
export function parseAutocannonJson(stdout: string): LoadResult {
  const line = stdout.trim().split('\n').at(-1) ?? '';
  let raw: AutocannonJson;
  try {
    raw = JSON.parse(line) as AutocannonJson;
  } catch (error) {
    throw new Error(`Failed to parse the autocannon output: ${(error as Error).message} (got "${line.slice(0, 120)}")`);
  }
  const statusCounts: Record<string, number> = {};
  for (const [status, stats] of Object.entries(raw.statusCodeStats ?? {})) statusCounts[status] = stats.count;
  const figures: LoadResult = {
    requestsPerSecond: raw.requests?.average ?? Number.NaN,
    totalRequests: raw.requests?.total ?? Number.NaN,
    latencyP50: raw.latency?.p50 ?? Number.NaN,
    latencyP99: raw.latency?.p99 ?? Number.NaN,
    latencyMean: raw.latency?.mean ?? Number.NaN,
    statusCounts,
    errors: raw.errors ?? 0,
    timeouts: raw.timeouts ?? 0,
    durationSeconds: raw.duration ?? Number.NaN,
  };
  for (const [name, value] of Object.entries(figures)) {
    if (typeof value === 'number' && !Number.isFinite(value))
      throw new Error(`Failed to parse the autocannon output: ${name} is missing`);
  }
  return figures;
}

/** The part of autocannon's JSON result the bench reads. */
interface AutocannonJson {
  duration?: number;
  errors?: number;
  timeouts?: number;
  statusCodeStats?: Record<string, { count: number }>;
  requests?: { average: number; total: number };
  latency?: { p50: number; p99: number; mean: number };
}

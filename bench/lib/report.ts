import { benchCases, type CaseId, caseIds } from './cases.js';
import type { FirstResponseResult } from './first-response.js';
import type { LoadResult } from './load-generator.js';
import type { RssSample } from './process-stats.js';
import { type TargetId, targets } from './targets.js';

/** One measured slice of a row: one autocannon run against a server already warm. */
export interface Slice {
  round: number;
  /** Position in its round: slice i of the mock and slice i of bare ran back to back. */
  slice: number;
  load: LoadResult;
  /** CPU seconds the server (with its descendants) used during the slice. */
  cpuSeconds: number;
  cpuMicrosPerRequest?: number | undefined;
}

/** One measured row: a target, a case and a connection count. */
export interface Measurement {
  target: TargetId;
  caseId: CaseId;
  connections: number;
  /** Set when the row could not be measured (the server did not start, autocannon failed, ...). */
  error?: string | undefined;
  /** Every measured slice, in the order they ran. */
  slices?: Slice[];
  /** The median slice's figures (requests, statuses and durations summed over the slices); set by `summarizeSlices`. */
  load?: LoadResult;
  rss?: RssSample;
  /** Share of responses with the case's expected status (1 = all). */
  expectedShare?: number;
  /** CPU seconds the server (with its descendants) used during all its slices. */
  cpuSeconds?: number;
  /** Server CPU time per answered request, microseconds, the median of the slices'. */
  cpuMicrosPerRequest?: number;
}

/** The middle value (the mean of the two middle ones for an even count); undefined for none. */
export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Sets a row's `load`, `cpuSeconds` and `cpuMicrosPerRequest` from its slices: each figure is the
 * median of the slices' (requests and statuses summed), so one slice spoilt by other work on the
 * machine moves nothing.
 */
export function summarizeSlices(row: Measurement, expectedStatus: number): void {
  const slices = row.slices ?? [];
  if (slices.length === 0) return;
  const middle = (pick: (slice: Slice) => number | undefined) =>
    median(slices.map(pick).filter((value): value is number => value !== undefined));
  const statusCounts: Record<string, number> = {};
  for (const slice of slices)
    for (const [status, count] of Object.entries(slice.load.statusCounts))
      statusCounts[status] = (statusCounts[status] ?? 0) + count;
  const sum = (pick: (slice: Slice) => number) => slices.reduce((total, slice) => total + pick(slice), 0);
  row.load = {
    requestsPerSecond: middle((slice) => slice.load.requestsPerSecond)!,
    totalRequests: sum((slice) => slice.load.totalRequests),
    latencyP50: middle((slice) => slice.load.latencyP50)!,
    latencyP99: middle((slice) => slice.load.latencyP99)!,
    latencyMean: middle((slice) => slice.load.latencyMean)!,
    statusCounts,
    errors: sum((slice) => slice.load.errors),
    timeouts: sum((slice) => slice.load.timeouts),
    durationSeconds: sum((slice) => slice.load.durationSeconds),
  };
  row.cpuSeconds = sum((slice) => slice.cpuSeconds);
  row.cpuMicrosPerRequest = middle((slice) => slice.cpuMicrosPerRequest);
  row.expectedShare = expectedShare(row.load, expectedStatus);
}

/** The spread of the paired ratios a median was taken from. */
interface Spread {
  lowest: number;
  highest: number;
  pairs: number;
}

export interface RatioRow {
  caseId: CaseId;
  connections: number;
  mockOverBare?: number;
  mockOverPrismSilent?: number;
  mockOverPrismInfo?: number;
  /** mock p99 / bare p99 (lower is better). */
  p99OverBare?: number;
  /** Server CPU per request, mock / bare (lower is better; 1 = as cheap as the ceiling). */
  cpuPerRequestOverBare?: number;
  /** Lowest and highest of the paired ratios behind `mockOverBare` and `cpuPerRequestOverBare`. */
  mockOverBareSpread?: Spread;
  cpuPerRequestOverBareSpread?: Spread;
}

export interface TargetCheck {
  name: string;
  goal: string;
  measured: string;
  /** undefined when a figure needed for the check was not measured. */
  met: boolean | undefined;
}

const mib = 1024 * 1024;

/** The share of responses that had the expected status. */
function expectedShare(load: LoadResult, expectedStatus: number): number {
  const total = Object.values(load.statusCounts).reduce((sum, count) => sum + count, 0) + load.errors + load.timeouts;
  return total === 0 ? 0 : (load.statusCounts[String(expectedStatus)] ?? 0) / total;
}

function find(
  measurements: readonly Measurement[],
  target: TargetId,
  caseId: CaseId,
  connections: number,
): Measurement | undefined {
  const row = measurements.find(
    (entry) => entry.target === target && entry.caseId === caseId && entry.connections === connections,
  );
  return row?.load ? row : undefined;
}

function ratio(numerator: number | undefined, denominator: number | undefined): number | undefined {
  if (numerator === undefined || denominator === undefined || denominator === 0) return undefined;
  return numerator / denominator;
}

/**
 * The ratio of two rows: the median of the ratios of their slices run back to back (same round,
 * same position), with the spread; the ratio of their summaries when they have no such pairs.
 */
function pairedRatio(
  numerator: Measurement | undefined,
  denominator: Measurement | undefined,
  pick: (slice: Slice) => number | undefined,
  summary: (row: Measurement) => number | undefined,
): { value?: number; spread?: Spread } {
  if (numerator === undefined || denominator === undefined) return {};
  const ratios: number[] = [];
  for (const top of numerator.slices ?? []) {
    const bottom = denominator.slices?.find((slice) => slice.round === top.round && slice.slice === top.slice);
    const value = bottom === undefined ? undefined : ratio(pick(top), pick(bottom));
    if (value !== undefined) ratios.push(value);
  }
  if (ratios.length === 0) return { value: ratio(summary(numerator), summary(denominator)) };
  return {
    value: median(ratios)!,
    spread: { lowest: Math.min(...ratios), highest: Math.max(...ratios), pairs: ratios.length },
  };
}

/** mock/bare, mock/Prism and p99 ratios for every case and connection count measured. */
export function computeRatios(
  measurements: readonly Measurement[],
  caseIds: readonly CaseId[],
  connections: readonly number[],
): RatioRow[] {
  const rows: RatioRow[] = [];
  for (const caseId of caseIds) {
    for (const count of connections) {
      const row = (target: TargetId) => find(measurements, target, caseId, count);
      const throughput = (over: TargetId) =>
        pairedRatio(
          row('mock'),
          row(over),
          (slice) => slice.load.requestsPerSecond,
          (entry) => entry.load?.requestsPerSecond,
        );
      const overBare = throughput('bare');
      // autocannon has 1 ms resolution: a 0 ms p99 is counted as 1 ms so the ratio stays finite.
      const p99 = pairedRatio(
        row('mock'),
        row('bare'),
        (slice) => Math.max(slice.load.latencyP99, 1),
        (entry) => (entry.load ? Math.max(entry.load.latencyP99, 1) : undefined),
      );
      const cpu = pairedRatio(
        row('mock'),
        row('bare'),
        (slice) => slice.cpuMicrosPerRequest,
        (entry) => entry.cpuMicrosPerRequest,
      );
      rows.push({
        caseId,
        connections: count,
        mockOverBare: overBare.value,
        mockOverPrismSilent: throughput('prism-silent').value,
        mockOverPrismInfo: throughput('prism-info').value,
        p99OverBare: p99.value,
        cpuPerRequestOverBare: cpu.value,
        ...(overBare.spread ? { mockOverBareSpread: overBare.spread } : {}),
        ...(cpu.spread ? { cpuPerRequestOverBareSpread: cpu.spread } : {}),
      });
    }
  }
  return rows;
}

/** The targets written in docs/decisions/015-hot-path.md, judged from the figures. */
/** Throughput (at least, x bare) and CPU per request (at most, x bare) the mock may cost per case. */
export const coreTargets: Record<CaseId, { throughput: number; cpu: number }> = {
  get: { throughput: 0.85, cpu: 1.3 },
  '401': { throughput: 0.85, cpu: 1.3 },
  '429': { throughput: 0.85, cpu: 1.3 },
  post: { throughput: 0.7, cpu: 1.5 },
};

export function checkTargets(
  measurements: readonly Measurement[],
  ratios: readonly RatioRow[],
  firstResponse: Partial<Record<TargetId, FirstResponseResult>>,
): TargetCheck[] {
  const at = (caseId: CaseId, connections: number) =>
    ratios.find((row) => row.caseId === caseId && row.connections === connections);
  const fixed = (value: number | undefined, digits = 2) =>
    value === undefined ? 'not measured' : `${value.toFixed(digits)} x`;
  const checks: TargetCheck[] = [];
  // The price limit of docs/decisions/015-hot-path.md: what the readable core may cost against bare node:http.
  for (const caseId of caseIds) {
    const row = at(caseId, 100);
    const label = benchCases[caseId].label;
    const { throughput, cpu } = coreTargets[caseId];
    checks.push({
      name: `${label}, 100 connections, vs bare`,
      goal: `>= ${throughput.toFixed(2)} x bare`,
      measured: fixed(row?.mockOverBare),
      met: row?.mockOverBare === undefined ? undefined : row.mockOverBare >= throughput,
    });
    checks.push({
      name: `${label}, 100 connections, vs Prism silent`,
      goal: '>= 5 x Prism (silent)',
      measured: fixed(row?.mockOverPrismSilent, 1),
      met: row?.mockOverPrismSilent === undefined ? undefined : row.mockOverPrismSilent >= 5,
    });
    const cpuRatio = row?.cpuPerRequestOverBare;
    checks.push({
      name: `CPU per request, ${label}, 100 connections`,
      goal: `<= ${cpu.toFixed(1)} x bare`,
      measured: fixed(cpuRatio),
      met: cpuRatio === undefined ? undefined : cpuRatio <= cpu,
    });
  }
  for (const row of ratios) {
    if (row.p99OverBare === undefined) continue;
    const mock = find(measurements, 'mock', row.caseId, row.connections)?.load;
    const bare = find(measurements, 'bare', row.caseId, row.connections)?.load;
    checks.push({
      name: `p99 ${benchCases[row.caseId].label}, ${row.connections} connections`,
      goal: '<= 2 x bare p99',
      measured: `${mock?.latencyP99} ms vs ${bare?.latencyP99} ms (${row.p99OverBare.toFixed(2)} x)`,
      met: row.p99OverBare <= 2,
    });
  }
  const mockRss = measurements
    .filter((entry) => entry.target === 'mock' && entry.rss && entry.rss.peakRssBytes > 0)
    .map((entry) => entry.rss!.peakRssBytes);
  const peak = mockRss.length > 0 ? Math.max(...mockRss) : undefined;
  checks.push({
    name: 'Peak RSS of the mock under load',
    goal: '<= 150 MiB',
    measured: peak === undefined ? 'not measured' : `${(peak / mib).toFixed(0)} MiB`,
    met: peak === undefined ? undefined : peak <= 150 * mib,
  });
  const first = firstResponse.mock?.medianMs;
  checks.push({
    name: 'First response of the mock after spawn',
    goal: '<= 300 ms',
    measured: first === undefined ? 'not measured' : `${first.toFixed(0)} ms`,
    met: first === undefined ? undefined : first <= 300,
  });
  return checks;
}

/** Renders rows as a plain-text table with right-aligned numbers. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column < 2 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ');
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}

/** Header and rows of the main results table. */
export function measurementRows(measurements: readonly Measurement[]): { header: string[]; rows: string[][] } {
  const header = [
    'target',
    'case',
    'conns',
    'req/s',
    'p50 ms',
    'p99 ms',
    'peak RSS MiB',
    'CPU us/req',
    'server CPU',
    'expected status',
  ];
  const rows = measurements.map((entry) => {
    const base = [targets[entry.target].label, benchCases[entry.caseId].label, String(entry.connections)];
    if (!entry.load) return [...base, 'failed', '', '', '', '', '', (entry.error ?? '').split('\n')[0]!.slice(0, 80)];
    const share = entry.expectedShare ?? 0;
    return [
      ...base,
      Math.round(entry.load.requestsPerSecond).toLocaleString('en-US'),
      String(entry.load.latencyP50),
      String(entry.load.latencyP99),
      entry.rss && entry.rss.peakRssBytes > 0 ? (entry.rss.peakRssBytes / mib).toFixed(0) : 'n/a',
      entry.cpuMicrosPerRequest === undefined ? 'n/a' : entry.cpuMicrosPerRequest.toFixed(1),
      // Cores the server kept busy: near 1.00 means a Node server was saturated (one main thread).
      entry.cpuSeconds === undefined ? 'n/a' : (entry.cpuSeconds / entry.load.durationSeconds).toFixed(2),
      share >= 0.999
        ? `${(share * 100).toFixed(0)}%`
        : `${(share * 100).toFixed(1)}% !! ${describeStatuses(entry.load)}`,
    ];
  });
  return { header, rows };
}

/** Header and rows of the ratios table. */
export function ratioRows(ratios: readonly RatioRow[]): { header: string[]; rows: string[][] } {
  const fixed = (value: number | undefined, digits: number) => (value === undefined ? '-' : value.toFixed(digits));
  const withSpread = (value: number | undefined, spread: Spread | undefined) =>
    spread === undefined || spread.pairs < 2
      ? fixed(value, 2)
      : `${fixed(value, 2)} (${spread.lowest.toFixed(2)}-${spread.highest.toFixed(2)})`;
  return {
    header: [
      'case',
      'conns',
      'mock/bare',
      'mock/prism silent',
      'mock/prism default',
      'p99 mock/bare',
      'CPU/req mock/bare',
    ],
    rows: ratios.map((row) => [
      benchCases[row.caseId].label,
      String(row.connections),
      withSpread(row.mockOverBare, row.mockOverBareSpread),
      fixed(row.mockOverPrismSilent, 1),
      fixed(row.mockOverPrismInfo, 1),
      fixed(row.p99OverBare, 2),
      withSpread(row.cpuPerRequestOverBare, row.cpuPerRequestOverBareSpread),
    ]),
  };
}

function describeStatuses(load: LoadResult): string {
  const parts = Object.entries(load.statusCounts).map(([status, count]) => `${status}: ${count}`);
  if (load.errors > 0) parts.push(`errors: ${load.errors}`);
  if (load.timeouts > 0) parts.push(`timeouts: ${load.timeouts}`);
  return parts.join(', ');
}

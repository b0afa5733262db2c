import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchCases } from '../../bench/lib/cases.js';
import { type ManagedProcess, startProcess } from '../../bench/lib/child-processes.js';
import { onCpus, parseCpuList, planCpuPinning } from '../../bench/lib/cpu-pinning.js';
import { findFreePort, probe, waitForAnswer } from '../../bench/lib/http-probe.js';
import type { LoadResult } from '../../bench/lib/load-generator.js';
import { parseAutocannonJson, runLoad } from '../../bench/lib/load-generator.js';
import { canSampleRss, readCpuSeconds, sampleRss } from '../../bench/lib/process-stats.js';
import {
  checkTargets,
  computeRatios,
  type Measurement,
  median,
  type Slice,
  summarizeSlices,
} from '../../bench/lib/report.js';

// Proves the bench harness (bare server, autocannon in a child process, JSON parsing, /proc
// sampling) without the real load: one 1-second run at 2 connections, on 127.0.0.1 only.
const bareServer = fileURLToPath(new URL('../../bench/bare-server.mjs', import.meta.url));

let server: ManagedProcess;
let port: number;

beforeAll(async () => {
  port = await findFreePort();
  server = startProcess(process.execPath, [bareServer, '--port', String(port), '--case', 'get'], 'bare server');
  await waitForAnswer(port, { method: 'GET', path: '/', headers: {} }, { timeoutMs: 10_000 });
});
afterAll(async () => {
  await server?.stop();
});

describe('the bench harness', () => {
  it('serves the canned response of a case from the bare server', async () => {
    const response = await probe(port, benchCases.get.request('mock'));
    expect(response.status).toBe(200);
    expect(response.headers).toContainEqual(['X-RateLimit-Limit', '1000000']);
    expect(JSON.parse(response.body)).toEqual(expect.any(Array));
  });

  it('runs autocannon in a separate process and parses its figures', async () => {
    const sampler = sampleRss(server.pid);
    const cpuBefore = readCpuSeconds(server.pid);
    const result = await runLoad({ port, request: benchCases.get.request('mock'), connections: 2, durationSeconds: 1 });
    const memory = sampler.stop();

    expect(result.requestsPerSecond).toBeGreaterThan(0);
    expect(result.totalRequests).toBeGreaterThan(0);
    expect(result.statusCounts['200']).toBe(result.totalRequests);
    expect(result.errors).toBe(0);
    // autocannon records whole milliseconds, so on loopback p50 may well be 0.
    expect(result.latencyP50).toBeGreaterThanOrEqual(0);
    expect(result.latencyP99).toBeGreaterThanOrEqual(result.latencyP50);
    if (canSampleRss()) {
      expect(memory.peakRssBytes).toBeGreaterThan(0);
      expect(readCpuSeconds(server.pid)).toBeGreaterThan(cpuBefore);
    }
  });

  it("reads the kernel's CPU lists, and refuses what is not one", () => {
    expect(parseCpuList('0')).toEqual([0]);
    expect(parseCpuList(' 0-3,6\n')).toEqual([0, 1, 2, 3, 6]);
    expect(parseCpuList('1,3-4')).toEqual([1, 3, 4]);
    for (const text of ['', 'all', '3-1', '0,,1', '-1', '0-99999']) expect(parseCpuList(text)).toBeNull();
  });

  it('pins nothing when told not to, and runs a pinned command through taskset', () => {
    expect(planCpuPinning('off')).toEqual({ pinning: null, why: 'not pinned (--pin off)' });
    expect(onCpus('node', ['a.js'], undefined)).toEqual({ command: 'node', args: ['a.js'] });
    expect(onCpus('node', ['a.js'], '1')).toEqual({ command: 'taskset', args: ['-c', '1', 'node', 'a.js'] });
  });

  it('splits the CPUs between servers and load generator, and a pinned process runs only on its CPUs', () => {
    const { pinning, why } = planCpuPinning('auto');
    const haveTaskset = spawnSync('taskset', ['-cp', String(process.pid)]).status === 0;
    if (!haveTaskset) {
      expect(pinning).toBeNull();
      expect(why).toMatch(/no taskset/);
      return;
    }
    const usable = parseCpuList(
      spawnSync('taskset', ['-cp', String(process.pid)], { encoding: 'utf8' })
        .stdout.split(':')
        .at(-1)!,
    )!;
    if (usable.length < 2) {
      expect(pinning).toBeNull();
      return;
    }
    const servers = parseCpuList(pinning!.servers)!;
    const load = parseCpuList(pinning!.load)!;
    expect([...servers, ...load].sort((a, b) => a - b)).toEqual(usable);
    expect(servers.some((cpu) => load.includes(cpu))).toBe(false);
    // What the kernel says of a process started the way the bench starts one.
    const launch = onCpus(
      process.execPath,
      ['-e', "process.stdout.write(require('node:fs').readFileSync('/proc/self/status', 'utf8'))"],
      pinning!.load,
    );
    const status = spawnSync(launch.command, launch.args, { encoding: 'utf8' }).stdout;
    expect(parseCpuList(/^Cpus_allowed_list:\s*(.+)$/m.exec(status)![1]!)).toEqual(load);
  });

  it('explains unparseable autocannon output', () => {
    expect(() => parseAutocannonJson('Running 1s test @ http://127.0.0.1')).toThrow(
      /^Failed to parse the autocannon output/,
    );
  });
});

describe('the ratios of the bench', () => {
  const load = (requestsPerSecond: number, latencyP99 = 5): LoadResult => ({
    requestsPerSecond,
    totalRequests: requestsPerSecond * 4,
    latencyP50: 1,
    latencyP99,
    latencyMean: 1,
    statusCounts: { '200': requestsPerSecond * 4 },
    errors: 0,
    timeouts: 0,
    durationSeconds: 4,
  });
  const slice = (index: number, requestsPerSecond: number, cpuMicrosPerRequest: number): Slice => ({
    round: 1,
    slice: index,
    load: load(requestsPerSecond),
    cpuSeconds: (cpuMicrosPerRequest * requestsPerSecond * 4) / 1e6,
    cpuMicrosPerRequest,
  });
  const row = (target: Measurement['target'], slices: Slice[]): Measurement => {
    const measured: Measurement = { target, caseId: 'get', connections: 100, slices };
    summarizeSlices(measured, 200);
    return measured;
  };

  it('takes the median, also of an even count', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeUndefined();
  });

  it('compares the slices run back to back, so a machine that slows down moves both alike', () => {
    // The machine halves its speed after the first slices: the mock's best slice came before,
    // bare's slow ones after. Paired, every slice says 0.8 x.
    const bareSpeeds = [40_000, 40_000, 20_000, 20_000, 20_000];
    const mock = row(
      'mock',
      bareSpeeds.map((speed, index) => slice(index, speed * 0.8, 1e6 / (speed * 0.8))),
    );
    const bare = row(
      'bare',
      bareSpeeds.map((speed, index) => slice(index, speed, 1e6 / speed)),
    );
    const [ratios] = computeRatios([mock, bare], ['get'], [100]);
    expect(ratios!.mockOverBare).toBeCloseTo(0.8, 6);
    expect(ratios!.mockOverBareSpread).toEqual({
      lowest: expect.closeTo(0.8, 6),
      highest: expect.closeTo(0.8, 6),
      pairs: 5,
    });
    expect(ratios!.cpuPerRequestOverBare).toBeCloseTo(1.25, 6);
    // The medians of the rows alone mix the two speeds.
    expect(mock.load!.requestsPerSecond / bare.load!.requestsPerSecond).toBeCloseTo(0.8, 6);
    expect(mock.load!.totalRequests).toBe(bareSpeeds.reduce((sum, speed) => sum + speed * 0.8 * 4, 0));
  });

  it('is not moved by one spoilt pair, and shows the spread', () => {
    const mock = row('mock', [slice(0, 30_000, 40), slice(1, 30_000, 40), slice(2, 5_000, 300)]);
    const bare = row('bare', [slice(0, 40_000, 30), slice(1, 40_000, 30), slice(2, 40_000, 30)]);
    const [ratios] = computeRatios([mock, bare], ['get'], [100]);
    expect(ratios!.mockOverBare).toBeCloseTo(0.75, 6);
    expect(ratios!.mockOverBareSpread!.lowest).toBeCloseTo(0.125, 6);
    const check = checkTargets([mock, bare], [ratios!], {}).find(
      (entry) => entry.name === 'GET 200, 100 connections, vs bare',
    )!;
    expect(check).toMatchObject({ measured: '0.75 x', goal: '>= 0.85 x bare', met: false });
  });

  it("falls back to the rows' medians when the slices cannot be paired", () => {
    const mock = row('mock', [slice(0, 30_000, 40)]);
    const bare = row('bare', [{ ...slice(0, 40_000, 30), round: 2 }]);
    const [ratios] = computeRatios([mock, bare], ['get'], [100]);
    expect(ratios!.mockOverBare).toBeCloseTo(0.75, 6);
    expect(ratios!.mockOverBareSpread).toBeUndefined();
  });
});

import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchCases } from '../../bench/lib/cases.js';
import { startProcess, type ManagedProcess } from '../../bench/lib/child-processes.js';
import { findFreePort, probe, waitForAnswer } from '../../bench/lib/http-probe.js';
import { parseAutocannonJson, runLoad } from '../../bench/lib/load-generator.js';
import { canSampleRss, readCpuSeconds, sampleRss } from '../../bench/lib/process-stats.js';

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

  it('explains unparseable autocannon output', () => {
    expect(() => parseAutocannonJson('Running 1s test @ http://127.0.0.1')).toThrow(/^Failed to parse the autocannon output/);
  });
});

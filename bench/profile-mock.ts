#!/usr/bin/env node
/**
 * Profiles the mock under one bench case: starts it with `node --cpu-prof`, loads it with
 * autocannon (separate process, 127.0.0.1), stops it gracefully so V8 writes the profile, and
 * prints the functions with the most self time and the most inclusive time.
 *
 * Usage: npx tsx bench/profile-mock.ts [--case get|post|401|429] [--connections N] [--duration S]
 *        [--mock src|dist] [--top N] [--keep DIR] [--root DIR]
 * `--root DIR` profiles the mock of another checkout (a worktree holding a proposed fix).
 * `--mock src` (the default) runs the TypeScript through tsx so function names are readable; the
 * built bundle is minified.
 */
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { benchCases, benchConfigYaml, type CaseId, caseIds, exhaustedKey } from './lib/cases.js';
import { startProcess, stopAllProcesses, stopProcessesOnSignals } from './lib/child-processes.js';
import { type CpuProfile, summarizeProfile } from './lib/cpu-profile.js';
import { findFreePort, probe, waitForAnswer } from './lib/http-probe.js';
import { runLoad } from './lib/load-generator.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        case: { type: 'string' },
        connections: { type: 'string' },
        duration: { type: 'string' },
        mock: { type: 'string' },
        top: { type: 'string' },
        keep: { type: 'string' },
        root: { type: 'string' },
      },
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`profile-mock: ${(error as Error).message}\n`);
    return 2;
  }
  const caseId = (values.case ?? 'get') as CaseId;
  if (!caseIds.includes(caseId)) {
    process.stderr.write(`profile-mock: --case must be one of ${caseIds.join(', ')}, got "${values.case}"\n`);
    return 2;
  }
  const connections = Number(values.connections ?? '100');
  const duration = Number(values.duration ?? '10');
  const top = Number(values.top ?? '25');
  const from = values.mock ?? 'src';
  if (
    ![connections, duration, top].every((value) => Number.isInteger(value) && value > 0) ||
    (from !== 'src' && from !== 'dist')
  ) {
    process.stderr.write(
      'profile-mock: --connections, --duration and --top must be positive integers; --mock src or dist\n',
    );
    return 2;
  }
  const mockRoot = values.root ? resolve(values.root) : root;
  stopProcessesOnSignals();

  const workDir = mkdtempSync(join(tmpdir(), 'petstore-profile-'));
  try {
    const configFile = join(workDir, 'bench-config.yaml');
    writeFileSync(configFile, benchConfigYaml);
    const port = await findFreePort();
    const entry =
      from === 'dist'
        ? [join(mockRoot, 'dist/bin/petstore-mock.js')]
        : ['--import', 'tsx', join(mockRoot, 'src/cli/mock-cli.ts')];
    const server = startProcess(
      process.execPath,
      ['--cpu-prof', '--cpu-prof-dir', workDir, ...entry, '--port', String(port), '--quiet', '--config', configFile],
      'mock',
      { cwd: root },
    );
    const benchCase = benchCases[caseId];
    try {
      await waitForAnswer(
        port,
        { method: 'GET', path: '/__mock/health', headers: {} },
        { expectedStatus: 200, intervalMs: 10, isAlive: () => server.child.exitCode === null },
      );
      if (caseId === '429')
        await probe(port, {
          method: 'GET',
          path: '/v1/categories',
          headers: { authorization: `Bearer ${exhaustedKey}` },
        });
      process.stdout.write(
        `Profiling the mock (${from}) under ${benchCase.label} at ${connections} connections for ${duration} s...\n`,
      );
      const load = await runLoad({ port, request: benchCase.request('mock'), connections, durationSeconds: duration });
      process.stdout.write(
        `${Math.round(load.requestsPerSecond).toLocaleString('en-US')} req/s under the profiler (slower than without it), statuses ${JSON.stringify(load.statusCounts)}\n`,
      );
    } finally {
      // A graceful stop (SIGTERM) lets Node write the profile on exit.
      await server.stop(15_000);
    }
    const file = readdirSync(workDir).find((name) => name.endsWith('.cpuprofile'));
    if (!file) throw new Error('Failed to read the CPU profile: the mock wrote none (did it exit gracefully?)');
    if (values.keep) {
      copyFileSync(join(workDir, file), join(values.keep, `mock-${caseId}-${connections}.cpuprofile`));
      process.stdout.write(`Profile kept as ${join(values.keep, `mock-${caseId}-${connections}.cpuprofile`)}\n`);
    }
    const costs = summarizeProfile(JSON.parse(readFileSync(join(workDir, file), 'utf8')) as CpuProfile, mockRoot);
    const row = (cost: (typeof costs)[number]) =>
      `${cost.selfMs.toFixed(0).padStart(7)} ${(cost.selfShare * 100).toFixed(1).padStart(5)}%  ${cost.totalMs.toFixed(0).padStart(7)} ${(cost.totalShare * 100).toFixed(1).padStart(5)}%  ${cost.name}`;
    process.stdout.write(
      `\nTop ${top} by self time (ms, share of the profile; then inclusive):\n${costs.slice(0, top).map(row).join('\n')}\n`,
    );
    const inclusive = [...costs].sort((a, b) => b.totalMs - a.totalMs).filter((cost) => !cost.name.startsWith('('));
    process.stdout.write(`\nTop ${top} by inclusive time:\n${inclusive.slice(0, top).map(row).join('\n')}\n`);
    return 0;
  } finally {
    await stopAllProcesses();
    rmSync(workDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  async (error: unknown) => {
    await stopAllProcesses();
    process.stderr.write(`profile-mock: ${(error as Error).message}\n`);
    process.exitCode = 1;
  },
);

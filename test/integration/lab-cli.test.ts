/**
 * The lab's command-line side (issue 12 sections 2 and 4): the export of the mock's own log
 * (GET /__mock/requests?format=jsonl) replayed by `petstore-mock replay` reproduces the statuses the
 * mock recorded; --report FILE is written on shutdown and --min-coverage gates the exit code.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayAgainstMockApp } from '../../src/cli/replay-command.js';
import { createFixedClock } from '../../src/core/clock.js';
import { parseMockConfig } from '../../src/core/config/mock-config.js';
import { parseLabReport } from '../../src/lab/lab-report-schema.js';
import { parseRecording } from '../../src/lab/replay-input.js';
import { type RunningMockServer, startMockServer } from '../../src/server/start-server.js';
import { specDocument, testEpochMs } from '../support/core-test-app.js';
import { startMockProcess } from '../support/mock-process.js';

const config = {
  keys: [{ key: 'sk_live_incident_secret_42', limits: { perMinute: 5, perDay: 50 } }],
  ban: { threshold: 3, durationSeconds: 120 },
};
let mock: RunningMockServer;
let folder: string;

beforeAll(async () => {
  mock = await startMockServer({ port: 0, seed: 1, clock: createFixedClock(testEpochMs), config });
  folder = await mkdtemp(join(tmpdir(), 'petstore-lab-'));
});
afterAll(async () => {
  await mock.close();
});

const send = async (
  path: string,
  init: { key?: string; method?: string; body?: string; headers?: Record<string, string>; session?: string } = {},
) => {
  const headers: Record<string, string> = { ...init.headers };
  if (init.session) headers['x-mock-session'] = init.session;
  if (init.key !== undefined) headers.authorization = `Bearer ${init.key}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${mock.origin}${path}`, { method: init.method ?? 'GET', headers, body: init.body });
  await response.arrayBuffer();
  return response.status;
};
const advance = (seconds: number, session?: string) =>
  send('/__mock/clock', {
    method: 'POST',
    body: JSON.stringify({ advanceSeconds: seconds }),
    ...(session ? { session } : {}),
  });

/** Real traffic on the running mock: a key driven into a ban, the anonymous budget, bad bodies, Prefer, the deprecated operation. */
async function drive(session: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let second = 0; second < 150; second += 1) {
    statuses.push(await send('/v1/categories', { key: 'sk_live_incident_secret_42', session }));
    if (second % 4 === 0) statuses.push(await send('/v1/categories', { key: 'demo-free', session }));
    if (second % 9 === 0) statuses.push(await send('/v1/pets/3', { key: 'demo-pro', session }));
    if (second % 10 === 0)
      statuses.push(
        await send('/v1/categories', {
          key: 'demo-pro',
          method: 'POST',
          body: second % 20 === 0 ? '{"name":"cat"}' : '{oops',
          session,
        }),
      );
    if (second % 7 === 0)
      statuses.push(
        await send('/v1/categories?limit=2', { key: 'demo-free', headers: { prefer: 'code=500' }, session }),
      );
    if (second % 11 === 0) statuses.push(await send('/v1/categories', { key: 'wrong-key', session }));
    if (second % 13 === 0) statuses.push(await send('/v1/store/orders', { session }));
    await advance(second < 40 ? 0.25 : 2, session);
  }
  return statuses;
}

describe('export of the log and its replay', () => {
  it('exports JSON lines with pseudonyms and no key, and a replay reproduces every recorded status', async () => {
    const session = 'incident';
    const statuses = await drive(session);
    expect(statuses).toContain(429);
    const response = await fetch(`${mock.origin}/__mock/requests?format=jsonl`, {
      headers: { 'x-mock-session': session },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/jsonl; charset=utf-8');
    const text = await response.text();
    for (const secret of ['sk_live_incident_secret_42', 'demo-free', 'demo-pro', 'wrong-key'])
      expect(text).not.toContain(secret);
    const [stateLine, ...requestLines] = text.trimEnd().split('\n');
    // The first line is the state the log starts from (docs/decisions/026-faithful-export.md).
    expect(JSON.parse(stateLine!)).toMatchObject({ v: 1, type: 'state', logSize: 500 });
    const lines = requestLines.map(
      (line) => JSON.parse(line) as { status: number; client: string; plan: string; url: string; code: string | null },
    );
    // The log keeps the newest 500 entries (requestLogSize): the export is the recorded tail.
    expect(lines.length).toBe(Math.min(500, statuses.length));
    expect(lines.map((line) => line.status)).toEqual(statuses.slice(-lines.length));
    expect(lines.some((line) => line.code === 'key_banned')).toBe(true);
    expect(lines.find((line) => line.url === '/v1/categories?limit=2')).toBeDefined();

    const parsedConfig = parseMockConfig(config);
    const recording = parseRecording(text, { plans: parsedConfig.plans });
    const result = await replayAgainstMockApp(recording.requests, parsedConfig, specDocument, { recording });
    expect(result.recorded.differences).toEqual([]);
    expect(result.recorded.same).toBe(lines.length);
  });

  it('petstore-mock replay FILE prints the summary and writes --report and --timeline, the same bytes twice', async () => {
    const session = 'incident-cli';
    await drive(session);
    const exported = join(folder, 'export.jsonl');
    await writeFile(
      exported,
      await (
        await fetch(`${mock.origin}/__mock/requests?format=jsonl`, { headers: { 'x-mock-session': session } })
      ).text(),
    );
    const run = (suffix: string) =>
      spawnSync(
        process.execPath,
        [
          '--import',
          'tsx',
          'src/cli/mock-cli.ts',
          'replay',
          exported,
          '--report',
          join(folder, `report-${suffix}.json`),
          '--timeline',
          join(folder, `timeline-${suffix}.svg`),
        ],
        { encoding: 'utf8', timeout: 60_000 },
      );
    const first = run('a');
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/429/);
    const second = run('b');
    expect(second.stdout.replaceAll('-b.', '-a.')).toBe(first.stdout);
    expect(await readFile(join(folder, 'report-b.json'), 'utf8')).toBe(
      await readFile(join(folder, 'report-a.json'), 'utf8'),
    );
    const svg = await readFile(join(folder, 'timeline-a.svg'), 'utf8');
    expect(svg.startsWith('<svg')).toBe(true);
    expect(await readFile(join(folder, 'timeline-b.svg'), 'utf8')).toBe(svg);
    const report = parseLabReport(await readFile(join(folder, 'report-a.json'), 'utf8'));
    expect(report.coverage.situations.ban.met).toBe(true);
  }, 90_000);

  it('refuses an unknown export format in one Error', async () => {
    const response = await fetch(`${mock.origin}/__mock/requests?format=csv`);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'invalid_control_request', status: 400 });
  });

  it('petstore-mock replay with a missing file or a bad flag says so in one line, exit 2', () => {
    const missing = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'src/cli/mock-cli.ts', 'replay', join(folder, 'nope.jsonl')],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(missing.status).toBe(2);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    const flag = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/mock-cli.ts', 'replay', '--bogus'], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(flag.status).toBe(2);
  }, 90_000);
});

describe('--report FILE and --min-coverage', () => {
  it('writes the report on shutdown and exits 1 when a listed situation was never served', async () => {
    const reportPath = join(folder, 'shutdown-report.json');
    const mockProcess = await startMockProcess(['--report', reportPath, '--min-coverage', '429,401']);
    expect(
      (await fetch(`${mockProcess.baseUrl}/categories`, { headers: { authorization: 'Bearer demo-free' } })).status,
    ).toBe(200);
    expect(
      (await fetch(`${mockProcess.baseUrl}/categories`, { headers: { authorization: 'Bearer nope' } })).status,
    ).toBe(401);
    await mockProcess.stop();
    expect(mockProcess.child.exitCode).toBe(1);
    const report = parseLabReport(await readFile(reportPath, 'utf8'));
    expect(report.coverage.situations['401'].met).toBe(true);
    expect(report.coverage.situations['429'].met).toBe(false);
    expect(report.clients.map((client) => client.client)).toContain('demo-free');
  }, 60_000);

  it('exits 0 when every listed situation was served, and writes JUnit for a .xml name', async () => {
    const reportPath = join(folder, 'shutdown-report.xml');
    const mockProcess = await startMockProcess(['--report', reportPath, '--min-coverage', '429']);
    await fetch(`${mockProcess.baseUrl}/categories`, {
      headers: { authorization: 'Bearer demo-free', prefer: 'code=429' },
    });
    await mockProcess.stop();
    expect(mockProcess.child.exitCode).toBe(0);
    const xml = await readFile(reportPath, 'utf8');
    expect(xml).toMatch(/^<\?xml/);
    expect(xml).toContain('<testcase ');
  }, 60_000);

  it('refuses an unknown situation at startup in one line, exit 2', () => {
    const result = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'src/cli/mock-cli.ts', '--port', '0', '--min-coverage', '429,teapot'],
      { encoding: 'utf8', timeout: 30_000 },
    );
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/teapot/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  }, 60_000);
});

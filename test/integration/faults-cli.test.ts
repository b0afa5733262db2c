import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningMockServer, startMockServer } from '../../src/server/start-server.js';

// `petstore-mock --latency RANGE` and `petstore-mock proxy URL --latency RANGE` (decision 042): every answer waits a latency drawn from the seed,
// on top of the config's fault rules; a latency it cannot read is one line and exit 2.

function runCli(args: string[], onReady?: (origin: string) => Promise<void>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/mock-cli.ts', ...args, '--port', '0'], {
      env: { ...process.env, PORT: '' },
    });
    let stdout = '';
    let stderr = '';
    let ready = false;
    const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const origin = /listening on (http:\/\/\S+)\/v1/.exec(stdout)?.[1];
      if (!ready && origin !== undefined && /Ctrl\+C stops/.test(stdout)) {
        ready = true;
        void (onReady?.(origin) ?? Promise.resolve()).finally(() => child.kill('SIGTERM'));
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr });
    });
  });
}

it('--latency delays every answer within its range and keeps the config fault rules', async () => {
  const folder = await mkdtemp(join(tmpdir(), 'faults-cli-'));
  const config = join(folder, 'mock.yaml');
  await writeFile(config, 'faults:\n  rules:\n    - { fault: empty, operations: [getPetById] }\n');
  let logged: { operationId: string; delayMs?: number; fault?: string }[] = [];
  const run = await runCli(['--config', config, '--latency', '20-30ms'], async (origin) => {
    const headers = { authorization: 'Bearer demo-pro' };
    await (await fetch(`${origin}/v1/categories`, { headers })).text();
    await (await fetch(`${origin}/v1/pets/1`, { headers })).text();
    logged = (await (await fetch(`${origin}/__mock/requests`)).json()) as typeof logged;
  });
  expect(run.code).toBe(0);
  expect(run.stdout).toContain('Latency and faults: latency 20-30 ms; empty 100 % of getPetById (GET /__mock/faults)');
  expect(logged.map((entry) => entry.operationId)).toEqual(['listCategories', 'getPetById']);
  for (const entry of logged) {
    expect(entry.delayMs).toBeGreaterThanOrEqual(20);
    expect(entry.delayMs).toBeLessThanOrEqual(30);
  }
  expect(logged[1]!.fault).toBe('empty');
}, 60_000);

it.each([
  ['fast', /^petstore-mock: --latency: latency "fast" is not a duration/],
  ['300-50ms', /^petstore-mock: --latency: latency "300-50ms": the range's first end is above its second$/],
  ['10m', /^petstore-mock: --latency: latency "10m" is not a duration/],
])(
  'refuses --latency %s with one line and exit 2',
  async (latency, message) => {
    const { code, stderr } = await runCli(['--latency', latency]);
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr.trim()).toMatch(message);
  },
  60_000,
);

let upstream: RunningMockServer;
beforeAll(async () => {
  upstream = await startMockServer({ port: 0 });
});
afterAll(() => upstream.close(0));

it('proxy --latency delays every answer towards the client; a bad one is one line and exit 2', async () => {
  let elapsedMs = 0;
  let status = 0;
  const run = await runCli(['proxy', upstream.baseUrl, '--latency', '60ms'], async (origin) => {
    const started = performance.now();
    const response = await fetch(`${origin}/v1/categories`, { headers: { authorization: 'Bearer demo-pro' } });
    await response.text();
    elapsedMs = performance.now() - started;
    status = response.status;
  });
  expect(run.code).toBe(0);
  expect(status).toBe(200);
  expect(elapsedMs).toBeGreaterThanOrEqual(55);
  const bad = await runCli(['proxy', upstream.baseUrl, '--latency', 'soon']);
  expect(bad.code).toBe(2);
  // The subcommand's usage errors add its --help hint on a second line.
  expect(bad.stderr.trim().split('\n')[0]).toMatch(/^petstore-mock proxy: --latency: latency "soon" is not a duration/);
}, 60_000);

import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockProcess } from '../support/mock-process.js';

// Every command of petstore-mock refuses an option that holds one value when it is given twice (one line,
// exit 2, nothing started), and its --report takes FORMAT=FILE, repeatable, as petstore-contract's does.

const root = resolve(import.meta.dirname, '../..');
const tsx = join(root, 'node_modules/tsx/dist/cli.mjs');

function mockCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, [tsx, join(root, 'src/cli/mock-cli.ts'), ...args], {
    cwd: root,
    timeout: 30_000,
    env: { ...process.env, PORT: '' },
  }).then(
    (ok) => ({ code: 0, ...ok }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'petstore-repeats-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('a repeated option is refused in one line, exit 2', () => {
  it.each([
    [
      ['--port', '0', '-p', '1'],
      'petstore-mock: --port is given twice (as --port and -p): it holds one value, give it once',
    ],
    [['--seed', '1', '--seed', '2'], 'petstore-mock: --seed is given twice: it holds one value, give it once'],
    [
      ['proxy', 'http://127.0.0.1:9/v1', '--fail-on', 'any', '--fail-on', 'server'],
      'petstore-mock proxy: --fail-on is given twice: it holds one value, give it once',
    ],
    [
      ['replay', 'x.har', '--default-plan', 'free', '--default-plan', 'pro'],
      'petstore-mock replay: --default-plan is given twice: it holds one value, give it once',
    ],
  ])('%j', async (args, line) => {
    const result = await mockCli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`${line}\n`);
    expect(result.stdout).toBe('');
  });

  it('--report names a format petstore-mock can write, or refuses', async () => {
    const result = await mockCli(['--report', 'sarif=lab.sarif']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      '--report sarif=lab.sarif: this report is written as json, junit (FORMAT=FILE, or FILE by its ending)',
    );
  });
});

describe('--report FORMAT=FILE, repeatable', () => {
  it('writes the lab report in each format asked for at shutdown', async () => {
    const json = join(folder, 'lab.json');
    const xml = join(folder, 'lab-report');
    const mock = await startMockProcess(['--report', `json=${json}`, '--report', `junit=${xml}`]);
    await fetch(`${mock.baseUrl}/categories`, { headers: { authorization: 'Bearer demo-free' } });
    await mock.stop();
    expect(
      JSON.parse(await readFile(json, 'utf8')).clients.map((client: { client: string }) => client.client),
    ).toContain('demo-free');
    expect(await readFile(xml, 'utf8')).toMatch(/^<\?xml/);
  }, 60_000);
});

/**
 * `petstore-mock --scenario FILE` (issue 12 section 3): applied to the default session before the
 * first request; a bad file is one line on stderr and exit 2; --help lists the presets.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { scenarioPresetNames, scenarioPresets } from '../../src/core/config/scenario-file.js';
import { startMockProcess } from '../support/mock-process.js';

const cli = ['--import', 'tsx', 'src/cli/mock-cli.ts'];
let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'petstore-scenario-'));
});

/** Runs the CLI to its exit (every case here exits before it would listen). */
function runToExit(args: string[]) {
  const result = spawnSync(process.execPath, [...cli, '--port', '0', ...args], {
    cwd: process.cwd(),
    env: { ...process.env, PORT: '' },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The CLI's stdout up to the end of its start banner (it is then stopped). */
function bannerOf(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...cli, '--port', '0', ...args], { env: { ...process.env, PORT: '' } });
    let stdout = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
      if (/Ctrl\+C stops/.test(stdout)) child.kill('SIGTERM');
    });
    child.on('error', reject);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve(stdout);
    });
  });
}

async function scenarioFile(name: string, text: string): Promise<string> {
  const path = join(folder, name);
  await writeFile(path, text);
  return path;
}

describe('petstore-mock --scenario', () => {
  it('--help lists every preset with its one-line description', () => {
    const { code, stdout } = runToExit(['--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('--scenario FILE');
    for (const name of scenarioPresetNames)
      expect(stdout).toContain(`${name.padEnd(19)}  ${scenarioPresets[name].description}`);
  });

  it.each([
    ['an unknown field', 'keys:\n  - key: demo-free\n    spentt: 3\n', 'keys.0.spentt: unknown field'],
    [
      'a wrong type',
      'keys:\n  - key: demo-free\n    bannedSeconds: soon\n',
      'keys.0.bannedSeconds: must be a whole number of seconds',
    ],
    ['a key with an unknown plan', 'keys:\n  - key: k1\n    plan: gold\n', 'keys.0.plan: unknown plan "gold"'],
    ['a misspelt preset', 'presets: [banned-kye]\n', 'presets.0: must be a preset: minute-almost-spent'],
    ['a file that is no scenario', 'user: root\nsecret: hunter2\n', 'none of its 2 top-level keys is a scenario field'],
  ])('refuses %s: one line on stderr naming the file and the field, exit 2', async (_label, text, expected) => {
    const path = await scenarioFile(`bad-${Math.random().toString(36).slice(2)}.yaml`, text);
    const { code, stdout, stderr } = runToExit(['--scenario', path]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr).toContain(`petstore-mock: Failed to load scenario ${path}: ${expected}`);
    expect(stderr).not.toContain('hunter2');
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it.each([
    ['a device that never ends', () => '/dev/zero', 'it is not a regular file'],
    ['a folder', () => folder, 'it is a directory'],
    [
      'a FIFO with no writer',
      () => {
        const fifo = join(folder, `fifo-${Math.random().toString(36).slice(2)}`);
        expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
        return fifo;
      },
      'it is not a regular file',
    ],
  ])('refuses %s unread, at once: one line, exit 2', (_label, pathOf, expected) => {
    const path = pathOf();
    const { code, stderr } = runToExit(['--scenario', path]);
    expect([code, stderr]).toEqual([2, `petstore-mock: Failed to load scenario ${path}: ${expected}\n`]);
  });

  it('refuses a missing file and a scenario that cannot be applied (a clock that would go back) the same way', async () => {
    const missing = runToExit(['--scenario', join(folder, 'nope.yaml')]);
    expect([missing.code, missing.stderr]).toEqual([
      2,
      `petstore-mock: Failed to load scenario ${join(folder, 'nope.yaml')}: no such file\n`,
    ]);
    const past = runToExit(['--scenario', await scenarioFile('past.yaml', 'clock: { at: 2001-01-01T00:00:00Z }\n')]);
    expect(past.code).toBe(2);
    expect(past.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(past.stderr).toContain("clock.at: 2001-01-01T00:00:00.000Z is before the session's clock");
  });

  it('refuses a bad scenario: in the config file naming the config file', async () => {
    const config = await scenarioFile('config.yaml', 'scenario:\n  keys:\n    - { key: k1, plan: gold }\n');
    const { code, stderr } = runToExit(['--config', config]);
    expect(code).toBe(2);
    expect(stderr).toBe(
      `petstore-mock: Failed to load config ${config}: scenario: keys.0.plan: unknown plan "gold" (known: free, pro, business, enterprise)\n`,
    );
  });

  it("applies the config's scenario: first, then the files", async () => {
    const config = await scenarioFile(
      'config-ok.yaml',
      'scenario:\n  presets: [minute-spent]\n  categories: [ { name: from-config } ]\n',
    );
    const file = await scenarioFile('more.yaml', 'categories: [ { name: from-file } ]\n');
    const mock = await startMockProcess(['--config', config, '--scenario', file]);
    try {
      expect(
        (await fetch(`${mock.baseUrl}/categories`, { headers: { authorization: 'Bearer demo-free' } })).status,
      ).toBe(429);
      const listed = (await (
        await fetch(`${mock.baseUrl}/categories`, { headers: { authorization: 'Bearer demo-pro' } })
      ).json()) as { name: string }[];
      expect(listed.map((category) => category.name).slice(-2)).toEqual(['from-config', 'from-file']);
    } finally {
      await mock.stop();
    }
  });

  it('names the scenario applied and where each of its keys stands in the start banner', async () => {
    const config = await scenarioFile('banner-config.yaml', 'scenario:\n  presets: [minute-almost-spent]\n');
    const team = await scenarioFile(
      'banner-team.yaml',
      [
        'description: the team key near its minute, demo-pro banned',
        'keys:',
        '  - { key: team-key-banner, plan: pro, spent: { minute: one-left, day: 9000 } }',
        '  - { key: demo-pro, bannedSeconds: 120 }',
        'anonymous: [ { address: 127.0.0.1, spent: { minute: full } } ]',
        'categories: [ { name: otters } ]',
        'sunset: { afterSunset: gone }',
        '',
      ].join('\n'),
    );
    const banner = await bannerOf(['--config', config, '--scenario', team]);
    const lines = banner.split('\n').map((line) => line.replace(/^\[petstore-mock\] /, ''));
    const from = lines.findIndex((line) => line.startsWith('Scenario applied'));
    expect(lines.slice(from, from + 8)).toEqual([
      `Scenario applied to the default session (config ${config}, ${team}): the team key near its minute, demo-pro banned`,
      '  presets: minute-almost-spent',
      '  demo-free          free        60/min, 1000/day: minute 59/60 spent, day 59/1000',
      '  team…(15)          pro         (new key) 300/min, 10000/day: minute 299/300 spent, day 9000/10000',
      expect.stringMatching(
        /^ {2}demo-pro {11}pro {9}300\/min, 10000\/day: minute 0\/300 spent, day 0\/10000, banned for 120 s \(until \S+Z\)$/,
      ),
      '  anonymous 127.0.0.1: minute 60/60 spent, day 60/1000',
      '  categories: 1 created',
      '  after the sunset date: 410 Gone',
    ]);
    // Before the state and controls lines, so it reads as part of the banner; no secret key in it.
    expect(lines[from + 8]).toMatch(/^State: /);
    expect(banner).not.toContain('team-key-banner');
  });

  it('applies the files in order to the default session before the first request', async () => {
    const banned = await scenarioFile('banned.yaml', 'presets: [banned-key]\n');
    const team = await scenarioFile(
      'team.yaml',
      'keys:\n  - key: team-key\n    plan: pro\n    spent: { minute: one-left }\ncategories: [ { name: otters } ]\n',
    );
    const mock = await startMockProcess(['--scenario', banned, '--scenario', team]);
    try {
      const first = await fetch(`${mock.baseUrl}/categories`, { headers: { authorization: 'Bearer demo-free' } });
      expect([first.status, ((await first.json()) as { code: string }).code, first.headers.get('retry-after')]).toEqual(
        [429, 'key_banned', '900'],
      );
      const last = await fetch(`${mock.baseUrl}/categories`, { headers: { authorization: 'Bearer team-key' } });
      expect([last.status, last.headers.get('x-ratelimit-remaining')]).toEqual([200, '0']);
      expect(((await last.json()) as { name: string }[]).map((category) => category.name)).toContain('otters');
      expect(
        (await fetch(`${mock.baseUrl}/categories`, { headers: { authorization: 'Bearer team-key' } })).status,
      ).toBe(429);
    } finally {
      await mock.stop();
    }
  });
});

import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const cli = ['--import', 'tsx', 'src/cli/mock-cli.ts'];

/** Runs the CLI until it exits, or until `until` matches its stdout (then SIGTERM). */
function runCli(args: string[], options: { until?: RegExp; onReady?: (stdout: string) => Promise<void> } = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [...cli, ...args], { cwd: process.cwd(), env: { ...process.env, PORT: '' } });
    let stdout = '';
    let stderr = '';
    let ready = false;
    const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!ready && options.until?.test(stdout)) {
        ready = true;
        void (options.onReady?.(stdout) ?? Promise.resolve()).finally(() => child.kill('SIGTERM'));
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

describe('petstore-mock command line', () => {
  it('documents every option in --help', async () => {
    const { code, stdout } = await runCli(['--help']);
    expect(code).toBe(0);
    for (const flag of ['--port', '--host', '--spec', '--seed', '--config', '--control-token', '--allow-remote-control', '--verbose']) expect(stdout).toContain(flag);
  });

  it.each([
    [['--colour', 'red'], /Unknown option '--colour'/],
    [['--port', 'eighty'], /--port must be an integer from 0 to 65535, got "eighty"/],
    [['--spec', 'nope.yaml'], /Failed to load spec nope\.yaml: no such file/],
  ])('refuses %j with exit 2 and one clear line, no stack trace', async (args, message) => {
    const { code, stderr } = await runCli(args);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('names the file and the field of a bad config', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'petstore-config-'));
    const file = join(dir, 'petstore.yaml');
    await writeFile(file, 'plans:\n  pro:\n    perMinute: 0\n    perDay: 10\n');
    const { code, stderr } = await runCli(['--config', file]);
    expect(code).toBe(2);
    expect(stderr).toContain(`Failed to load config ${file}: plans.pro.perMinute: must be a positive integer`);
  });

  it('starts, prints the base URL and demo keys, serves, and stops on SIGTERM with exit 0', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'petstore-config-'));
    const file = join(dir, 'petstore.yaml');
    await writeFile(file, 'keys:\n  - key: team-key\n    plan: pro\n');
    let status = 0;
    const { code, stdout } = await runCli(['--port', '0', '--config', file, '--seed', '3'], {
      until: /Ctrl\+C stops/,
      onReady: async (output) => {
        const baseUrl = /listening on (http:\/\/\S+\/v1)/.exec(output)![1]!;
        status = (await fetch(`${baseUrl}/categories`, { headers: { authorization: 'Bearer team-key' } })).status;
      },
    });
    expect(status).toBe(200);
    expect(code).toBe(0);
    expect(stdout).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+\/v1/);
    expect(stdout).toMatch(/demo-free\s+free\s+60\/min, 1000\/day/);
    expect(stdout).toMatch(/demo-enterprise\s+enterprise\s+1000000\/min, 100000000\/day/);
    expect(stdout).toMatch(/te…\(8\)\s+pro/);
    expect(stdout).not.toContain('team-key');
    expect(stdout).toMatch(/SIGTERM: finishing in-flight requests/);
  });
});

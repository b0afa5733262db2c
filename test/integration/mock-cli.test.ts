import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rename, writeFile } from 'node:fs/promises';
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
    for (const flag of [
      'SPEC',
      '-p, --port',
      '-h, --host',
      '--spec',
      '--seed',
      '--config',
      '--watch',
      '--control-token',
      '--allow-remote-control',
      '--verbose',
      '-v, --version',
    ])
      expect(stdout).toContain(flag);
  });

  it.each([['--version'], ['-v']])(
    '%s prints exactly one line: petstore-mock and the package version',
    async (flag) => {
      const { version } = JSON.parse(await readFile('package.json', 'utf8')) as { version: string };
      const { code, stdout, stderr } = await runCli([flag]);
      expect(code).toBe(0);
      expect(stdout).toBe(`petstore-mock ${version}\n`);
      expect(stderr).toBe('');
    },
  );

  it('takes the spec as a positional argument (as `prism mock spec.yaml`), and -p / -h as Prism does', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'petstore-spec-'));
    const file = join(dir, 'renamed.yaml');
    await writeFile(
      file,
      (await readFile('spec/petstore.openapi.yaml', 'utf8')).replace(/^(\s+title:) .*$/m, '$1 Renamed Petstore'),
    );
    for (const args of [
      [file, '-p', '0', '-h', '127.0.0.1'],
      ['--spec', file, '--port', '0', '--host', '127.0.0.1'],
    ]) {
      let status = 0;
      const { code, stdout, stderr } = await runCli(args, {
        until: /Ctrl\+C stops/,
        onReady: async (output) => {
          status = (
            await fetch(`${/listening on (http:\/\/\S+\/v1)/.exec(output)![1]!}/categories`, {
              headers: { authorization: 'Bearer demo-free' },
            })
          ).status;
        },
      });
      expect(code, `${args.join(' ')}: ${stderr}`).toBe(0);
      expect(status).toBe(200);
      expect(stdout).toMatch(/\(Renamed Petstore [^)]*\) listening on http:\/\/127\.0\.0\.1:\d+\/v1/);
    }
  });

  it.each([
    [['-h'], /-h is --host, as in Prism; --help shows the options/],
    [['a.yaml', 'b.yaml'], /expected at most one spec file, got 2: a\.yaml b\.yaml/],
    [['a.yaml', '--spec', 'b.yaml'], /two specs given \(a\.yaml and --spec b\.yaml\); give one/],
    [['missing.yaml'], /Failed to load spec missing\.yaml: no such file/],
  ])('refuses %j with exit 2 and one clear line', async (args, message) => {
    const { code, stderr } = await runCli(args);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it.each([
    [['--colour', 'red'], /petstore-mock: unknown option --colour\n/],
    [['--port', 'eighty'], /--port must be an integer from 0 to 65535, got "eighty"/],
    [['--spec', 'nope.yaml'], /Failed to load spec nope\.yaml: no such file/],
  ])('refuses %j with exit 2 and one clear line, no stack trace', async (args, message) => {
    const { code, stderr } = await runCli(args);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses an unreachable --store with one line naming it, and exit 2', async () => {
    const { code, stderr } = await runCli(['--store', 'redis://127.0.0.1:1/0']);
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/^petstore-mock: Failed to connect to the store redis:\/\/127\.0\.0\.1:1\/0: /);
  });

  it('refuses a --store that is not a Redis URL with one line, and exit 2', async () => {
    const { code, stderr } = await runCli(['--store', 'http://127.0.0.1:6379']);
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/store/);
  });

  it('--memory-budget sets the memory budget /__mock/health reports; a size it cannot read, or one too small, is one line and exit 2', async () => {
    let memory: { budgetBytes?: number } = {};
    const started = await runCli(['--port', '0', '--memory-budget', '96MiB'], {
      until: /Ctrl\+C stops/,
      onReady: async (output) => {
        const origin = /listening on (http:\/\/\S+)\/v1/.exec(output)![1]!;
        memory = ((await (await fetch(`${origin}/__mock/health`)).json()) as { memory: { budgetBytes: number } })
          .memory;
      },
    });
    expect(started.code).toBe(0);
    expect(memory.budgetBytes).toBe(96 * 1024 * 1024);
    for (const [size, message] of [
      ['lots', /^petstore-mock: --memory-budget must be a size such as 268435456, 256MiB or 1GiB, got "lots"$/],
      [
        '1MiB',
        /^petstore-mock: Failed to load config: memoryBudgetBytes: 1048576 is less than 4 x maxCategoryBytes \+ 16 MiB/,
      ],
    ] as const) {
      const { code, stderr } = await runCli(['--port', '0', '--memory-budget', size]);
      expect(code).toBe(2);
      expect(stderr.trim().split('\n')).toHaveLength(1);
      expect(stderr.trim()).toMatch(message);
    }
  }, 120_000);

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

  it('--watch reloads the spec on change and keeps keys, counters and data; a broken edit keeps the old spec', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'petstore-watch-'));
    const file = join(dir, 'petstore.yaml');
    const original = await readFile('spec/petstore.openapi.yaml', 'utf8');
    await writeFile(file, original);
    const child = spawn(process.execPath, [...cli, file, '--watch', '--port', '0'], {
      cwd: process.cwd(),
      env: { ...process.env, PORT: '' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const waitFor = async (read: () => string, pattern: RegExp) => {
      for (let waited = 0; !pattern.test(read()); waited += 25) {
        if (waited > 15_000) throw new Error(`timed out waiting for ${pattern}; stdout: ${stdout}; stderr: ${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    };
    try {
      await waitFor(() => stdout, /Ctrl\+C stops/);
      const origin = /listening on (http:\/\/\S+)\/v1/.exec(stdout)![1]!;
      const headers = { authorization: 'Bearer demo-free', 'content-type': 'application/json' };
      const created = await fetch(`${origin}/v1/categories`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'kept-across-reloads' }),
      });
      expect(created.status).toBe(201);
      await fetch(`${origin}/__mock/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ key: 'added-at-run-time', plan: 'pro' }),
      });

      // An edit that moves the API to /v2 and renames it; saved the way editors do (write + rename).
      await writeFile(
        join(dir, '.petstore.yaml.swp'),
        original.replaceAll('/v1\n', '/v2\n').replace(/^(\s+title:) .*$/m, '$1 Petstore Reloaded'),
      );
      await rename(join(dir, '.petstore.yaml.swp'), file);
      await waitFor(() => stdout, /Reloaded .*petstore\.yaml: Petstore Reloaded .* under \/v2; state kept/);
      const listed = await fetch(`${origin}/v2/categories`, { headers });
      expect(listed.status).toBe(200);
      expect(((await listed.json()) as { name: string }[]).map((category) => category.name)).toContain(
        'kept-across-reloads',
      );
      // The per-minute counter of demo-free went on across the reload: the POST, then this GET.
      expect(Number(listed.headers.get('x-ratelimit-remaining'))).toBe(58);
      expect(
        (await fetch(`${origin}/v2/categories`, { headers: { authorization: 'Bearer added-at-run-time' } })).status,
      ).toBe(200);
      expect((await fetch(`${origin}/v1/categories`, { headers })).status).toBe(404);

      // A broken edit: one line on stderr, and the last good spec keeps serving.
      await writeFile(file, 'openapi: 3.1.0\npaths: [\n');
      await waitFor(() => stderr, /still serving the previous spec/);
      expect(stderr.trim().split('\n')).toHaveLength(1);
      expect(stderr).toMatch(/Failed to load spec .*petstore\.yaml: /);
      const after = await fetch(`${origin}/v2/categories`, { headers });
      expect(after.status).toBe(200);
      // ... and the 404 on /v1, then this one.
      expect(Number(after.headers.get('x-ratelimit-remaining'))).toBe(56);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  });
});

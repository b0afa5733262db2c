import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// `petstore-mock [options] -- COMMAND` and `petstore-mock proxy URL [options] -- COMMAND`: every way such a
// run ends, its exit code, its report, and that nothing it started outlives it.

const cli = ['--import', 'tsx', 'src/cli/mock-cli.ts'];

/**
 * The command the tests wrap: records its pid and the base address it was given, calls the API once,
 * records a signal it receives (then exits 42), and exits with `mode` (a number), or waits for a signal
 * (`wait`), or leaves a sleeping grandchild behind and exits 0 (`orphan`).
 */
const childScript = `
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
const [dir, mode] = process.argv.slice(2);
for (const name of ['SIGTERM', 'SIGINT'])
  process.on(name, () => { writeFileSync(dir + '/signal', name); process.exit(42); });
const answer = await fetch(process.env.PETSTORE_BASE_URL + '/categories');
writeFileSync(dir + '/seen', JSON.stringify({ pid: process.pid, baseUrl: process.env.PETSTORE_BASE_URL, status: answer.status }));
if (mode === 'orphan') {
  const sleeper = spawn('sleep', ['300'], { stdio: 'ignore' });
  writeFileSync(dir + '/orphan', String(sleeper.pid));
  process.exit(0);
}
if (mode === 'wait') { writeFileSync(dir + '/ready', ''); setInterval(() => {}, 1000); }
else process.exit(Number(mode));
`;

let dir: string;
let child: string;
/** An upstream for the proxy that breaks the interface: 200 with no X-RateLimit-* headers. */
let brokenUpstream: Server;
let brokenUpstreamUrl: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'petstore-wrapped-'));
  child = join(dir, 'child.mjs');
  await writeFile(child, childScript);
  brokenUpstream = createServer((_request, response) =>
    response.writeHead(200, { 'content-type': 'application/json' }).end('[]'),
  );
  await new Promise<void>((resolve) => brokenUpstream.listen(0, '127.0.0.1', resolve));
  const address = brokenUpstream.address() as { port: number };
  brokenUpstreamUrl = `http://127.0.0.1:${address.port}/v1`;
});

afterAll(async () => {
  await new Promise((resolve) => brokenUpstream.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `-- node child.mjs DIR MODE`: the command line's tail that wraps the test's command. */
const wrapping = (mode: string) => ['--', process.execPath, child, dir, mode];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs petstore-mock with `args`; `whenReady` runs once the wrapped command wrote its ready file. */
function runCli(args: string[], whenReady?: (pid: number) => void): Promise<Run> {
  return new Promise((resolve, reject) => {
    const process_ = spawn(process.execPath, [...cli, ...args], {
      cwd: process.cwd(),
      env: { ...process.env, PORT: '4010' },
    });
    let stdout = '';
    let stderr = '';
    const killer = setTimeout(() => process_.kill('SIGKILL'), 25_000);
    let poll: NodeJS.Timeout | undefined;
    if (whenReady)
      poll = setInterval(() => {
        if (!existsSync(join(dir, 'ready'))) return;
        clearInterval(poll);
        whenReady(process_.pid!);
      }, 50);
    process_.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    process_.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    process_.on('error', reject);
    process_.on('exit', (code) => {
      clearTimeout(killer);
      clearInterval(poll);
      resolve({ code, stdout, stderr });
    });
  });
}

/** What the wrapped command saw (its pid, the base address, the status of its one call), and forgets it. */
async function seenByCommand(): Promise<{ pid: number; baseUrl: string; status: number }> {
  const seen = JSON.parse(await readFile(join(dir, 'seen'), 'utf8'));
  for (const name of ['seen', 'ready', 'signal', 'orphan']) await rm(join(dir, name), { force: true });
  return seen;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function portOpen(baseUrl: string): Promise<boolean> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Every run must leave nothing behind: the command's process gone and the server's port closed. */
async function expectNothingLeft(seen: { pid: number; baseUrl: string }): Promise<void> {
  expect(processAlive(seen.pid), `the command (pid ${seen.pid}) is still running`).toBe(false);
  expect(await portOpen(seen.baseUrl), `${seen.baseUrl} still accepts connections`).toBe(false);
}

describe('petstore-mock -- COMMAND', () => {
  it('exits with the command code when it fails, and still writes the report', async () => {
    const report = join(dir, 'failed.json');
    const run = await runCli(['--report', report, ...wrapping('3')]);
    expect(run.code, run.stderr).toBe(3);
    const seen = await seenByCommand();
    expect(seen.status).toBe(401);
    expect(JSON.parse(await readFile(report, 'utf8')).clients).toHaveLength(1);
    await expectNothingLeft(seen);
  });

  it('exits 1 when the command passed and --min-coverage failed', async () => {
    const run = await runCli(['--min-coverage', '429', ...wrapping('0')]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/--min-coverage: never served: 429/);
    await expectNothingLeft(await seenByCommand());
  });

  it('exits 0 when both passed, on a free port although $PORT says 4010, and --port still wins', async () => {
    const report = join(dir, 'passed.xml');
    const run = await runCli(['--min-coverage', '401', '--report', report, ...wrapping('0')]);
    expect(run.code, run.stderr).toBe(0);
    const seen = await seenByCommand();
    expect(seen.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(seen.baseUrl).not.toContain(':4010/');
    expect(await readFile(report, 'utf8')).toContain('<testsuite');
    await expectNothingLeft(seen);
    const chosen = new URL(seen.baseUrl).port;
    const pinned = await runCli(['--port', chosen, ...wrapping('0')]);
    expect(pinned.code, pinned.stderr).toBe(0);
    expect((await seenByCommand()).baseUrl).toBe(seen.baseUrl);
  });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'passes %s on to the command, then stops and writes the report; the exit code is the command one',
    async (signal) => {
      const report = join(dir, `${signal}.json`);
      const run = await runCli(['--report', report, ...wrapping('wait')], (pid) => process.kill(pid, signal));
      expect(await readFile(join(dir, 'signal'), 'utf8')).toBe(signal);
      expect(run.code, run.stderr).toBe(42);
      expect(existsSync(report)).toBe(true);
      await expectNothingLeft(await seenByCommand());
    },
  );

  it('passes SIGTERM on to the command when the process that started petstore-mock dies (npx does not pass it on)', async () => {
    const report = join(dir, 'orphaned.json');
    // bash starts petstore-mock, says its pid, and waits; then bash alone is killed, as npx is.
    const cliLine = [process.execPath, ...cli, '--report', report, ...wrapping('wait')].join(' ');
    const parent = spawn('bash', ['-c', `${cliLine} & echo $!; wait`], { env: { ...process.env, PORT: '' } });
    const mockPid = await new Promise<number>((resolve) =>
      parent.stdout.once('data', (chunk) => resolve(Number(`${chunk}`))),
    );
    try {
      for (let tries = 0; tries < 400 && !existsSync(join(dir, 'ready')); tries++) await delay(50);
      parent.kill('SIGKILL');
      for (let tries = 0; tries < 200 && processAlive(mockPid); tries++) await delay(50);
      expect(await readFile(join(dir, 'signal'), 'utf8')).toBe('SIGTERM');
      expect(existsSync(report), 'the report of the orphaned run').toBe(true);
      expect(processAlive(mockPid), 'petstore-mock outlived its command').toBe(false);
      await expectNothingLeft(await seenByCommand());
    } finally {
      // On a failure, what the test started goes with it.
      if (processAlive(mockPid)) process.kill(mockPid, 'SIGKILL');
      const seen = existsSync(join(dir, 'seen')) ? await seenByCommand() : undefined;
      if (seen && processAlive(seen.pid)) process.kill(seen.pid, 'SIGKILL');
    }
  });

  it('stops whatever the command left running in its process group', async () => {
    const run = await runCli(wrapping('orphan'));
    expect(run.code, run.stderr).toBe(0);
    const orphan = Number(await readFile(join(dir, 'orphan'), 'utf8'));
    // SIGTERM was sent before the exit; the kernel may take a moment to reap the sleeper.
    for (let tries = 0; tries < 40 && processAlive(orphan); tries++) await delay(50);
    expect(processAlive(orphan), `the command's own child (pid ${orphan}) outlived the run`).toBe(false);
    await expectNothingLeft(await seenByCommand());
  });

  it('a command that cannot start is one line and exit 127, as in a shell; the server stops', async () => {
    const run = await runCli(['--', 'petstore-no-such-command', '--flag']);
    expect(run.code).toBe(127);
    expect(run.stderr).toBe('[petstore-mock] error: Failed to start petstore-no-such-command: command not found\n');
    const baseUrl = /listening on (http:\/\/\S+\/v1)/.exec(run.stdout)![1]!;
    expect(await portOpen(baseUrl)).toBe(false);
  });

  it('a server that cannot start is exit 2 and the command never runs', async () => {
    const run = await runCli(['--spec', join(dir, 'missing.yaml'), ...wrapping('0')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^petstore-mock: Failed to load spec .*missing\.yaml: no such file/);
    expect(existsSync(join(dir, 'seen'))).toBe(false);
  });

  it('refuses a -- with nothing after it: one line, exit 2', async () => {
    const run = await runCli(['--']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('petstore-mock: nothing after --: give the command to run, e.g. -- npm test\n');
  });
});

describe('petstore-mock proxy URL -- COMMAND', () => {
  it('exits 1 when the command passed and --fail-on failed, and writes the report', async () => {
    const report = join(dir, 'proxy.md');
    const run = await runCli(['proxy', brokenUpstreamUrl, '--report', report, '--fail-on', 'server', ...wrapping('0')]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/--fail-on server: the server broke a rule/);
    expect(await readFile(report, 'utf8')).toMatch(/every\.rate-headers-present/);
    const seen = await seenByCommand();
    expect(seen.status).toBe(200);
    await expectNothingLeft(seen);
  });

  it('exits with the command code when it fails, and 0 when both passed', async () => {
    const failed = await runCli(['proxy', brokenUpstreamUrl, '--fail-on', 'server', ...wrapping('5')]);
    expect(failed.code, failed.stderr).toBe(5);
    await expectNothingLeft(await seenByCommand());
    const passed = await runCli(['proxy', brokenUpstreamUrl, ...wrapping('0')]);
    expect(passed.code, passed.stderr).toBe(0);
    await expectNothingLeft(await seenByCommand());
  });

  it('passes SIGTERM on to the command and writes the report', async () => {
    const report = join(dir, 'proxy-signal.json');
    const run = await runCli(['proxy', brokenUpstreamUrl, '--report', report, ...wrapping('wait')], (pid) =>
      process.kill(pid, 'SIGTERM'),
    );
    expect(await readFile(join(dir, 'signal'), 'utf8')).toBe('SIGTERM');
    expect(run.code, run.stderr).toBe(42);
    expect(JSON.parse(await readFile(report, 'utf8')).upstream).toContain('127.0.0.1');
    await expectNothingLeft(await seenByCommand());
  });

  it('--proxy URL in the mock command line wraps a command too', async () => {
    const run = await runCli(['--proxy', brokenUpstreamUrl, '--fail-on', 'any', ...wrapping('0')]);
    expect(run.code, run.stderr).toBe(1);
    await expectNothingLeft(await seenByCommand());
  });
});

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type FakePetstore, type Fault, fakeKeys, startFakePetstore } from '../contract-kit/support/fake-petstore.js';

/**
 * `petstore-mock proxy` as CI runs it: the report written on SIGTERM, `--fail-on` deciding the exit
 * code, `proxy:` in the config, usage errors as one line, keys never in the log (even --verbose).
 */
const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'proxy-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface ProxyProcess {
  baseUrl: string;
  /** SIGTERM; resolves with the exit code and everything printed. */
  stop(): Promise<{ code: number | null; output: string }>;
}

const children = new Set<ChildProcess>();
let upstream: FakePetstore | undefined;
afterEach(async () => {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
  await upstream?.close();
  upstream = undefined;
});

function run(args: string[]): { child: ChildProcess; done: Promise<{ code: number | null; output: string }> } {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/cli/mock-cli.ts'), ...args], {
    cwd: root,
    env: { ...process.env, PORT: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const done = new Promise<{ code: number | null; output: string }>((resolve) =>
    child.once('exit', (code) => {
      children.delete(child);
      resolve({ code, output });
    }),
  );
  Object.defineProperty(child, 'output', { get: () => output });
  return { child, done };
}

async function startProxy(args: string[]): Promise<ProxyProcess> {
  const { child, done } = run(args);
  const deadline = Date.now() + 20_000;
  for (;;) {
    const match = /listening on (http:\/\/\S+)/.exec((child as unknown as { output: string }).output);
    if (match) {
      return {
        baseUrl: match[1]!,
        stop: () => {
          child.kill('SIGTERM');
          return done;
        },
      };
    }
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`the proxy did not start: ${(child as unknown as { output: string }).output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A key driven into its 429, then retried at once: a client that does not honour Retry-After. */
async function impatientClient(baseUrl: string): Promise<void> {
  for (let index = 0; index < 12; index += 1)
    await (await fetch(`${baseUrl}/categories`, { headers: { authorization: `Bearer ${fakeKeys.limited}` } })).text();
}

const withFake = async (faults: Fault[]) => {
  upstream = await startFakePetstore({ faults });
  return upstream.baseUrl;
};

describe('petstore-mock proxy', () => {
  it('--fail-on server: exit 1 when the server broke a rule, the JSON report written on SIGTERM, no key in the log', async () => {
    const report = join(dir, 'server.json');
    const proxy = await startProxy([
      'proxy',
      await withFake(['error-status-mismatch']),
      '--port',
      '0',
      '--report',
      report,
      '--fail-on',
      'server',
      '--verbose',
    ]);
    await (
      await fetch(`${proxy.baseUrl}/categories`, { headers: { authorization: 'Bearer wrong-secret-key-42' } })
    ).text();
    await (
      await fetch(`${proxy.baseUrl}/categories`, { headers: { authorization: `Bearer ${fakeKeys.main}` } })
    ).text();
    const { code, output } = await proxy.stop();
    expect(code, output).toBe(1);
    expect(output).toContain('--fail-on server: the server broke a rule');
    expect(output).toMatch(/GET \/v1\/categories -> 401 \(client-[0-9a-f]{12}\)/);
    for (const key of [fakeKeys.main, 'wrong-secret-key-42']) expect(output).not.toContain(key);
    const written = JSON.parse(readFileSync(report, 'utf8')) as {
      server: { outcome: string; rules: { id: string; outcome: string }[] };
    };
    expect(written.server.outcome).toBe('fail');
    expect(written.server.rules.find((rule) => rule.id === 'every.error-status')?.outcome).toBe('fail');
  });

  it('--fail-on client: exit 1 for a client that retries before Retry-After (JUnit report)', async () => {
    const proxy = await startProxy([
      'proxy',
      await withFake([]),
      '--port',
      '0',
      '--fail-on',
      'client',
      '--report',
      join(dir, 'proxy.xml'),
    ]);
    await impatientClient(proxy.baseUrl);
    const { code, output } = await proxy.stop();
    expect(code, output).toBe(1);
    expect(output).toContain('--fail-on client: the client broke a rule');
    const junit = readFileSync(join(dir, 'proxy.xml'), 'utf8');
    expect(junit).toMatch(/<testsuite name="server http:\/\/127\.0\.0\.1:\d+\/v1" tests="\d+" failures="0"/);
    expect(junit).toMatch(/<failure message="[^"]*" type="retry-after-honoured">/);
  });

  it('proxy: in the config file; --fail-on server passes the same impatient traffic (Markdown report)', async () => {
    const config = join(dir, 'proxy.yaml');
    writeFileSync(config, `proxy: ${await withFake([])}\n`);
    const proxy = await startProxy([
      '--config',
      config,
      '--port',
      '0',
      '--report',
      join(dir, 'proxy.md'),
      '--fail-on',
      'server',
    ]);
    await impatientClient(proxy.baseUrl);
    const { code, output } = await proxy.stop();
    expect(code, output).toBe(0);
    expect(readFileSync(join(dir, 'proxy.md'), 'utf8')).toContain('**Server: PASS** · **Client: FAIL**');
  });

  it('a usage error is one line and exit 2', async () => {
    const { code, output } = await run(['proxy', 'http://127.0.0.1:9/v1', '--fail-on', 'both']).done;
    expect(code).toBe(2);
    expect(output).toContain('--fail-on must be server, client or any, got "both"');
    expect(output.trim().split('\n')).toHaveLength(2);
  });

  it('--allowed-hosts: the controls answer that name too; any other Host is 403 (DNS rebinding)', async () => {
    const proxy = await startProxy(['proxy', await withFake([]), '--port', '0', '--allowed-hosts', 'proxy.test']);
    const { port } = new URL(proxy.baseUrl);
    const statusUnder = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const request = httpRequest(
          { host: '127.0.0.1', port, path: '/__mock/report', headers: { host }, setHost: false },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        request.on('error', reject);
        request.end();
      });
    expect(await statusUnder('proxy.test')).toBe(200);
    expect(await statusUnder(`127.0.0.1:${port}`)).toBe(200);
    expect(await statusUnder('evil.example')).toBe(403);
    await proxy.stop();
  });
});

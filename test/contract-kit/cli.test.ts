import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakePetstore, fakeKeys, startFakePetstore } from './support/fake-petstore.js';
import { runCli } from './support/run-cli.js';

/** The real command line, in a child process: exit codes 0, 1 and 2, --help, reporters, env fallbacks. */
describe('petstore-contract command line', () => {
  let conforming: FakePetstore;
  let broken: FakePetstore;
  let outputDir: string;
  beforeAll(async () => {
    // Many runs against one server within a minute: a large anonymous budget keeps the kit from waiting for windows.
    [conforming, broken] = await Promise.all([
      startFakePetstore({ anonymousLimit: 100_000 }),
      startFakePetstore({ faults: ['reset-in-milliseconds'] }),
    ]);
    outputDir = await mkdtemp(join(tmpdir(), 'contract-cli-'));
  });
  afterAll(async () => {
    await Promise.all([conforming?.close(), broken?.close(), rm(outputDir, { recursive: true, force: true })]);
  });

  const noStackTrace = (text: string) => expect(text).not.toMatch(/^\s+at /m);

  it('--help documents the options and exit codes (exit 0)', async () => {
    const { code, stdout } = await runCli(['--help']);
    expect(code).toBe(0);
    for (const flag of [
      '--base-url',
      '--api-key',
      '--rate-limit-key',
      '--read-only',
      '--max-requests',
      '--max-wait',
      '--reporter',
      '--output',
      '--timeout',
      '--concurrency',
      '--strict',
      '--via-prism',
      '--seed',
      'PETSTORE_BASE_URL',
      'Exit codes',
    ]) {
      expect(stdout).toContain(flag);
    }
  });

  it('every bad input is one line on stderr and exit 2, never a stack trace, nothing sent', async () => {
    const base = ['--base-url', 'http://127.0.0.1:1/v1', '--api-key', 'k-123456'];
    // One of each way in (a flag parseArgs refuses, a value the kit refuses, a base URL, a key, a
    // report path): every message is written by one path in the CLI; parse-cli-args.test.ts has the rest.
    const cases: [string[], string][] = [
      [
        [],
        'petstore-contract: Failed to start: --base-url is required (or set PETSTORE_BASE_URL) (petstore-contract --help lists the options)',
      ],
      [
        [...base, '--read-olny'],
        'petstore-contract: Failed to read the command line: unknown option --read-olny (did you mean --read-only?) (petstore-contract --help lists the options)',
      ],
      [
        [...base, '--concurrency', '-1'],
        'petstore-contract: Failed to read the command line: --concurrency needs a value; a value starting with "-" is written --concurrency=-VALUE (petstore-contract --help lists the options)',
      ],
      [
        [...base, '--timeout', 'soon'],
        'petstore-contract: Failed to use --timeout: "soon" is not a number of seconds (petstore-contract --help lists the options)',
      ],
      [
        ['--base-url', 'ftp://h/v1', '--api-key', 'two words'],
        'petstore-contract: Failed to use base URL ftp://h/v1: only http and https are supported (petstore-contract --help lists the options)',
      ],
      [
        [...base, '--output', join(outputDir, 'no-such-dir', 'report.xml')],
        `petstore-contract: Failed to use --output ${join(outputDir, 'no-such-dir', 'report.xml')}: the directory ${join(outputDir, 'no-such-dir')} does not exist`,
      ],
    ];
    const runs = await Promise.all(cases.map(([args]) => runCli(args)));
    runs.forEach((run, index) => {
      expect(run.code, cases[index]![0].join(' ')).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(`${cases[index]![1]}\n`);
      noStackTrace(run.stderr);
    });
  });

  it('exits 2 when the server is unreachable', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const { code, stdout, stderr } = await runCli(['--base-url', `http://127.0.0.1:${port}/v1`, '--api-key', 'k']);
    expect(code).toBe(2);
    expect(stderr).toContain(`petstore-contract: Failed to reach http://127.0.0.1:${port}/v1: connection refused`);
    expect(stdout).toBe('');
    noStackTrace(stderr);
  });

  it('exits 0 for a conforming server, reads PETSTORE_* variables and writes a JUnit report', async () => {
    const output = join(outputDir, 'contract.xml');
    const { code, stdout } = await runCli(['--reporter', 'junit', '--output', output], {
      PETSTORE_BASE_URL: conforming.baseUrl,
      PETSTORE_API_KEY: fakeKeys.main,
      PETSTORE_RATE_LIMIT_KEY: fakeKeys.limited,
    });
    expect(code).toBe(0);
    expect(stdout).toContain(`petstore-contract: ${conforming.baseUrl}: CONFORMS`);
    const xml = await readFile(output, 'utf8');
    expect(xml).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="petstore-contract" tests="\d+" failures="0"/,
    );
    expect(xml).toContain('name="§8.1 exceeding the limit -&gt; 429 (with --rate-limit-key) [GET /categories]"');
  });

  it('exits 1 for a broken server: each check once (live, on stderr), then the failures by cause with a curl, never the key', async () => {
    const { code, stdout, stderr } = await runCli(['--base-url', broken.baseUrl, '--api-key', fakeKeys.main]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^ {2}FAIL {2}§8 +X-RateLimit-Reset is a Unix timestamp in seconds in the near future/m);
    // Piped (as in CI), stdout and stderr reach one log: the check lines are not printed twice.
    expect(stdout).not.toMatch(/^ {2}(PASS|FAIL|SKIP|INFO|WARN) {2}/m);
    expect(stdout).toContain('Failures by cause: 1 cause, 1 failed check');
    expect(stdout).toMatch(/^ {2}1\. FAIL .*milliseconds, not seconds.* · 1 check · §8$/m);
    expect(stdout).toMatch(
      /^ {7}reproduce: curl -sS -i -g --path-as-is http:\/\/127\.0\.0\.1:\d+\/v1\/\S+ -H 'accept: application\/json'/m,
    );
    expect(stdout).toMatch(/^ {2}§8\b.*: 8\. Limits, docs\/petstore-service-interface\.md#8-limits$/m);
    expect(stdout + stderr).not.toContain(fakeKeys.main);
    expect(stdout).toContain('Verdict: DOES NOT CONFORM');
  });

  it('says how many categories the run may create, and how to create none, before the first request that could create one', async () => {
    const server = await startFakePetstore({ anonymousLimit: 100_000 });
    try {
      const { code, stderr, stdout } = await runCli([
        '--base-url',
        server.baseUrl,
        '--api-key',
        fakeKeys.main,
        '--create-budget',
        '7',
        '--reporter',
        'json',
      ]);
      expect(code).toBe(0);
      const report = JSON.parse(stdout) as { mayCreateCategories: number; createdCategories: number; log: string[] };
      const line = stderr.split('\n').find((text) => text.includes('may create'));
      expect(line).toMatch(
        new RegExp(
          `^petstore-contract: this run may create up to ${report.mayCreateCategories} categories on ${server.baseUrl.replace(/[.]/g, '\\.')}, named contract-test-[0-9a-f]{8}-\\* \\(the interface has no delete; --create-budget 7, its checks would use \\d+: --create-budget \\d+ affords them all\\); --read-only creates none$`,
        ),
      );
      // --create-budget bounds the whole run: the checks past it are INCONCLUSIVE for their cell, the verdict stays.
      expect(report.mayCreateCategories).toBe(7);
      // Before any check's line, so before any POST; and the promise held.
      expect(stderr.indexOf(line!)).toBeLessThan(stderr.search(/^ {2}(PASS|FAIL)/m));
      expect(server.requests.filter((request) => request.method === 'POST').length).toBeLessThanOrEqual(
        report.mayCreateCategories,
      );
      expect(report.createdCategories).toBeLessThanOrEqual(report.mayCreateCategories);
    } finally {
      await server.close();
    }
  });

  it('says as it waits for a rate-limit window what for and how long (one line per wait when not a terminal)', async () => {
    const server = await startFakePetstore({ hostile: { kind: 'all-429', retryAfter: '1', rateHeaders: false } });
    try {
      const { code, stderr } = await runCli([
        '--base-url',
        server.baseUrl,
        '--api-key',
        fakeKeys.main,
        '--read-only',
        '--max-wait',
        '3',
        '--reporter',
        'json',
      ]);
      expect([1, 3]).toContain(code);
      const waits = stderr.split('\n').filter((line) => line.startsWith('petstore-contract: waiting'));
      expect(waits.length).toBeGreaterThan(0);
      for (const line of waits)
        expect(line).toMatch(
          /^petstore-contract: waiting 1 s for Retry-After of (the main key|unauthenticated requests) \(answered 429\), until \d\d:\d\d:\d\d UTC$/,
        );
      expect(stderr).not.toContain('\r');
    } finally {
      await server.close();
    }
  });

  it('--version and -v print exactly one line "petstore-contract <version>"', async () => {
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    for (const flag of ['--version', '-v']) {
      const { code, stdout } = await runCli([flag]);
      expect(code).toBe(0);
      expect(stdout).toBe(`petstore-contract ${pkg.version}\n`);
    }
  });

  it('streams one line per check to stderr as it runs, plain when piped, coloured with FORCE_COLOR, plain with NO_COLOR', async () => {
    const plain = await runCli(
      ['--base-url', conforming.baseUrl, '--api-key', fakeKeys.main, '--read-only', '--reporter', 'json'],
      { NO_COLOR: undefined, FORCE_COLOR: undefined },
    );
    expect(plain.code).toBe(0);
    expect(plain.stderr).toMatch(/^ {2}PASS {2}§5\.3 +missing Authorization -> 401 \+ Error \[GET \/categories\]$/m);
    expect(plain.stderr).not.toContain('\u001b[');
    const forced = await runCli(
      ['--base-url', conforming.baseUrl, '--api-key', fakeKeys.main, '--read-only', '--reporter', 'json'],
      { FORCE_COLOR: '1', NO_COLOR: undefined },
    );
    expect(forced.stderr).toContain('\u001b[32mPASS\u001b[39m');
    expect(forced.stdout).not.toContain('\u001b[');
    const noColor = await runCli(
      ['--base-url', conforming.baseUrl, '--api-key', fakeKeys.main, '--read-only', '--reporter', 'json'],
      { FORCE_COLOR: '1', NO_COLOR: '1' },
    );
    expect(noColor.stderr).not.toContain('\u001b[');
  });

  it('--fail-on-skip fails a run that skipped checks (exit 1), and the Markdown reporter shows the verdict and the coverage matrix', async () => {
    const { code, stdout } = await runCli([
      '--base-url',
      conforming.baseUrl,
      '--api-key',
      fakeKeys.main,
      '--read-only',
      '--fail-on-skip',
      '--reporter',
      'markdown',
    ]);
    expect(code).toBe(1);
    expect(stdout).toMatch(/^## ❌ petstore-contract: DOES NOT CONFORM \(exit 1\)$/m);
    expect(stdout).toContain('### Coverage (rule x operation)');
    expect(stdout).toMatch(
      /\| \[§4 createCategory\.1\]\(https:\/\/github\.com\/petstore-kit\/petstore-kit\/blob\/v[\d.]+\/docs\/petstore-service-interface\.md#createcategory\) \| [^\n]*SKIP \d+ \\\(read-only run/,
    );
  });

  it('-H adds a header to every request, refuses headers the checks own, and masks credential-like values', async () => {
    const refused = await runCli([
      '--base-url',
      conforming.baseUrl,
      '--api-key',
      fakeKeys.main,
      '-H',
      'Authorization: Bearer x',
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('Failed to use -H Authorization: the checks set this header themselves');
    const malformed = await runCli([
      '--base-url',
      conforming.baseUrl,
      '--api-key',
      fakeKeys.main,
      '-H',
      'no colon here',
    ]);
    expect(malformed.code).toBe(2);
    const before = conforming.requests.length;
    const { code, stdout } = await runCli([
      '--base-url',
      conforming.baseUrl,
      '--api-key',
      fakeKeys.main,
      '--read-only',
      '-H',
      'X-Tenant: acme',
      '-H',
      'X-Api-Session: s3cr3t-session-value',
      '--reporter',
      'json',
    ]);
    expect(code).toBe(0);
    expect(stdout).not.toContain('s3cr3t-session-value');
    expect(conforming.requests.length).toBeGreaterThan(before);
    expect(
      (JSON.parse(stdout) as { settings: { extraHeaders: Record<string, string> } }).settings.extraHeaders,
    ).toEqual({ 'x-tenant': 'acme', 'x-api-session': 's3cr…(20)' });
  });

  it("the JUnit suite time is the run's wall time, not a sum of check times", async () => {
    const output = join(outputDir, 'wall.xml');
    const { code } = await runCli([
      '--base-url',
      conforming.baseUrl,
      '--api-key',
      fakeKeys.main,
      '--read-only',
      '--reporter',
      'junit',
      '--output',
      output,
    ]);
    expect(code).toBe(0);
    const xml = await readFile(output, 'utf8');
    const total = Number(/<testsuites [^>]*time="([\d.]+)"/.exec(xml)![1]);
    const areas = [...xml.matchAll(/<testsuite name="[^"]*" [^>]*time="([\d.]+)"/g)].map((match) => Number(match[1]));
    // Areas run one after the other: their wall times add up to at most the run's.
    expect(areas.reduce((sum, time) => sum + time, 0)).toBeLessThanOrEqual(total + 0.01);
  });

  it('prints a JSON report with --reporter json', async () => {
    const { code, stdout } = await runCli([
      '--base-url',
      broken.baseUrl,
      '--api-key',
      fakeKeys.main,
      '--reporter',
      'json',
      '--seed',
      '7',
    ]);
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as {
      exitCode: number;
      settings: { seed: number; apiKey: string };
      results: { id: string; status: string }[];
    };
    expect(report.exitCode).toBe(1);
    expect(report.settings.seed).toBe(7);
    expect(report.settings.apiKey).not.toContain(fakeKeys.main);
    expect(report.results.find((result) => result.id === 'every.rate-reset-seconds')?.status).toBe('FAIL');
  });
});

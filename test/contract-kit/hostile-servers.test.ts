import { afterEach, describe, expect, it } from 'vitest';
import { renderHtmlReport } from '../../contract-tests/report/html-report.js';
import { renderHumanReport } from '../../contract-tests/report/human-report.js';
import { renderJsonReport } from '../../contract-tests/report/json-report.js';
import { renderJunitReport } from '../../contract-tests/report/junit-report.js';
import { renderMarkdownReport } from '../../contract-tests/report/markdown-report.js';
import { type FakePetstore, fakeKeys, hostileText, startFakePetstore } from './support/fake-petstore.js';
import { runCli } from './support/run-cli.js';
import { resultOf, runKit } from './support/run-kit.js';

/**
 * The kit never lies and never falls over: each test points it at a server that attacks the kit
 * itself (support/fake-petstore.ts `hostile`), and checks that a report still comes out, with a
 * verdict that is true, bounded memory, no secret and no raw control character on a terminal.
 */
describe('the kit against hostile servers', () => {
  let server: FakePetstore | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const allReports = (report: Parameters<typeof renderHumanReport>[0]) => [
    renderHumanReport(report),
    renderJsonReport(report),
    renderJunitReport(report),
    renderMarkdownReport(report),
    renderHtmlReport(report),
  ];

  it('a server answering every request with 429 and Retry-After 999999 is never CONFORMS, and no check passes without evidence', async () => {
    server = await startFakePetstore({ hostile: { kind: 'all-429', retryAfter: '999999', rateHeaders: false } });
    const run = await runKit({ baseUrl: server.baseUrl, apiKey: fakeKeys.main, maxWaitSeconds: 0 });
    expect(run.exitCode).not.toBe(0);
    expect(run.report.verdict).not.toBe('CONFORMS');
    for (const result of run.report.results.filter((entry) => entry.status === 'PASS'))
      expect(result.requests + (result.message?.match(/(\d+) responses checked/) ? 1 : 0), result.id).toBeGreaterThan(
        0,
      );
  });

  for (const retryAfter of ['99999999999999999', 'Sat, 13 Sep 275760 00:00:00 GMT'])
    it(`a 429 with Retry-After ${retryAfter} (no clock can hold it) is a failed rule with evidence, never a crash`, async () => {
      server = await startFakePetstore({ hostile: { kind: 'all-429', retryAfter, rateHeaders: true } });
      const run = await runKit({
        baseUrl: server.baseUrl,
        apiKey: fakeKeys.main,
        rateLimitKey: fakeKeys.limited,
        maxWaitSeconds: 0,
      });
      const everyReport = allReports(run.report).join('\n');
      expect(everyReport).not.toContain('Invalid time value');
      expect(everyReport).not.toContain('RangeError');
      expect(resultOf(run, 'every.429-retry-after')).toMatchObject({
        status: 'FAIL',
        message: expect.stringContaining('no time to wait for'),
      });
      expect(resultOf(run, 'every.429-retry-after').evidence[0]).toMatchObject({ status: 429, header: 'Retry-After' });
      expect(run.exitCode).toBe(1);
    });

  it('a server that rate-limits everything consistently makes the run INCONCLUSIVE (exit 3), naming what stopped it', async () => {
    server = await startFakePetstore({ hostile: { kind: 'all-429', retryAfter: '30', rateHeaders: true } });
    const run = await runKit({ baseUrl: server.baseUrl, apiKey: fakeKeys.main, maxWaitSeconds: 0 });
    expect(run.exitCode).toBe(3);
    expect(run.report.verdict).toBe('INCONCLUSIVE');
    expect(run.report.stoppedBy?.join(' ')).toMatch(/rate/);
    expect(resultOf(run, 'list.ok').inconclusive).toBe(true);
    expect(resultOf(run, 'create.ok').inconclusive).toBe(true);
    expect(renderHumanReport(run.report)).toContain(
      'Verdict: INCONCLUSIVE (exit 3): required checks could not run; stopped by',
    );
  });

  it('reads a 100 MB body only up to --max-body-bytes, says so (INCONCLUSIVE, not a verdict on a body it did not read), and keeps memory bounded', async () => {
    server = await startFakePetstore({ hostile: { kind: 'huge-list-body', bytes: 100 * 1024 * 1024 } });
    const before = process.memoryUsage().rss;
    const run = await runKit({
      baseUrl: server.baseUrl,
      apiKey: fakeKeys.main,
      readOnly: true,
      maxBodyBytes: 256 * 1024,
    });
    expect(process.memoryUsage().rss - before).toBeLessThan(300 * 1024 * 1024);
    const list = resultOf(run, 'list.ok');
    // A body not read whole is judged neither way: the check is INCONCLUSIVE and says why.
    expect(list.inconclusive).toBe(true);
    expect(list.message).toContain(
      'longer than --max-body-bytes 262144; only that much was read, the rest discarded, not judged',
    );
    expect(run.exitCode).toBe(3);
    expect(run.report.stoppedBy).toContain('body too long');
  });

  it('survives an endless chunked body', async () => {
    server = await startFakePetstore({ hostile: { kind: 'endless-list-body' } });
    const run = await runKit({
      baseUrl: server.baseUrl,
      apiKey: fakeKeys.main,
      readOnly: true,
      maxBodyBytes: 64 * 1024,
    });
    expect(resultOf(run, 'list.ok').message).toContain('only that much was read, the rest discarded');
    expect(run.exitCode).toBe(3);
  });

  it('masks every secret in every report format even when the server echoes it', async () => {
    server = await startFakePetstore({ hostile: { kind: 'echo-credentials' } });
    const run = await runKit({
      baseUrl: server.baseUrl,
      apiKey: fakeKeys.main,
      rateLimitKey: fakeKeys.limited,
      headers: ['X-Session-Token: tenant-session-0123456789', 'X-Tenant: acme'],
    });
    const texts = allReports(run.report);
    // The server did echo them: the evidence holds its bodies.
    expect(texts[0]).toContain('you sent');
    for (const text of [...texts, run.log.join('\n')]) {
      for (const secret of [fakeKeys.main, fakeKeys.limited, 'tenant-session-0123456789', fakeKeys.main.toUpperCase()])
        expect(text.toLowerCase()).not.toContain(secret.toLowerCase());
    }
    expect(texts[0]).toContain('fake…(13)');
    expect(run.report.settings.extraHeaders).toEqual({ 'x-session-token': 'tena…(25)', 'x-tenant': 'acme' });
  });

  it('escapes control characters on the terminal and keeps them faithfully in JSON and JUnit', async () => {
    server = await startFakePetstore({ faults: ['text-error-body'], hostile: { kind: 'escape-sequences' } });
    const run = await runKit({ baseUrl: server.baseUrl, apiKey: fakeKeys.main, readOnly: true });
    const [human, json, junit, markdown, html] = allReports(run.report);
    for (const text of [human!, markdown!, html!]) expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/);
    expect(human).toContain('\\x1b[2J');
    expect(JSON.stringify(JSON.parse(json!))).toContain(JSON.stringify(hostileText).slice(1, -1));
    expect(junit).toContain('\\x1b[32mVerdict: CONFORMS');
    expect(junit).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
  });

  it('ends INCONCLUSIVE (exit 3) when the server goes away mid-run, and still reports', async () => {
    server = await startFakePetstore({ hostile: { kind: 'dies-after', requests: 30 } });
    const run = await runKit({ baseUrl: server.baseUrl, apiKey: fakeKeys.main });
    expect(run.exitCode).toBe(3);
    expect(run.report.stoppedBy).toContain('the server became unreachable mid-run');
  });

  it('stops at --deadline with a report, the unfinished checks INCONCLUSIVE', async () => {
    server = await startFakePetstore({ hostile: { kind: 'slow', delayMs: 250 } });
    const started = Date.now();
    const run = await runKit({ baseUrl: server.baseUrl, apiKey: fakeKeys.main, deadlineSeconds: 2 });
    // Wall clock (the kit waits on a server): ~2.0 s on a quiet machine, 6 x that for a loaded CI.
    expect(Date.now() - started).toBeLessThan(12_000);
    expect(run.exitCode).toBe(3);
    expect(run.report.stoppedBy?.some((reason) => reason.includes('--deadline 2 s'))).toBe(true);
    expect(run.report.results.length).toBeGreaterThan(50);
  });

  it('a cancelled run (Ctrl-C) still returns its report, INCONCLUSIVE', async () => {
    server = await startFakePetstore({ hostile: { kind: 'slow', delayMs: 200 } });
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 1_000);
    const run = await runKit({ baseUrl: server.baseUrl, apiKey: fakeKeys.main, signal: abort.signal });
    expect(run.exitCode).toBe(3);
    expect(run.report.stoppedBy).toContain('the run was cancelled');
  });

  it('never prints the password of a user:password@ base URL', async () => {
    const { code, stderr, stdout } = await runCli([
      '--base-url',
      'http://alice:pa55w0rd-secret@127.0.0.1:1/v1',
      '--api-key',
      'k-123456',
    ]);
    expect(code).toBe(2);
    expect(stderr + stdout).not.toContain('pa55w0rd-secret');
    expect(stderr).toContain('http://***@127.0.0.1:1/v1');
  });
});

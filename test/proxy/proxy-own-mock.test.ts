import { afterEach, describe, expect, it } from 'vitest';
import { parseLabReport } from '../../src/lab/lab-report-schema.js';
import type { LabReport } from '../../src/lab/lab-types.js';
import { type RunningProxyServer, startProxyServer } from '../../src/server/proxy-server.js';
import { type RunningMockServer, startMockServer } from '../../src/server/start-server.js';
import { scriptedClients } from '../support/lab-scripted-clients.js';
import { driveTraffic } from './proxy-traffic.js';

/**
 * The proxy in front of our own mock (in process, ephemeral ports): real traffic with 401s, 400s,
 * 429s and a ban breaks no server rule; and behind the lab's scripted clients, the proxy's client
 * verdicts are the ones the mock's own lab gives the same traffic (GET /__mock/report of the mock).
 */
describe('the judging proxy in front of our mock', () => {
  let mock: RunningMockServer | undefined;
  let proxy: RunningProxyServer | undefined;
  afterEach(async () => {
    await proxy?.close();
    await mock?.close();
    proxy = undefined;
    mock = undefined;
  });

  it('judges real traffic (401, 400, 404, 405, deprecated, 429, ban) and no server rule fails', async () => {
    mock = await startMockServer({ port: 0 });
    proxy = await startProxyServer({ upstream: mock.baseUrl, port: 0 });
    const traffic = await driveTraffic(proxy.baseUrl, { main: 'demo-pro', limited: 'demo-free' }, { afterLimit: 12 });
    const statuses = new Set(traffic.map((exchange) => exchange.status));
    for (const status of [200, 201, 400, 401, 404, 405, 429]) expect(statuses, String(status)).toContain(status);
    expect(traffic.some((exchange) => (exchange.json as { code?: string })?.code === 'key_banned')).toBe(true);
    const report = proxy.report();
    expect(
      report.server.rules.filter((rule) => rule.outcome === 'fail').map((rule) => [rule.id, rule.evidence]),
    ).toEqual([]);
    const judged = Object.fromEntries(report.server.rules.map((rule) => [rule.id, rule.judged]));
    expect(judged['rate.remaining-exact']).toBeGreaterThan(60);
    expect(judged['rate.429-only-when-exhausted']).toBe(1);
    expect(judged['rate.retry-after-matches-reset']).toBe(1);
    expect(judged['every.schema']).toBe(traffic.length);
    // The client that kept sending after its 429 was banned: the lab says so, as it would of the mock.
    const free = report.client.clients.find((client) => client.requests.refused429 > 0)!;
    expect(free.client).toMatch(/^client-[0-9a-f]{12}$/);
    expect(free.verdicts.find((verdict) => verdict.rule === 'no-hammering')?.outcome).toBe('fail');
  });

  it('forwards HEAD as HEAD and judges its answer as the GET operation without content: no rule fails', async () => {
    mock = await startMockServer({ port: 0 });
    proxy = await startProxyServer({ upstream: mock.baseUrl, port: 0 });
    const head = (path: string, key?: string) =>
      fetch(`${proxy!.baseUrl}${path}`, {
        method: 'HEAD',
        headers: key === undefined ? {} : { authorization: `Bearer ${key}` },
      });
    const get = await fetch(`${proxy.baseUrl}/categories`, { headers: { authorization: 'Bearer demo-pro' } });
    const length = new TextEncoder().encode(await get.text()).byteLength;
    const answers = [
      await head('/categories', 'demo-pro'),
      await head('/pets/1', 'demo-pro'),
      await head('/categories'),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 401]);
    expect(answers[0]!.headers.get('content-length')).toBe(String(length));
    for (const answer of answers) expect(await answer.text()).toBe('');
    // The upstream was sent HEAD, not GET: its own log says so.
    const upstreamLog = (await (await fetch(`${mock.origin}/__mock/requests`)).json()) as { method: string }[];
    expect(upstreamLog.map((entry) => entry.method)).toEqual(['GET', 'HEAD', 'HEAD', 'HEAD']);
    const report = proxy.report();
    expect(
      report.server.rules.filter((rule) => rule.outcome === 'fail').map((rule) => [rule.id, rule.evidence]),
    ).toEqual([]);
    const judged = Object.fromEntries(report.server.rules.map((rule) => [rule.id, rule.judged]));
    // Every answer's head is judged (rate fields, deprecation); only the GET has a body to hold to the schema.
    expect(judged['every.rate-headers-present']).toBe(4);
    expect(judged['every.schema']).toBe(1);
    const exported = proxy.judge.exportLines().map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(exported.filter((line) => line.method !== undefined).map((line) => [line.method, line.operationId])).toEqual(
      [
        ['GET', 'listCategories'],
        ['HEAD', 'listCategories'],
        ['HEAD', 'getPetById'],
        ['HEAD', 'listCategories'],
      ],
    );
  });

  it.each(scriptedClients)(
    'behind the scripted client that $name: the lab verdicts of the mock itself',
    async ({ policy, expected }) => {
      let nowMs = Date.parse('2026-03-02T10:00:00.000Z');
      const clock = { now: () => nowMs };
      mock = await startMockServer({ port: 0, clock });
      proxy = await startProxyServer({ upstream: mock.baseUrl, port: 0, now: clock.now });
      const send = (path: string) =>
        fetch(`${proxy!.baseUrl}${path}`, { headers: { authorization: 'Bearer demo-free' } }).then(async (response) => {
          await response.arrayBuffer();
          return response;
        });
      const retry = policy();
      await send('/pets/1');
      let response = await send('/categories');
      while (response.status !== 429) {
        nowMs += 500;
        response = await send('/categories');
      }
      for (let attempt = 0; attempt < 40 && response.status === 429; attempt += 1) {
        const wait = retry(attempt, Number(response.headers.get('retry-after')));
        if (wait === null) break;
        nowMs += wait;
        response = await send('/categories');
      }
      const outcomes = (report: Pick<LabReport, 'clients'>) =>
        Object.fromEntries(report.clients[0]!.verdicts.map((verdict) => [verdict.rule, verdict.outcome]));
      const ofMock = parseLabReport(await (await fetch(`${mock.origin}/__mock/report`)).text());
      const report = proxy.report();
      expect(report.client.clients).toHaveLength(1);
      // The proxy's `client` is the lab's report with its outcome: the lab report's schema reads it.
      const { outcome: _outcome, ...labReport } = report.client;
      expect(parseLabReport(JSON.stringify(labReport))).toEqual(labReport);
      expect(outcomes(report.client)).toEqual(outcomes(ofMock));
      expect(outcomes(report.client)).toEqual(expected);
      expect(
        report.server.rules.filter((rule) => rule.outcome === 'fail').map((rule) => [rule.id, rule.evidence]),
      ).toEqual([]);
    },
  );
});

/**
 * The rate-limit lab through the running mock (issue 12 section 1 and 2): the scripted clients talk
 * HTTP to a real node:http mock, each in its own session, waiting by advancing that session's
 * virtual clock; their verdicts come from GET /__mock/report (JSON and JUnit), judged by the core
 * from its own rate decisions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFixedClock } from '../../src/core/clock.js';
import { parseLabReport } from '../../src/lab/lab-report-schema.js';
import type { LabReport, Verdict } from '../../src/lab/lab-types.js';
import { type RunningMockServer, startMockServer } from '../../src/server/start-server.js';
import { testEpochMs } from '../support/core-test-app.js';
import { type RetryPolicy, scriptedClients } from '../support/lab-scripted-clients.js';

let mock: RunningMockServer;

beforeAll(async () => {
  mock = await startMockServer({ port: 0, seed: 1, clock: createFixedClock(testEpochMs) });
});
afterAll(async () => {
  await mock.close();
});

function send(
  session: string,
  path: string,
  init: { key?: string; method?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { 'x-mock-session': session, ...init.headers };
  if (init.key !== undefined) headers.authorization = `Bearer ${init.key}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  return fetch(`${mock.origin}${path}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

async function advance(session: string, ms: number): Promise<void> {
  if (ms <= 0) return;
  const response = await send(session, '/__mock/clock', { method: 'POST', body: { advanceSeconds: ms / 1000 } });
  expect(response.status).toBe(200);
}

async function reportOf(session: string): Promise<LabReport> {
  const response = await send(session, '/__mock/report');
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return parseLabReport(await response.text());
}

/** The scripted client of src/lab/scripted-clients.test.ts, over HTTP in its own session. */
async function runClient(session: string, policy: RetryPolicy, maxRetries = 40): Promise<LabReport> {
  const get = async (path: string) => {
    const response = await send(session, path, { key: 'demo-free' });
    await response.arrayBuffer();
    return response;
  };
  await get('/v1/pets/1');
  let response = await get('/v1/categories');
  while (response.status !== 429) {
    await advance(session, 500);
    response = await get('/v1/categories');
  }
  for (let attempt = 0; attempt < maxRetries && response.status === 429; attempt += 1) {
    const wait = policy(attempt, Number(response.headers.get('retry-after')));
    if (wait === null) break;
    await advance(session, wait);
    response = await get('/v1/categories');
  }
  return reportOf(session);
}

const outcomes = (report: LabReport, client = 'demo-free'): Record<string, Verdict['outcome']> =>
  Object.fromEntries(
    report.clients
      .find((candidate) => candidate.client === client)!
      .verdicts.map((verdict) => [verdict.rule, verdict.outcome]),
  );

describe('GET /__mock/report on the running mock', () => {
  scriptedClients.forEach((client, index) => {
    it(`judges the client that ${client.name}, the same on every run`, async () => {
      const report = await runClient(`proof-${index}`, client.policy());
      expect(report.session).toBe(`proof-${index}`);
      expect(report.clients.map((entry) => entry.client)).toEqual(['demo-free']);
      expect(outcomes(report)).toEqual(client.expected);
      const again = await runClient(`proof-${index}-again`, client.policy());
      expect(JSON.stringify({ ...again, session: '' })).toBe(JSON.stringify({ ...report, session: '' }));
    });
  });

  it('covers every verdict outcome through HTTP (pass, fail, not-exercised, info)', async () => {
    const seen = new Set<string>();
    for (let index = 0; index < scriptedClients.length; index += 1) {
      for (const outcome of Object.values(outcomes(await reportOf(`proof-${index}`)))) seen.add(outcome);
    }
    expect([...seen].sort()).toEqual(['fail', 'info', 'not-exercised', 'pass']);
  });

  it('pins the report shape: session, clock, clients with plan, limits, counts and verdicts, coverage', async () => {
    const session = 'shape';
    await (await send(session, '/v1/categories', { key: 'demo-free' })).arrayBuffer();
    await (await send(session, '/v1/categories', { key: 'not-a-key' })).arrayBuffer();
    await (
      await send(session, '/v1/categories', { key: 'demo-pro', method: 'POST', body: { nom: 'x' } })
    ).arrayBuffer();
    await (await send(session, '/v1/categories', { key: 'demo-pro', headers: { prefer: 'code=429' } })).arrayBuffer();
    await (await send(session, '/v1/store/orders')).arrayBuffer();
    const report = await reportOf(session);
    expect(Object.keys(report).sort()).toEqual(['clients', 'clock', 'coverage', 'generatedAt', 'session', 'version']);
    expect(report.clock).toEqual({
      now: '2026-01-01T00:00:00.000Z',
      epochSeconds: testEpochMs / 1000,
      offsetSeconds: 0,
    });
    expect(report.generatedAt).toBe(report.clock.now);
    const free = report.clients.find((client) => client.client === 'demo-free')!;
    expect(free).toEqual({
      client: 'demo-free',
      kind: 'key',
      plan: 'free',
      limits: { perMinute: 60, perDay: 1000 },
      requests: { total: 1, byStatus: { '200': 1 }, refused429: 0 },
      verdicts: expect.any(Array),
    });
    expect(free.verdicts.map((verdict) => verdict.rule)).toEqual([
      'retry-after-honoured',
      'backoff-growing',
      'no-hammering',
      'deprecated-operation',
      'retries-idempotent',
      'no-blind-resend',
      'bounded-attempts',
    ]);
    for (const verdict of free.verdicts) {
      expect(Object.keys(verdict).sort()).toEqual(['evidence', 'outcome', 'rule']);
      expect(typeof verdict.evidence.summary).toBe('string');
    }
    // A key the mock does not know and no key at all are both the anonymous client of that address.
    const anonymous = report.clients.find((client) => client.kind === 'anonymous')!;
    expect(anonymous).toMatchObject({
      client: 'anonymous 127.0.0.1',
      plan: 'anonymous',
      limits: { perMinute: 60, perDay: 1000 },
    });
    expect(anonymous.requests.byStatus).toEqual({ '401': 2 });
    const pro = report.clients.find((client) => client.client === 'demo-pro')!;
    expect(pro.requests).toEqual({ total: 2, byStatus: { '400': 1, '429': 1 }, refused429: 1 });
    const list = report.coverage.operations.find((operation) => operation.operationId === 'listCategories')!;
    expect(list).toEqual({
      operationId: 'listCategories',
      method: 'GET',
      path: '/categories',
      statuses: [
        { status: 200, organic: 1, forced: 0 },
        { status: 401, organic: 1, forced: 0 },
        { status: 429, organic: 0, forced: 1 },
      ],
    });
    expect(Object.keys(report.coverage.situations).sort()).toEqual([
      '400',
      '401',
      '429',
      'ban',
      'deprecated-call',
      'window-reset',
    ]);
    expect(report.coverage.situations['401']).toEqual({ met: true, count: 2, firstAt: '2026-01-01T00:00:00.000Z' });
    expect(report.coverage.situations['400'].met).toBe(true);
    expect(report.coverage.situations.ban).toEqual({ met: false, count: 0, firstAt: null });
  });

  it('serves JUnit with ?format=junit: one testcase per client and rule, a failure for a rule broken', async () => {
    const index = scriptedClients.findIndex((client) => client.name === 'hammers until banned');
    const response = await send(`proof-${index}`, '/__mock/report?format=junit');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    const xml = await response.text();
    expect(xml.startsWith('<?xml')).toBe(true);
    expect(xml.match(/<testcase /g)).toHaveLength(7);
    expect(xml.match(/<failure /g)!.length).toBeGreaterThanOrEqual(3);
    expect(xml).toContain('no-hammering');
  });

  it("refuses an unknown format, and a reset forgets the session's report (the other sessions keep theirs)", async () => {
    const bad = await send('proof-0', '/__mock/report?format=html');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 'invalid_control_request', status: 400 });
    const session = 'to-reset';
    await (await send(session, '/v1/categories', { key: 'demo-free' })).arrayBuffer();
    expect((await reportOf(session)).clients).toHaveLength(1);
    expect((await send(session, '/__mock/reset', { method: 'POST' })).status).toBe(200);
    const after = await reportOf(session);
    expect(after.clients).toEqual([]);
    expect(after.coverage.operations).toEqual([]);
    expect((await reportOf('proof-0')).clients).toHaveLength(1);
  });

  it("is never counted or judged itself, and keeps the controls' protections (a foreign Origin is refused)", async () => {
    const session = 'protected';
    const foreign = await send(session, '/__mock/report', { headers: { origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ code: 'control_forbidden' });
    expect((await reportOf(session)).clients).toEqual([]);
  });
});

describe('GET /__mock/report with a control token', () => {
  it('needs the token like every control', async () => {
    const guarded = await startMockServer({ port: 0, seed: 1, config: { controlToken: 'sesame-1234' } });
    try {
      const refused = await fetch(`${guarded.origin}/__mock/report`);
      expect(refused.status).toBe(403);
      const served = await fetch(`${guarded.origin}/__mock/report?format=junit`, {
        headers: { 'x-mock-control-token': 'sesame-1234' },
      });
      expect(served.status).toBe(200);
      await served.text();
    } finally {
      await guarded.close();
    }
  });
});

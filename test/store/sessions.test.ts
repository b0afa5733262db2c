import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runContract } from '../../contract-tests/index.js';
import { type RunningMockServer, startMockServer } from '../../src/server/start-server.js';
import { type RedisServerHandle, redisTestGate, startRedisServer } from '../support/redis-server.js';

const gate = redisTestGate();

interface Exchange {
  status: number;
  headers: Headers;
  json: any;
}

async function send(
  mock: RunningMockServer,
  session: string | undefined,
  method: string,
  path: string,
  options: { key?: string; json?: unknown } = {},
): Promise<Exchange> {
  const headers: Record<string, string> = {};
  if (session !== undefined) headers['x-mock-session'] = session;
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  if (options.json !== undefined) headers['content-type'] = 'application/json';
  const url = path.startsWith('/__mock') ? `${mock.origin}${path}` : `${mock.baseUrl}${path}`;
  const response = await fetch(url, {
    method,
    headers,
    body: options.json === undefined ? undefined : JSON.stringify(options.json),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: text === '' ? null : JSON.parse(text) };
}

/**
 * One session's full cycle: spend the Free key to 429 and a ban, create categories, move the clock,
 * check that only its own world changed, reset. Returns what it saw, for the isolation checks.
 */
async function fullCycle(mock: RunningMockServer, session: string): Promise<void> {
  const created: number[] = [];
  for (let index = 0; index < 3; index += 1) {
    const response = await send(mock, session, 'POST', '/categories', {
      key: 'demo-enterprise',
      json: { name: `${session}-${index}` },
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-mock-session')).toBe(session);
    created.push(response.json.id);
  }
  // Every session has its own id sequence: the seeds are 1..3, so its creations are 4, 5, 6.
  expect(created).toEqual([4, 5, 6]);
  const statuses: number[] = [];
  let banned: Exchange | undefined;
  for (let index = 0; index < 80 && !banned; index += 1) {
    const response = await send(mock, session, 'GET', '/categories', { key: 'demo-free' });
    statuses.push(response.status);
    if (response.json?.code === 'key_banned') banned = response;
  }
  expect(statuses.filter((status) => status === 200)).toHaveLength(60);
  expect(banned?.status).toBe(429);
  const listed = await send(mock, session, 'GET', '/categories', { key: 'demo-enterprise' });
  expect(
    listed.json.map((category: { name: string }) => category.name).filter((name: string) => /^s\d+-\d$/.test(name)),
  ).toEqual([`${session}-0`, `${session}-1`, `${session}-2`]);
  const clock = await send(mock, session, 'POST', '/__mock/clock', { json: { advanceSeconds: 3_600 } });
  expect(clock.json.offsetSeconds).toBe(3_600);
  const log = await send(mock, session, 'GET', '/__mock/requests');
  expect(log.json.length).toBeGreaterThan(60);
  const reset = await send(mock, session, 'POST', '/__mock/reset');
  expect(reset.status).toBe(200);
  expect((await send(mock, session, 'GET', '/categories', { key: 'demo-free' })).status).toBe(200);
  // The clock survives a reset (it is the session's, not its data).
  expect((await send(mock, session, 'GET', '/__mock/clock')).json.offsetSeconds).toBe(3_600);
}

const stores = [
  { name: 'in memory', needsRedis: false },
  { name: 'on Redis', needsRedis: true },
];

for (const target of stores) {
  const skip = target.needsRedis && gate.skip;
  describe.skipIf(skip)(
    `sessions ${target.name}${skip ? ` (skipped: ${(gate as { reason: string }).reason})` : ''}`,
    () => {
      let redis: RedisServerHandle | undefined;
      let mock: RunningMockServer;
      beforeAll(async () => {
        if (target.needsRedis) redis = await startRedisServer();
        mock = await startMockServer({
          port: 0,
          config: {
            sessions: { maxSessions: 30, idleSeconds: 600 },
            ...(redis ? { store: { url: redis.url, prefix: `sessions-${process.pid}:` } } : {}),
          },
        });
      }, 30_000);
      afterAll(async () => {
        await mock?.close(1_000);
        await redis?.stop();
      });

      it('20 concurrent sessions each drive a full cycle with no effect on each other, while the contract suite passes in another; the default session is untouched', async () => {
        const before = await send(mock, undefined, 'GET', '/categories', { key: 'demo-pro' });
        const contract = runContract({
          baseUrl: mock.baseUrl,
          apiKey: 'demo-enterprise',
          rateLimitKey: 'demo-free',
          headers: { 'X-Mock-Session': 'contract-run' },
          deadlineSeconds: 120,
          log: () => {},
        });
        await Promise.all(Array.from({ length: 20 }, (_, index) => fullCycle(mock, `s${index}`)));
        const run = await contract;
        const failures = run.report.results
          .filter((result) => result.status === 'FAIL')
          .map((result) => `${result.id}: ${result.message ?? ''}`);
        expect(failures).toEqual([]);
        expect(run.exitCode).toBe(0);
        expect(run.report.summary.PASS).toBeGreaterThan(20);

        // The default session saw none of it: same list, its own fresh budget, its clock unmoved, no log lines of others.
        const after = await send(mock, undefined, 'GET', '/categories', { key: 'demo-pro' });
        expect(after.json).toEqual(before.json);
        expect(after.headers.get('x-ratelimit-remaining')).toBe('298');
        expect((await send(mock, undefined, 'GET', '/__mock/clock')).json.offsetSeconds).toBe(0);
        const defaultLog = (await send(mock, undefined, 'GET', '/__mock/requests')).json as { plan: string }[];
        expect(defaultLog.filter((entry) => entry.plan === 'free')).toEqual([]);
        const sessions = (await send(mock, undefined, 'GET', '/__mock/sessions')).json as {
          sessions: { name: string }[];
        };
        expect(sessions.sessions.map((entry) => entry.name)).toEqual(
          expect.arrayContaining(['default', 'contract-run', 's0', 's19']),
        );
      }, 180_000);

      it('refuses a bad session name with 400 invalid_session, and a session past maxSessions with 503 too_many_sessions', async () => {
        const bad = await send(mock, 'bad name!', 'GET', '/categories', { key: 'demo-pro' });
        expect(bad.status).toBe(400);
        expect(bad.json).toMatchObject({ code: 'invalid_session', status: 400 });
        const statuses: Exchange[] = [];
        for (let index = 0; index < 40; index += 1)
          statuses.push(await send(mock, `overflow-${index}`, 'GET', '/categories', { key: 'demo-pro' }));
        const refused = statuses.find((response) => response.status === 503)!;
        expect(refused.json).toMatchObject({ code: 'too_many_sessions', status: 503 });
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      });
    },
  );
}

describe.skipIf(gate.skip)(
  `Redis stopped under load${gate.skip ? ` (skipped: ${(gate as { reason: string }).reason})` : ''}`,
  () => {
    it('answers every request with a 503 store_unavailable Error or a normal answer, never hangs past the timeout, and serves again once Redis is back', async () => {
      const redis = await startRedisServer();
      const mock = await startMockServer({
        port: 0,
        config: { store: { url: redis.url, timeoutMs: 1_000, retryAfterSeconds: 2 } },
      });
      try {
        const outcomes: string[] = [];
        const slowest: number[] = [];
        const load = async (count: number) => {
          await Promise.all(
            Array.from({ length: count }, async (_, index) => {
              const started = performance.now();
              const response = await send(
                mock,
                index % 2 === 0 ? undefined : 'outage',
                index % 3 === 0 ? 'POST' : 'GET',
                '/categories',
                { key: 'demo-enterprise', json: index % 3 === 0 ? { name: 'x' } : undefined },
              );
              slowest.push(performance.now() - started);
              if (response.status === 503) {
                expect(response.json).toMatchObject({ code: 'store_unavailable', status: 503 });
                expect(Number(response.headers.get('retry-after'))).toBe(2);
                outcomes.push('503');
              } else {
                expect([200, 201]).toContain(response.status);
                outcomes.push('ok');
              }
            }),
          );
        };
        const during = load(300);
        await redis.stop();
        await during;
        await load(100);
        expect(outcomes).toContain('503');
        // The store's timeout (1 s) plus its sweep, with room for a busy machine: never a hang.
        expect(Math.max(...slowest)).toBeLessThan(4_000);
        await redis.start();
        let served = 0;
        for (let attempt = 0; attempt < 50 && served === 0; attempt += 1) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          if ((await send(mock, undefined, 'GET', '/categories', { key: 'demo-enterprise' })).status === 200)
            served += 1;
        }
        expect(served).toBe(1);
        expect(
          (await send(mock, 'outage', 'POST', '/categories', { key: 'demo-enterprise', json: { name: 'back' } }))
            .status,
        ).toBe(201);
      } finally {
        await mock.close(1_000);
        await redis.stop();
      }
    }, 60_000);
  },
);

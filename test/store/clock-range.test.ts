import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFixedClock } from '../../src/core/clock.js';
import { createMockApp, type MockApp, mockStoreOptions } from '../../src/core/mock-app.js';
import { createMemoryStore } from '../../src/core/state/memory-store.js';
import type { StateStore } from '../../src/core/state/state-store.js';
import { connectRedisStore } from '../../src/server/redis-store.js';
import { specDocument, testEpochMs } from '../support/core-test-app.js';
import { mockRequest } from '../support/interface-client.js';
import { type RedisServerHandle, redisTestGate, startRedisServer } from '../support/redis-server.js';
import { uniquePrefix } from './fixtures.js';

/**
 * The virtual clock stays where a JavaScript Date can follow it: a move past 100 years ahead (in
 * steps, or at once by a scenario) is a 400 that changes nothing, every answer keeps a real `Date`,
 * and a session whose stored clock is already out of range (data from an older mock) says so and is
 * repaired by its reset.
 */
const gate = redisTestGate();
let redis: RedisServerHandle;
beforeAll(async () => {
  if (!gate.skip) redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

const options = mockStoreOptions({ spec: specDocument, config: {}, seed: 1 });
const yearSeconds = 365 * 86_400;
const encoder = new TextEncoder();

const targets: { name: string; skip: boolean; open(prefix: string): Promise<StateStore> }[] = [
  { name: 'memory', skip: false, open: async () => createMemoryStore(options) },
  {
    name: `redis${gate.skip ? ` (skipped: ${gate.reason})` : ''}`,
    skip: gate.skip,
    open: (prefix) => connectRedisStore({ url: redis.url, prefix }, options),
  },
];

const post = (path: string, body: unknown, session = 'far') =>
  mockRequest(
    'POST',
    path,
    {
      headers: { 'x-mock-session': session, 'content-type': 'application/json' },
      body: encoder.encode(JSON.stringify(body)),
    },
    '127.0.0.1',
  );
const get = (path: string, session = 'far', key?: string) =>
  mockRequest('GET', path, { headers: { 'x-mock-session': session }, ...(key ? { key } : {}) }, '127.0.0.1');

/** Every answer of the session that shows its clock: each a real status and a real Date. */
async function everyClockAnswer(
  app: MockApp,
  session = 'far',
): Promise<{ path: string; status: number; date: string }[]> {
  const answers = [];
  for (const [path, key] of [
    ['/v1/categories', 'demo-free'],
    ['/v1/pets/1', 'demo-pro'],
    ['/__mock/clock'],
    ['/__mock/report'],
    ['/__mock/requests?format=jsonl'],
    ['/__mock/dashboard'],
    ['/__mock/health'],
  ] as const) {
    const response = await app.handle(get(path, session, key));
    answers.push({ path, status: response.status, date: response.headers.Date ?? '' });
  }
  return answers;
}

for (const target of targets) {
  describe.skipIf(target.skip)(`the virtual clock's range: ${target.name}`, () => {
    const opened: MockApp[] = [];
    afterAll(async () => {
      await Promise.all(opened.map((app) => app.close()));
    });
    const mock = async (prefix = uniquePrefix()) => {
      const app = createMockApp({
        spec: specDocument,
        seed: 1,
        clock: createFixedClock(testEpochMs),
        store: await target.open(prefix),
      });
      opened.push(app);
      return app;
    };

    it('refuses a clock step that takes the session past 100 years ahead with 400, and keeps the clock where it was', async () => {
      const app = await mock();
      for (let step = 1; step <= 10; step += 1)
        expect((await app.handle(post('/__mock/clock', { advanceSeconds: 10 * yearSeconds }))).status).toBe(200);
      const refused = await app.handle(post('/__mock/clock', { advanceSeconds: 10 * yearSeconds }));
      expect(refused.status).toBe(400);
      expect(JSON.parse(refused.body!)).toMatchObject({ code: 'invalid_control_request', status: 400 });
      expect(JSON.parse(refused.body!).message).toMatch(/100 years/);
      const clock = JSON.parse((await app.handle(get('/__mock/clock'))).body!);
      expect(clock.offsetSeconds).toBe(100 * yearSeconds);
      for (const answer of await everyClockAnswer(app)) {
        expect(answer.status, answer.path).toBeLessThan(500);
        expect(Number.isNaN(Date.parse(answer.date)), `${answer.path}: Date ${answer.date}`).toBe(false);
      }
    });

    it('refuses a scenario clock or offset past 100 years ahead, and a clock beyond what a Date holds, with 400', async () => {
      const app = await mock();
      for (const clock of [{ at: '2200-01-01T00:00:00Z' }, { at: '9999-12-31T23:59:59Z' }]) {
        const refused = await app.handle(post('/__mock/scenario', { clock }));
        expect(refused.status, JSON.stringify(clock)).toBe(400);
        expect(JSON.parse(refused.body!).message).toMatch(/clock/);
      }
      expect((await app.handle(post('/__mock/scenario', { clock: { offsetSeconds: 60 * yearSeconds } }))).status).toBe(
        200,
      );
      expect((await app.handle(post('/__mock/scenario', { clock: { offsetSeconds: 60 * yearSeconds } }))).status).toBe(
        400,
      );
      expect(JSON.parse((await app.handle(get('/__mock/clock'))).body!).offsetSeconds).toBe(60 * yearSeconds);
      for (const answer of await everyClockAnswer(app))
        expect(Number.isNaN(Date.parse(answer.date)), `${answer.path}: Date ${answer.date}`).toBe(false);
    });

    it.runIf(target.name.startsWith('redis'))(
      'a session whose stored clock is out of range answers 503 store_corrupt with a real Date, and its reset repairs it',
      async () => {
        const prefix = uniquePrefix();
        const app = await mock(prefix);
        expect((await app.handle(get('/v1/categories', 'old-data', 'demo-free'))).status).toBe(200);
        const raw = createClient({ url: redis.url });
        raw.on('error', () => {});
        await raw.connect();
        // What an older mock could leave: an offset of 300,000 years.
        await raw.hSet(`${prefix}{old-data}:meta`, 'off', String(300_000 * yearSeconds * 1_000));
        raw.destroy();
        for (const answer of await everyClockAnswer(app, 'old-data')) {
          expect(answer.status, answer.path).not.toBe(500);
          expect(Number.isNaN(Date.parse(answer.date)), `${answer.path}: Date ${answer.date}`).toBe(false);
        }
        const broken = await app.handle(get('/v1/categories', 'old-data', 'demo-free'));
        expect(broken.status).toBe(503);
        expect(JSON.parse(broken.body!)).toMatchObject({ code: 'store_corrupt' });
        expect(JSON.parse(broken.body!).message).toMatch(/reset/);
        expect((await app.handle(post('/__mock/reset', {}, 'old-data'))).status).toBe(200);
        expect(JSON.parse((await app.handle(get('/__mock/clock', 'old-data'))).body!).offsetSeconds).toBe(0);
        expect((await app.handle(get('/v1/categories', 'old-data', 'demo-free'))).status).toBe(200);
      },
    );
  });
}

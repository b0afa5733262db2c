import { createHash } from 'node:crypto';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFixedClock } from '../../src/core/clock.js';
import { createMockApp, type MockApp, mockStoreOptions } from '../../src/core/mock-app.js';
import type { MockRequest, MockResponse } from '../../src/core/types.js';
import { connectRedisStore } from '../../src/server/redis-store.js';
import { specDocument, testEpochMs } from '../support/core-test-app.js';
import { mockRequest } from '../support/interface-client.js';
import { type RedisServerHandle, redisTestGate, startRedisServer } from '../support/redis-server.js';
import { uniquePrefix } from './fixtures.js';

/**
 * Data under the prefix that the mock did not write (another tool's key of the wrong type, a list
 * entry that is no category, a meta field that is no number, a log line that is no JSON) is answered
 * by every replica with one clear 503 store_corrupt naming the keys and how to clean them, never a
 * 500 and never a 200 whose body is not JSON; `POST /__mock/reset` of the session rewrites its keys.
 */
const gate = redisTestGate();
const encoder = new TextEncoder();
const options = mockStoreOptions({ spec: specDocument, config: {}, seed: 1 });
const digestOf = (key: string) => createHash('sha256').update(key).digest('hex');

let redis: RedisServerHandle;
let raw: ReturnType<typeof createClient>;
beforeAll(async () => {
  if (gate.skip) return;
  redis = await startRedisServer();
  raw = createClient({ url: redis.url });
  raw.on('error', () => {});
  await raw.connect();
});
afterAll(async () => {
  raw?.destroy();
  await redis?.stop();
});

const headersOf = (session: string): Record<string, string> =>
  session === 'default' ? {} : { 'x-mock-session': session };
/** What a client and a developer send a session: the API, and every control that reads the store. */
function requestsFor(session: string): MockRequest[] {
  const headers = headersOf(session);
  const json = (path: string, body: unknown) =>
    mockRequest(
      'POST',
      path,
      {
        key: 'demo-free',
        headers: { ...headers, 'content-type': 'application/json' },
        body: encoder.encode(JSON.stringify(body)),
      },
      '10.0.0.1',
    );
  return [
    mockRequest('GET', '/v1/categories', { key: 'demo-free', headers }, '10.0.0.1'),
    mockRequest('GET', '/v1/categories', { headers }, '10.0.0.2'),
    json('/v1/categories', { name: 'otter' }),
    mockRequest('GET', '/v1/pets/1', { key: 'demo-pro', headers }, '10.0.0.1'),
    ...[
      '/__mock/clock',
      '/__mock/keys',
      '/__mock/requests',
      '/__mock/requests?format=jsonl',
      '/__mock/categories',
      '/__mock/health',
      '/__mock/report',
      '/__mock/dashboard',
      '/__mock/sessions',
    ].map((path) => mockRequest('GET', path, { headers }, '127.0.0.1')),
    json('/__mock/keys', { key: 'added-key', plan: 'pro' }),
    json('/__mock/clock', { advanceSeconds: 1 }),
    json('/__mock/scenario', { keys: [{ key: 'demo-free', spent: { minute: 1 } }], categories: [{ name: 'seal' }] }),
  ].map((request) => ({
    ...request,
    clientAddress: request.url.startsWith('/__mock') ? '127.0.0.1' : request.clientAddress,
  }));
}

/** Each answer is a real answer or the one corrupt answer: never 500, never a JSON type with a body that is not JSON. */
function expectNoBrokenAnswer(response: MockResponse, what: string): void {
  expect(response.status, `${what}: ${response.body?.slice(0, 300)}`).not.toBe(500);
  if (/^application\/json(;|$)/.test(response.headers['Content-Type'] ?? '') && response.body !== null)
    expect(() => JSON.parse(response.body!), what).not.toThrow();
}

type Corruption = { name: string; session: string; corrupt(prefix: string): Promise<unknown> };
const at = (prefix: string, session: string, name: string) => `${prefix}{${session}}:${name}`;
const corruptions: Corruption[] = [
  {
    name: 'the category list is a string',
    session: 'victim',
    corrupt: async (prefix) => {
      await raw.del(at(prefix, 'victim', 'cats'));
      await raw.set(at(prefix, 'victim', 'cats'), 'hello');
    },
  },
  {
    name: 'a category entry is not JSON',
    session: 'victim',
    corrupt: (prefix) => raw.rPush(at(prefix, 'victim', 'cats'), 'hello'),
  },
  {
    name: 'a category entry was edited into invalid JSON',
    session: 'victim',
    corrupt: (prefix) => raw.lSet(at(prefix, 'victim', 'cats'), 0, '{"id":1,"name":"x"oops}'),
  },
  {
    name: 'the meta clock is not a number',
    session: 'victim',
    corrupt: (prefix) => raw.hSet(at(prefix, 'victim', 'meta'), 'off', 'abc'),
  },
  {
    name: 'the meta key is a string',
    session: 'victim',
    corrupt: async (prefix) => {
      await raw.del(at(prefix, 'victim', 'meta'));
      await raw.set(at(prefix, 'victim', 'meta'), 'x');
    },
  },
  {
    name: 'the keys hash is a list',
    session: 'victim',
    corrupt: async (prefix) => {
      await raw.del(at(prefix, 'victim', 'keys'));
      await raw.rPush(at(prefix, 'victim', 'keys'), 'x');
    },
  },
  {
    name: 'a key entry is not JSON',
    session: 'victim',
    corrupt: (prefix) => raw.hSet(at(prefix, 'victim', 'keys'), digestOf('demo-free'), '1|not json'),
  },
  {
    name: 'the request log is a hash',
    session: 'victim',
    corrupt: async (prefix) => {
      await raw.del(at(prefix, 'victim', 'log'));
      await raw.hSet(at(prefix, 'victim', 'log'), 'a', 'b');
    },
  },
  {
    name: 'a log line is not JSON',
    session: 'victim',
    corrupt: (prefix) => raw.lPush(at(prefix, 'victim', 'log'), 'garbage'),
  },
  {
    name: 'the id sequence is not a number',
    session: 'victim',
    corrupt: (prefix) => raw.set(at(prefix, 'victim', 'seq'), 'abc'),
  },
  {
    name: "the default session's categories are a set",
    session: 'default',
    corrupt: async (prefix) => {
      await raw.del(at(prefix, 'default', 'cats'));
      await raw.sAdd(at(prefix, 'default', 'cats'), 'x');
    },
  },
  {
    name: 'the session registry is a string',
    session: 'newcomer',
    corrupt: async (prefix) => {
      await raw.del(`${prefix}sessions`);
      await raw.set(`${prefix}sessions`, 'x');
    },
  },
];

describe.skipIf(gate.skip)(
  `data the mock did not write under the Redis prefix${gate.skip ? ` (skipped: ${gate.reason})` : ''}`,
  () => {
    const opened: MockApp[] = [];
    afterAll(async () => {
      await Promise.all(opened.map((app) => app.close()));
    });
    /** Two replicas on one prefix. */
    const replicas = async (prefix: string) => {
      const apps = await Promise.all(
        [0, 1].map(async () =>
          createMockApp({
            spec: specDocument,
            seed: 1,
            clock: createFixedClock(testEpochMs),
            store: await connectRedisStore({ url: redis.url, prefix }, options),
          }),
        ),
      );
      opened.push(...apps);
      return apps;
    };

    for (const { name, session, corrupt } of corruptions) {
      it(`${name}: one 503 store_corrupt naming the keys, on every replica, never a 500 or broken JSON; reset repairs it`, async () => {
        const prefix = uniquePrefix();
        const apps = await replicas(prefix);
        for (const request of requestsFor(session === 'newcomer' ? 'victim' : session)) await apps[0]!.handle(request);
        await corrupt(prefix);
        for (const [index, app] of apps.entries()) {
          const answers: MockResponse[] = [];
          for (const request of requestsFor(session)) {
            const response = await app.handle(request);
            expectNoBrokenAnswer(response, `replica ${index} ${request.method} ${request.url}`);
            answers.push(response);
          }
          const corruptAnswers = answers.filter((response) => response.status === 503);
          expect(corruptAnswers.length, `replica ${index}`).toBeGreaterThan(0);
          for (const response of corruptAnswers) {
            const body = JSON.parse(response.body!) as { code: string; message: string; status: number };
            expect(body).toMatchObject({ code: 'store_corrupt', status: 503 });
            expect(body.message).toContain(session === 'newcomer' ? `${prefix}sessions` : `${prefix}{${session}}:*`);
            expect(body.message).toMatch(/POST \/__mock\/reset/);
            expect(Number.isNaN(Date.parse(response.headers.Date ?? ''))).toBe(false);
          }
        }
        const reset = await apps[1]!.handle(
          mockRequest('POST', '/__mock/reset', { headers: headersOf(session) }, '127.0.0.1'),
        );
        expect(reset.status, reset.body ?? '').toBe(200);
        for (const app of apps) {
          for (const request of requestsFor(session)) {
            const response = await app.handle(request);
            expectNoBrokenAnswer(response, `after reset ${request.method} ${request.url}`);
            expect(
              response.status,
              `after reset ${request.method} ${request.url}: ${response.body?.slice(0, 200)}`,
            ).toBeLessThan(500);
          }
        }
      });
    }

    it("a bucket of another type or text at a client's key is another epoch's: written over, never an error", async () => {
      const prefix = uniquePrefix();
      const [app] = await replicas(prefix);
      const request = mockRequest(
        'GET',
        '/v1/categories',
        { key: 'demo-free', headers: { 'x-mock-session': 'victim' } },
        '10.0.0.1',
      );
      expect((await app!.handle(request)).status).toBe(200);
      const bucket = at(prefix, 'victim', `b:k:${digestOf('demo-free').slice(0, 32)}`);
      await raw.del(bucket);
      await raw.hSet(bucket, 'a', 'b');
      const response = await app!.handle(request);
      expect(response.status).toBe(200);
      expect(response.headers['X-RateLimit-Remaining']).toBe('59');
      await raw.set(bucket, 'some other tool wrote this');
      expect((await app!.handle(request)).headers['X-RateLimit-Remaining']).toBe('59');
    });
  },
);

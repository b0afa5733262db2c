import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFixedClock } from '../../src/core/clock.js';
import { createMockApp, type MockApp, mockStoreOptions } from '../../src/core/mock-app.js';
import { createMemoryStore } from '../../src/core/state/memory-store.js';
import { connectRedisStore } from '../../src/server/redis-store.js';
import { specDocument, testEpochMs } from '../support/core-test-app.js';
import { mockRequest } from '../support/interface-client.js';
import { type RedisServerHandle, redisTestGate, startRedisServer } from '../support/redis-server.js';
import { uniquePrefix } from './fixtures.js';

/**
 * The two refusals the control fuzz reported as "changed the session": a clock move with
 * `advanceSeconds: null` and a scenario naming an anonymous client by a lone surrogate. Neither changes
 * the session; what moved was the request log's entry of the refused control call itself and the bytes
 * the process's memory budget counts for that entry. That entry is the record of the request (a refused
 * call is logged like any other), so it is expected; everything else must read the same.
 */
const gate = redisTestGate();
let redis: RedisServerHandle;
beforeAll(async () => {
  if (!gate.skip) redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

const config = { maxCategoryBytes: 64 * 1024, requestLogSize: 50 };
const session = 'refusal-target';
const refusals = {
  'a clock move of advanceSeconds null': { url: '/__mock/clock', json: { advanceSeconds: null } },
  'a scenario with a lone surrogate in an anonymous address': {
    url: '/__mock/scenario',
    json: {
      clock: { offsetSeconds: 3_600 },
      keys: [{ key: 'refused-team-key', plan: 'free' }],
      anonymous: [
        { address: 'ok-address', spent: { minute: 2 } },
        { address: 'x\ud800', spent: { minute: 1 } },
      ],
      categories: [{ name: 'refused-category' }],
    },
  },
} as const;

const stores = [
  {
    name: 'memory',
    skip: false,
    open: async () => createMemoryStore(mockStoreOptions({ spec: specDocument, config })),
  },
  {
    name: `redis${gate.skip ? ` (skipped: ${gate.reason})` : ''}`,
    skip: gate.skip,
    open: async () =>
      connectRedisStore({ url: redis.url, prefix: uniquePrefix() }, mockStoreOptions({ spec: specDocument, config })),
  },
];

/** The session as its controls show it, with the control calls' own log lines apart. */
async function sessionView(app: MockApp) {
  const controls = app.controlsFor(session);
  const requests = await controls.requests();
  const health = await controls.health();
  const { memory, ...sessionHealth } = health;
  return {
    state: {
      clock: await controls.clock(),
      keys: await controls.keys(),
      categories: await controls.categories(),
      apiRequests: requests.filter((entry) => !entry.path.startsWith('/__mock/')),
      health: sessionHealth,
    },
    controlLog: requests.filter((entry) => entry.path.startsWith('/__mock/')),
    memoryUsed: memory.usedBytes,
  };
}

describe.each(stores)('a refused control on the $name store', ({ skip, open }) => {
  for (const [name, refusal] of Object.entries(refusals)) {
    it.skipIf(skip)(`${name}: 400, and only the refused call's own log entry is added`, async () => {
      const store = await open();
      const app = createMockApp({ spec: specDocument, config, seed: 1, clock: createFixedClock(testEpochMs), store });
      try {
        await app.controlsFor(session).applyScenario({ categories: [{ name: 'kept' }] });
        await app.handle(
          mockRequest('GET', '/v1/categories', { key: 'demo-free', headers: { 'x-mock-session': session } }),
        );
        const before = await sessionView(app);
        const response = await app.handle(
          mockRequest('POST', refusal.url, { json: refusal.json, headers: { 'x-mock-session': session } }),
        );
        expect(response.status).toBe(400);
        expect(JSON.parse(response.body ?? '')).toMatchObject({ code: 'invalid_control_request', status: 400 });
        const after = await sessionView(app);
        expect(after.state).toEqual(before.state);
        expect(after.controlLog.slice(before.controlLog.length)).toEqual([
          expect.objectContaining({ method: 'POST', path: refusal.url, status: 400, code: 'invalid_control_request' }),
        ]);
        // The budget counts that one entry, no more.
        expect(after.memoryUsed).toBeGreaterThanOrEqual(before.memoryUsed);
        expect(after.memoryUsed - before.memoryUsed).toBeLessThan(1_024);
      } finally {
        await app.close();
      }
    });
  }
});

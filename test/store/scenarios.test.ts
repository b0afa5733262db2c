import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFixedClock } from '../../src/core/clock.js';
import { scenarioPresetNames } from '../../src/core/config/scenario-file.js';
import { createMockApp, mockStoreOptions } from '../../src/core/mock-app.js';
import { createMemoryStore } from '../../src/core/state/memory-store.js';
import type { StateStore } from '../../src/core/state/state-store.js';
import { connectRedisStore } from '../../src/server/redis-store.js';
import { call, specDocument, testEpochMs } from '../support/core-test-app.js';
import { type RedisServerHandle, redisTestGate, startRedisServer } from '../support/redis-server.js';
import { uniquePrefix } from './fixtures.js';

/**
 * Scenarios through the state store: each preset and a scenario file applied to the core on the
 * memory store and on Redis gives the same answers to the same requests, per session.
 */
const gate = redisTestGate();
let redis: RedisServerHandle;
beforeAll(async () => {
  if (!gate.skip) redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

const config = { ban: { threshold: 3, durationSeconds: 300 } };
const storeOptions = mockStoreOptions({ spec: specDocument, config, seed: 1 });

/** The requests that show a scenario's situation: keys on both windows, the anonymous client, the deprecated operation. */
async function observe(app: ReturnType<typeof createMockApp>, session: string) {
  const seen: unknown[] = [];
  const headers = { 'x-mock-session': session };
  for (const [key, path] of [
    ['demo-free', '/v1/categories'],
    ['demo-free', '/v1/categories'],
    ['demo-pro', '/v1/pets/1'],
    ['team-key', '/v1/categories'],
    [undefined, '/v1/categories'],
  ] as const) {
    const response = await call(app as never, 'GET', path, {
      ...(key ? { key } : {}),
      headers,
      clientAddress: '10.0.0.5',
    });
    seen.push({
      status: response.status,
      code: response.json?.code ?? null,
      remaining: response.headers['X-RateLimit-Remaining'],
      retryAfter: response.headers['Retry-After'] ?? null,
      date: response.headers.Date,
    });
  }
  return seen;
}

const file = `
clock: { offsetSeconds: 7200 }
keys:
  - { key: team-key, limits: { perMinute: 5, perDay: 8 }, spent: { minute: 2, day: 7 } }
  - { key: demo-pro, bannedSeconds: 45 }
anonymous:
  - { address: 10.0.0.5, spent: { minute: one-left }, bannedSeconds: policy }
categories: [ { name: otters } ]
`;

async function runAll(store: StateStore) {
  const app = createMockApp({ spec: specDocument, config, seed: 1, clock: createFixedClock(testEpochMs), store });
  const results: Record<string, unknown> = {};
  try {
    for (const preset of scenarioPresetNames) {
      const session = `preset-${preset}`;
      const applied = await app.controlsFor(session).applyScenario(`presets: [${preset}]`);
      results[preset] = { applied, seen: await observe(app, session) };
    }
    const applied = await app.controlsFor('file').applyScenario(file);
    results.file = {
      applied,
      seen: await observe(app, 'file'),
      categories: (await app.controlsFor('file').categories()).map((category) => category.name),
    };
  } finally {
    await app.close();
  }
  return results;
}

describe('scenarios through the state store', () => {
  it('on the memory store: each preset shows its situation', async () => {
    const results = (await runAll(createMemoryStore(storeOptions))) as Record<
      string,
      { seen: { status: number; code: string | null; remaining: string; retryAfter: string | null }[] }
    >;
    expect(results['minute-almost-spent']!.seen.slice(0, 2).map((seen) => [seen.status, seen.remaining])).toEqual([
      [200, '0'],
      [429, '0'],
    ]);
    expect(results['day-spent']!.seen[0]).toMatchObject({ status: 429, retryAfter: '86400' });
    expect(results['banned-key']!.seen[0]).toMatchObject({ status: 429, code: 'key_banned', retryAfter: '300' });
    expect(results['after-sunset-gone']!.seen[2]).toMatchObject({ status: 410, code: 'operation_sunset' });
    expect(results['after-sunset']!.seen[2]).toMatchObject({ status: 200 });
    expect((results.file as never as { seen: unknown[] }).seen).toMatchObject([
      { status: 200 },
      { status: 200 },
      { status: 429, code: 'key_banned', retryAfter: '45' },
      // team-key: 7 of its 8 a day were spent, the two demo-free requests are another client.
      { status: 200, remaining: '0' },
      { status: 429, code: 'key_banned', retryAfter: '300' },
    ]);
  });

  it.skipIf(gate.skip)(
    `on Redis, exactly the same answers as in memory${gate.skip ? ` (skipped: ${gate.reason})` : ''}`,
    async () => {
      const expected = await runAll(createMemoryStore(storeOptions));
      const actual = await runAll(await connectRedisStore({ url: redis.url, prefix: uniquePrefix() }, storeOptions));
      expect(actual).toEqual(expected);
    },
  );
});

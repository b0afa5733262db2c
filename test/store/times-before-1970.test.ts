import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/core/state/memory-store.js';
import type { StateStore, StateStoreOptions } from '../../src/core/state/state-store.js';
import { connectRedisStore } from '../../src/server/redis-store.js';
import { type RedisServerHandle, redisTestGate, startRedisServer } from '../support/redis-server.js';
import { keyEntry, publicEntry, storeOptions, uniquePrefix } from './fixtures.js';

/**
 * "Not banned" and "no refusal yet" are not times: a limiter that stored them as 0 and -1 read every
 * request before 1970 as banned (a HAR with Go's zero time, a 1969 recording replayed as 429s). Both
 * stores count, ban and remember refusals at any time JavaScript can hold, the year 1 included.
 */
const gate = redisTestGate();
const minute = 60_000;

/** Go's zero time, 0001-01-01T00:00:00Z, and a time just before 1970. */
const instants = [
  { name: 'the year 1 (Go zero time)', at: Date.parse('0001-01-01T00:00:00Z') },
  { name: '1969-07-20', at: Date.UTC(1969, 6, 20, 20, 17) },
  { name: 'one millisecond before 1970', at: -1 },
];

type Factory = (options: StateStoreOptions) => Promise<StateStore>;
let redis: RedisServerHandle;
beforeAll(async () => {
  if (!gate.skip) redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

const factories: { name: string; skip: boolean; make: Factory }[] = [
  { name: 'memory', skip: false, make: async (options) => createMemoryStore(options) },
  {
    name: `redis${gate.skip ? ` (skipped: ${gate.reason})` : ''}`,
    skip: gate.skip,
    make: (options) => connectRedisStore({ url: redis.url, prefix: uniquePrefix() }, options),
  },
];

for (const factory of factories) {
  describe.skipIf(factory.skip)(`times before 1970 in the rate limiter: ${factory.name}`, () => {
    const opened: StateStore[] = [];
    afterAll(async () => {
      await Promise.all(opened.map((store) => store.close()));
    });
    const open = async (overrides: Partial<StateStoreOptions>) => {
      const store = await factory.make(storeOptions(overrides));
      opened.push(store);
      return store;
    };

    for (const { name, at } of instants) {
      it(`serves, limits, bans and forgives at ${name}`, async () => {
        expect(new Date(at).getUTCFullYear()).toBeLessThan(1970);
        const store = await open({
          anonymous: { perMinute: 1, perDay: 100 },
          ban: { enabled: true, threshold: 1, durationMs: 120_000 },
        });
        const hit = (ms: number) => store.hit('default', { baseTimeMs: ms, clientAddress: '10.0.0.1' });
        const first = await hit(at);
        expect(first.decision).toMatchObject({ outcome: 'allowed', remaining: 0, resetAtMs: at + minute });
        expect(first.history).toEqual({ requests: 1, refusals: 0, consecutiveRefusals: 0, previousRefusal: null });
        const limited = await hit(at + 1);
        expect(limited.decision).toMatchObject({ outcome: 'limited', retryAfterSeconds: 60 });
        // The refusal is remembered with its (negative) time, not mistaken for "none".
        const banned = await hit(at + 2);
        expect(banned.decision).toMatchObject({
          outcome: 'banned',
          resetAtMs: at + 2 + 120_000,
          retryAfterSeconds: 120,
        });
        expect(banned.history.previousRefusal).toEqual({ atMs: at + 1, retryAfterSeconds: 60 });
        expect((await hit(at + 2 + 120_000)).decision).toMatchObject({ outcome: 'allowed' });
      });
    }

    it('a key and an explicit ban at a time before 1970 end when they should', async () => {
      const at = Date.UTC(1969, 11, 31, 23, 0);
      const store = await open({});
      const entry = keyEntry('old-recording-key', 'free', { perMinute: 60, perDay: 1000 });
      const keyHit = (ms: number) =>
        store.hit('s1', {
          baseTimeMs: ms,
          clientAddress: '10.0.0.1',
          keyDigest: entry.digest,
          configKey: publicEntry(entry),
        });
      expect((await keyHit(at)).decision).toMatchObject({ outcome: 'allowed', remaining: 59 });
      expect(await store.ban('s1', { kind: 'key', id: entry.id }, 30_000, at)).toEqual({ untilMs: at + 30_000 });
      expect((await keyHit(at + 29_999)).decision).toMatchObject({ outcome: 'banned', retryAfterSeconds: 1 });
      expect((await keyHit(at + 30_000)).decision).toMatchObject({ outcome: 'allowed' });
      expect((await store.peekAnonymous('s1', '10.0.0.2', at)).outcome).toBe('allowed');
    });
  });
}

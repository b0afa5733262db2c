import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/core/state/memory-store.js';
import type { StateStore, StateStoreOptions } from '../../src/core/state/state-store.js';
import { connectRedisStore } from '../../src/server/redis-store.js';
import { type RedisServerHandle, redisTestGate, startRedisServer } from '../support/redis-server.js';
import { keyEntry, publicEntry, storeOptions, testEpochMs as t0, uniquePrefix } from './fixtures.js';

/**
 * The window, ban, key, category, log and session rules as one table of cases, run against every
 * store (hono's one-case-file-per-router habit): the memory store always, Redis when redis-server is there.
 */
const gate = redisTestGate();
const minute = 60_000;
const day = 86_400_000;
const noBan = { enabled: false, threshold: 10, durationMs: 900_000 };

type Factory = (options: StateStoreOptions) => Promise<StateStore>;
const factories: { name: string; skip: boolean; make: () => Factory }[] = [
  { name: 'memory', skip: false, make: () => async (options) => createMemoryStore(options) },
  {
    name: `redis${gate.skip ? ` (skipped: ${gate.reason})` : ''}`,
    skip: gate.skip,
    make: () => async (options) => connectRedisStore({ url: redis.url, prefix: uniquePrefix() }, options),
  },
];

let redis: RedisServerHandle;
beforeAll(async () => {
  if (!gate.skip) redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

for (const factory of factories) {
  describe.skipIf(factory.skip)(`state store: ${factory.name}`, () => {
    const opened: StateStore[] = [];
    const open = async (overrides: Partial<StateStoreOptions> = {}) => {
      const store = await factory.make()(storeOptions(overrides));
      opened.push(store);
      return store;
    };
    afterAll(async () => {
      await Promise.all(opened.map((store) => store.close()));
    });
    const anonymousHit = (store: StateStore, at: number, session = 'default', clientAddress = '10.0.0.1') =>
      store.hit(session, { baseTimeMs: at, clientAddress });

    it('allows exactly the per-minute limit, then refuses until the minute is over, to the millisecond', async () => {
      const store = await open({ anonymous: { perMinute: 3, perDay: 100 }, ban: noBan });
      for (let index = 0; index < 3; index += 1)
        expect((await anonymousHit(store, t0)).decision.outcome).toBe('allowed');
      expect((await anonymousHit(store, t0)).decision).toMatchObject({
        outcome: 'limited',
        limit: 3,
        remaining: 0,
        resetAtMs: t0 + minute,
        retryAfterSeconds: 60,
      });
      expect((await anonymousHit(store, t0 + minute - 1)).decision).toMatchObject({
        outcome: 'limited',
        retryAfterSeconds: 1,
      });
      expect((await anonymousHit(store, t0 + minute)).decision).toMatchObject({
        outcome: 'allowed',
        limit: 3,
        remaining: 2,
        resetAtMs: t0 + 2 * minute,
        retryAfterSeconds: 60,
      });
    });

    it('anchors the day window at the first request and resets it exactly a day later', async () => {
      const store = await open({ anonymous: { perMinute: 10, perDay: 2 }, ban: noBan });
      await anonymousHit(store, t0 + 5);
      await anonymousHit(store, t0 + minute);
      expect((await anonymousHit(store, t0 + day + 4)).decision).toMatchObject({
        outcome: 'limited',
        limit: 2,
        remaining: 0,
        resetAtMs: t0 + 5 + day,
        retryAfterSeconds: 1,
      });
      expect((await anonymousHit(store, t0 + day + 5)).decision).toMatchObject({
        outcome: 'allowed',
        limit: 2,
        remaining: 1,
        resetAtMs: t0 + 5 + 2 * day,
        retryAfterSeconds: 86_400,
      });
    });

    it('reports the window with the fewest requests left, and on a tie the one that resets later', async () => {
      const store = await open({ anonymous: { perMinute: 10, perDay: 12 }, ban: noBan });
      expect((await anonymousHit(store, t0)).decision).toMatchObject({
        limit: 10,
        remaining: 9,
        resetAtMs: t0 + minute,
      });
      for (let index = 0; index < 9; index += 1) await anonymousHit(store, t0);
      expect((await anonymousHit(store, t0 + minute)).decision).toMatchObject({
        outcome: 'allowed',
        limit: 12,
        remaining: 1,
        resetAtMs: t0 + day,
      });
      const tie = await open({ anonymous: { perMinute: 2, perDay: 2 }, ban: noBan });
      // 1 left in both windows: the day window resets later, so it is the one reported.
      expect((await anonymousHit(tie, t0)).decision).toMatchObject({ limit: 2, remaining: 1, resetAtMs: t0 + day });
    });

    it('when both windows are full, reports the later reset (the day window on an exact tie)', async () => {
      const store = await open({ anonymous: { perMinute: 1, perDay: 2 }, ban: noBan });
      await anonymousHit(store, t0);
      await anonymousHit(store, t0 + day - minute);
      // Minute window from t0 + day - minute, day window from t0: both end at t0 + day.
      expect((await anonymousHit(store, t0 + day - minute)).decision).toMatchObject({
        outcome: 'limited',
        limit: 2,
        remaining: 0,
        resetAtMs: t0 + day,
        retryAfterSeconds: 60,
      });
    });

    it('counts refused requests in neither window', async () => {
      const store = await open({ anonymous: { perMinute: 1, perDay: 2 }, ban: noBan });
      await anonymousHit(store, t0);
      for (let index = 0; index < 5; index += 1)
        expect((await anonymousHit(store, t0 + 1)).decision.outcome).toBe('limited');
      expect((await anonymousHit(store, t0 + minute)).decision).toMatchObject({
        outcome: 'allowed',
        remaining: 0,
        limit: 2,
      });
    });

    it('bans after `threshold` 429s in a row, for the ban duration, then forgives the strikes', async () => {
      const store = await open({
        anonymous: { perMinute: 1, perDay: 100 },
        ban: { enabled: true, threshold: 2, durationMs: 300_000 },
      });
      await anonymousHit(store, t0);
      expect((await anonymousHit(store, t0 + 1)).decision.outcome).toBe('limited');
      expect((await anonymousHit(store, t0 + 2)).decision.outcome).toBe('limited');
      expect((await anonymousHit(store, t0 + 3)).decision).toMatchObject({
        outcome: 'banned',
        limit: 1,
        remaining: 0,
        resetAtMs: t0 + 3 + 300_000,
        retryAfterSeconds: 300,
      });
      // Both windows (for the IETF fields) say nothing is left until the ban ends.
      expect((await anonymousHit(store, t0 + 4)).decision.windows).toEqual([
        { name: 'minute', quota: 1, windowSeconds: 60, remaining: 0, resetAtMs: t0 + 3 + 300_000 },
        { name: 'day', quota: 100, windowSeconds: 86_400, remaining: 0, resetAtMs: t0 + 3 + 300_000 },
      ]);
      expect((await anonymousHit(store, t0 + 3 + 300_000 - 1)).decision).toMatchObject({
        outcome: 'banned',
        retryAfterSeconds: 1,
      });
      expect((await anonymousHit(store, t0 + 3 + 300_000)).decision.outcome).toBe('allowed');
      // Forgiven: the next 429s start counting from zero again.
      expect((await anonymousHit(store, t0 + 3 + 300_001)).decision.outcome).toBe('limited');
      expect((await anonymousHit(store, t0 + 3 + 300_002)).decision.outcome).toBe('limited');
      expect((await anonymousHit(store, t0 + 3 + 300_003)).decision.outcome).toBe('banned');
    });

    it('forgives strikes when the client is served again, and never bans with bans disabled', async () => {
      const store = await open({
        anonymous: { perMinute: 1, perDay: 100 },
        ban: { enabled: true, threshold: 2, durationMs: 300_000 },
      });
      await anonymousHit(store, t0);
      await anonymousHit(store, t0 + 1);
      await anonymousHit(store, t0 + 2);
      expect((await anonymousHit(store, t0 + minute)).decision.outcome).toBe('allowed');
      expect((await anonymousHit(store, t0 + minute + 1)).decision.outcome).toBe('limited');
      expect((await anonymousHit(store, t0 + minute + 2)).decision.outcome).toBe('limited');
      const lenient = await open({ anonymous: { perMinute: 1, perDay: 100 }, ban: noBan });
      for (let index = 0; index < 50; index += 1)
        expect((await anonymousHit(lenient, t0 + 1)).decision.outcome).not.toBe('banned');
    });

    it('setSpent puts a client where that many served requests would: the next answers, the 429 and its Retry-After', async () => {
      const store = await open({ anonymous: { perMinute: 5, perDay: 20 }, ban: noBan });
      const client = { kind: 'anonymous' as const, address: '10.0.0.9' };
      await store.setSpent('default', client, { minute: 4 }, t0);
      // Exactly as after four requests at t0: one left in the minute, the day holds the four too.
      expect((await anonymousHit(store, t0 + 10, 'default', '10.0.0.9')).decision).toMatchObject({
        outcome: 'allowed',
        limit: 5,
        remaining: 0,
        resetAtMs: t0 + minute,
      });
      expect((await anonymousHit(store, t0 + 20, 'default', '10.0.0.9')).decision).toMatchObject({
        outcome: 'limited',
        retryAfterSeconds: 60,
        resetAtMs: t0 + minute,
      });
      expect((await anonymousHit(store, t0 + minute, 'default', '10.0.0.9')).decision).toMatchObject({
        outcome: 'allowed',
        limit: 5,
        remaining: 4,
      });
      const replayed = await open({ anonymous: { perMinute: 5, perDay: 20 }, ban: noBan });
      for (let index = 0; index < 4; index += 1) await anonymousHit(replayed, t0, 'default', '10.0.0.9');
      expect((await anonymousHit(replayed, t0 + 10, 'default', '10.0.0.9')).decision).toEqual(
        (
          await open({ anonymous: { perMinute: 5, perDay: 20 }, ban: noBan }).then(async (again) => {
            await again.setSpent('default', client, { minute: 4 }, t0);
            return anonymousHit(again, t0 + 10, 'default', '10.0.0.9');
          })
        ).decision,
      );
    });

    it('setSpent of a whole day refuses until the day window ends, whatever the minute says', async () => {
      const store = await open({ anonymous: { perMinute: 5, perDay: 20 }, ban: noBan });
      const entry = keyEntry('spent-day-key', 'free', { perMinute: 3, perDay: 7 });
      await store.setSpent('s1', { kind: 'key', id: entry.id }, { day: 7 }, t0);
      const keyHit = (at: number) =>
        store.hit('s1', {
          baseTimeMs: at,
          clientAddress: '10.0.0.1',
          configKey: publicEntry(entry),
          keyDigest: entry.digest,
        });
      expect((await keyHit(t0 + 2 * minute)).decision).toMatchObject({
        outcome: 'limited',
        limit: 7,
        resetAtMs: t0 + day,
        retryAfterSeconds: (day - 2 * minute) / 1000,
      });
      expect((await keyHit(t0 + day)).decision).toMatchObject({ outcome: 'allowed', limit: 3, remaining: 2 });
      // Per session: the default session's key is untouched.
      expect(
        (
          await store.hit('default', {
            baseTimeMs: t0 + 2 * minute,
            clientAddress: '10.0.0.1',
            configKey: publicEntry(entry),
            keyDigest: entry.digest,
          })
        ).decision.outcome,
      ).toBe('allowed');
    });

    it("setSpent keeps a running window's start and a count left out, and on the virtual clock", async () => {
      const store = await open({ anonymous: { perMinute: 5, perDay: 20 }, ban: noBan });
      await anonymousHit(store, t0);
      await store.advanceClock('default', 30_000, t0);
      await store.setSpent('default', { kind: 'anonymous', address: '10.0.0.1' }, { day: 10 }, t0);
      // Minute window from t0 with its one request; the day now holds 10.
      expect((await anonymousHit(store, t0)).decision).toMatchObject({
        outcome: 'allowed',
        limit: 5,
        remaining: 3,
        resetAtMs: t0 + minute,
      });
      expect((await anonymousHit(store, t0)).decision.windows[1]).toMatchObject({ remaining: 8, resetAtMs: t0 + day });
    });

    it('ban answers every request as the ban policy does until it ends, then forgives', async () => {
      const store = await open({
        anonymous: { perMinute: 5, perDay: 20 },
        ban: { enabled: true, threshold: 2, durationMs: 300_000 },
      });
      const entry = keyEntry('banned-key', 'free', { perMinute: 3, perDay: 7 });
      const keyHit = (at: number) =>
        store.hit('default', {
          baseTimeMs: at,
          clientAddress: '10.0.0.1',
          configKey: publicEntry(entry),
          keyDigest: entry.digest,
        });
      expect(await store.ban('default', { kind: 'key', id: entry.id }, 90_000, t0)).toEqual({ untilMs: t0 + 90_000 });
      expect((await keyHit(t0 + 1)).decision).toMatchObject({
        outcome: 'banned',
        limit: 3,
        remaining: 0,
        resetAtMs: t0 + 90_000,
        retryAfterSeconds: 90,
      });
      expect((await keyHit(t0 + 89_999)).decision).toMatchObject({ outcome: 'banned', retryAfterSeconds: 1 });
      expect((await keyHit(t0 + 90_000)).decision).toMatchObject({ outcome: 'allowed', remaining: 2 });
      // Anonymous clients by address; other addresses are untouched.
      await store.ban('default', { kind: 'anonymous', address: '10.0.0.7' }, 5_000, t0);
      expect((await anonymousHit(store, t0 + 1, 'default', '10.0.0.7')).decision).toMatchObject({
        outcome: 'banned',
        retryAfterSeconds: 5,
      });
      expect((await anonymousHit(store, t0 + 1, 'default', '10.0.0.8')).decision.outcome).toBe('allowed');
    });

    it("keeps a session's afterSunset choice apart from other sessions, until reset", async () => {
      const store = await open();
      expect(await store.afterSunset('default', t0)).toBeNull();
      await store.setAfterSunset('s1', 'gone', t0);
      expect([await store.afterSunset('s1', t0), await store.afterSunset('default', t0)]).toEqual(['gone', null]);
      await store.setAfterSunset('s1', 'serve', t0);
      expect(await store.afterSunset('s1', t0)).toBe('serve');
      await store.reset('s1', t0);
      expect(await store.afterSunset('s1', t0)).toBeNull();
      await store.setAfterSunset('s1', 'gone', t0);
      await store.setAfterSunset('s1', null, t0);
      expect(await store.afterSunset('s1', t0)).toBeNull();
      await expect(store.setAfterSunset('s1', 'later' as never, t0)).rejects.toThrow(/expected gone, serve or null/);
    });

    it('refuses a bad setSpent or ban by name, changing nothing', async () => {
      const store = await open();
      await expect(store.setSpent('default', { kind: 'anonymous', address: 'a' }, { minute: -1 }, t0)).rejects.toThrow(
        /minute must be a whole number/,
      );
      await expect(store.setSpent('default', { kind: 'key', id: 'not-hex' }, { minute: 1 }, t0)).rejects.toThrow(
        /32 lower-case hex/,
      );
      await expect(store.ban('default', { kind: 'anonymous', address: 'a' }, 0, t0)).rejects.toThrow(
        /duration must be/,
      );
      await expect(store.ban('default', { kind: 'anonymous', address: 'a' }, Number.NaN, t0)).rejects.toThrow(
        /duration must be/,
      );
      expect((await anonymousHit(store, t0, 'default', 'a')).decision).toMatchObject({
        outcome: 'allowed',
        remaining: 4,
      });
    });

    it('counts a key against its own limits; a key added at run time shadows a config key; an unknown key is anonymous', async () => {
      const store = await open({ anonymous: { perMinute: 1, perDay: 1 }, ban: noBan });
      const config = keyEntry('config-key-1', 'free', { perMinute: 2, perDay: 10 });
      const hitWith = (entry: ReturnType<typeof keyEntry>, configKey?: ReturnType<typeof keyEntry>) =>
        store.hit('default', {
          baseTimeMs: t0,
          clientAddress: '10.0.0.1',
          keyDigest: entry.digest,
          configKey: configKey && publicEntry(configKey),
        });
      expect(await hitWith(config, config)).toMatchObject({
        key: publicEntry(config),
        client: `k:${config.id}`,
        decision: { limit: 2, remaining: 1 },
      });
      expect(await store.addKey('default', keyEntry('config-key-1', 'pro', { perMinute: 5, perDay: 10 }), t0)).toEqual({
        created: true,
      });
      // Same key, same bucket (1 spent), the run-time plan's limits.
      expect(await hitWith(config, config)).toMatchObject({
        key: { plan: 'pro' },
        decision: { limit: 5, remaining: 3 },
      });
      const unknown = keyEntry('nobody-has-this', 'free', { perMinute: 1, perDay: 1 });
      expect(await hitWith(unknown)).toMatchObject({
        key: null,
        client: 'a:10.0.0.1',
        decision: { outcome: 'allowed', limit: 1 },
      });
      expect(
        await store.addKey('default', keyEntry('config-key-1', 'business', { perMinute: 6, perDay: 10 }), t0),
      ).toEqual({ created: false });
      expect((await store.listKeys('default', t0)).map((entry) => entry.plan)).toEqual(['business']);
    });

    it('keeps keys added at run time in the order they were first added', async () => {
      const store = await open();
      for (const name of ['key-aaaa-1', 'key-bbbb-2', 'key-cccc-3'])
        await store.addKey('default', keyEntry(name, 'free', { perMinute: 1, perDay: 1 }), t0);
      await store.addKey('default', keyEntry('key-aaaa-1', 'pro', { perMinute: 2, perDay: 2 }), t0);
      expect((await store.listKeys('default', t0)).map((entry) => [entry.masked, entry.plan])).toEqual([
        ['key-…(10)', 'pro'],
        ['key-…(10)', 'free'],
        ['key-…(10)', 'free'],
      ]);
    });

    it('hands out category ids in sequence after the seeds, drops the oldest past maxCategories, never reuses an id', async () => {
      const store = await open({
        maxCategories: 3,
        seedCategories: [{ name: 'dog' }, { name: 'cat', description: 'Felines' }],
      });
      expect(await store.listCategoriesJson('default', t0)).toBe(
        '[{"id":1,"name":"dog"},{"id":2,"name":"cat","description":"Felines"}]',
      );
      expect(await store.createCategory('default', { name: 'owl' }, t0)).toEqual({
        category: { id: 3, name: 'owl' },
        dropped: 0,
        json: '{"id":3,"name":"owl"}',
        bytes: 21,
      });
      expect(await store.createCategory('default', { name: 'emu', description: 'Large' }, t0)).toEqual({
        category: { id: 4, name: 'emu', description: 'Large' },
        dropped: 1,
        json: '{"id":4,"name":"emu","description":"Large"}',
        bytes: 43,
      });
      expect((await store.listCategories('default', t0)).map((category) => category.id)).toEqual([2, 3, 4]);
      await store.reset('default', t0);
      expect(await store.listCategories('default', t0)).toEqual([
        { id: 1, name: 'dog' },
        { id: 2, name: 'cat', description: 'Felines' },
      ]);
      expect((await store.createCategory('default', { name: 'yak' }, t0)).category.id).toBe(3);
    });

    it('lists or creates categories with the hit when asked, only for an allowed request, whatever the size of the seeds', async () => {
      const seeds = Array.from({ length: 120 }, (_, index) => ({
        name: `seeded-category-with-a-long-name-${index}`,
        description: 'x'.repeat(40),
      }));
      const store = await open({
        anonymous: { perMinute: 1, perDay: 100 },
        ban: noBan,
        seedCategories: seeds,
        maxCategories: 200,
      });
      const expected = JSON.stringify(seeds.map((seed, index) => ({ id: index + 1, ...seed })));
      const list = { kind: 'list' as const, requiresKey: false };
      const first = await store.hit('fresh', { baseTimeMs: t0, clientAddress: '10.0.0.1', categories: list });
      expect(first.categoriesJson).toBe(expected);
      const refused = await store.hit('fresh', { baseTimeMs: t0, clientAddress: '10.0.0.1', categories: list });
      expect(refused.decision.outcome).toBe('limited');
      expect(refused.categoriesJson).toBeUndefined();
      expect((await store.hit('fresh', { baseTimeMs: t0, clientAddress: '10.0.0.2' })).categoriesJson).toBeUndefined();
      // Big seeds and a session never used: the create still gets the id after the seeds.
      const created = await store.hit('other', {
        baseTimeMs: t0,
        clientAddress: '10.0.0.1',
        categories: { kind: 'create', requiresKey: false, input: { name: 'late' } },
      });
      expect(created.created).toEqual({ id: 121, dropped: 0, json: '{"id":121,"name":"late"}', bytes: 24 });
      await store.reset('fresh', t0);
      expect(
        (await store.hit('fresh', { baseTimeMs: t0, clientAddress: '10.0.0.3', categories: list })).categoriesJson,
      ).toBe(expected);
    });

    it('creates with the hit only when a key is required and the request has one, and never for a refused request', async () => {
      const store = await open({ anonymous: { perMinute: 5, perDay: 100 }, ban: noBan });
      const key = keyEntry('creator-key-1', 'free', { perMinute: 1, perDay: 100 });
      const create = { kind: 'create' as const, requiresKey: true, input: { name: 'owl', description: 'Birds' } };
      expect(
        (await store.hit('default', { baseTimeMs: t0, clientAddress: '10.0.0.1', categories: create })).created,
      ).toBeUndefined();
      const made = await store.hit('default', {
        baseTimeMs: t0,
        clientAddress: '10.0.0.1',
        keyDigest: key.digest,
        configKey: publicEntry(key),
        categories: create,
      });
      expect(made.created).toEqual({
        id: 3,
        dropped: 0,
        json: '{"id":3,"name":"owl","description":"Birds"}',
        bytes: 43,
      });
      const refused = await store.hit('default', {
        baseTimeMs: t0,
        clientAddress: '10.0.0.1',
        keyDigest: key.digest,
        configKey: publicEntry(key),
        categories: create,
      });
      expect(refused.decision.outcome).toBe('limited');
      expect(refused.created).toBeUndefined();
      expect((await store.listCategories('default', t0)).map((category) => category.id)).toEqual([1, 2, 3]);
    });

    it('keeps the newest requestLogSize log entries, oldest first, with ISO times', async () => {
      const store = await open({ requestLogSize: 2 });
      for (const status of [200, 201, 429]) {
        await store.appendRequest(
          'default',
          {
            timeMs: t0 + status,
            method: 'GET',
            path: '/v1/categories',
            operationId: 'listCategories',
            plan: 'free',
            key: 'demo…(9)',
            status,
            code: null,
          },
          t0,
        );
      }
      expect(await store.requests('default', t0)).toEqual([
        {
          time: new Date(t0 + 201).toISOString(),
          method: 'GET',
          path: '/v1/categories',
          operationId: 'listCategories',
          plan: 'free',
          key: 'demo…(9)',
          status: 201,
          code: null,
        },
        {
          time: new Date(t0 + 429).toISOString(),
          method: 'GET',
          path: '/v1/categories',
          operationId: 'listCategories',
          plan: 'free',
          key: 'demo…(9)',
          status: 429,
          code: null,
        },
      ]);
    });

    it('adds the session clock offset to the base time, refuses a step backwards, and keeps the clock on reset', async () => {
      const store = await open({ anonymous: { perMinute: 1, perDay: 100 }, ban: noBan });
      await anonymousHit(store, t0);
      expect(await store.advanceClock('default', 60_000, t0)).toBe(60_000);
      expect((await anonymousHit(store, t0)).decision.outcome).toBe('allowed');
      expect((await anonymousHit(store, t0)).nowMs).toBe(t0 + 60_000);
      await expect(store.advanceClock('default', -1, t0)).rejects.toThrow(RangeError);
      await expect(store.advanceClock('default', Number.NaN, t0)).rejects.toThrow(RangeError);
      await store.reset('default', t0);
      expect(await store.clockOffset('default', t0)).toBe(60_000);
      // Reset empties the windows.
      expect((await anonymousHit(store, t0)).decision.outcome).toBe('allowed');
    });

    it('isolates sessions: counters, bans, categories, ids, keys, clock and log; reset touches only its own', async () => {
      const store = await open({
        anonymous: { perMinute: 1, perDay: 100 },
        ban: { enabled: true, threshold: 1, durationMs: 60_000 },
      });
      const key = keyEntry('session-key-1', 'pro', { perMinute: 9, perDay: 9 });
      for (let index = 0; index < 3; index += 1) await anonymousHit(store, t0, 'job-a');
      expect((await anonymousHit(store, t0, 'job-a')).decision.outcome).toBe('banned');
      await store.createCategory('job-a', { name: 'only-in-a' }, t0);
      await store.addKey('job-a', key, t0);
      await store.advanceClock('job-a', 5_000, t0);
      await store.appendRequest(
        'job-a',
        {
          timeMs: t0,
          method: 'GET',
          path: '/x',
          operationId: null,
          plan: 'anonymous',
          key: null,
          status: 429,
          code: 'key_banned',
        },
        t0,
      );

      expect((await anonymousHit(store, t0, 'job-b')).decision).toMatchObject({ outcome: 'allowed', remaining: 0 });
      expect((await store.createCategory('job-b', { name: 'b' }, t0)).category.id).toBe(3);
      expect(await store.listKeys('job-b', t0)).toEqual([]);
      expect(await store.clockOffset('job-b', t0)).toBe(0);
      expect(await store.requests('job-b', t0)).toEqual([]);
      expect(
        (await store.hit('job-b', { baseTimeMs: t0, clientAddress: '10.0.0.9', keyDigest: key.digest })).key,
      ).toBeNull();

      await store.reset('job-b', t0);
      expect((await anonymousHit(store, t0, 'job-a')).decision.outcome).toBe('banned');
      expect((await store.listCategories('job-a', t0)).map((category) => category.name)).toEqual([
        'dog',
        'cat',
        'only-in-a',
      ]);
      expect(await store.listCategories('default', t0)).toHaveLength(2);
      expect((await anonymousHit(store, t0)).decision.outcome).toBe('allowed');
    });

    it('refuses a new session past maxSessions (the default one not counted) and lists the live ones', async () => {
      const store = await open({ maxSessions: 2 });
      await store.clockOffset('one', t0);
      await store.clockOffset('two', t0 + 5_000);
      await expect(store.clockOffset('three', t0)).rejects.toMatchObject({
        name: 'TooManySessionsError',
        code: 'too_many_sessions',
      });
      await store.clockOffset('default', t0);
      await store.clockOffset('one', t0 + 1);
      expect((await store.listSessions(t0 + 10_000)).map((session) => session.name).sort()).toEqual([
        'default',
        'one',
        'two',
      ]);
    });

    it('lists the default session even before its first use', async () => {
      const store = await open();
      expect(await store.listSessions(t0)).toEqual([{ name: 'default', lastSeenMs: null }]);
    });

    it('refuses a digest that is not SHA-256 hex and a run-time key whose id is not its digest prefix', async () => {
      const store = await open();
      await expect(
        store.hit('default', { baseTimeMs: t0, clientAddress: '10.0.0.1', keyDigest: 'not-a-digest' }),
      ).rejects.toThrow(RangeError);
      const key = keyEntry('some-key-123', 'free', { perMinute: 1, perDay: 1 });
      await expect(store.addKey('default', { ...key, id: 'x'.repeat(32) }, t0)).rejects.toThrow(
        'its id must be the first 32 hex digits of its digest',
      );
    });

    it('refuses session names that are not 1-64 plain characters', async () => {
      const store = await open();
      for (const name of ['', '-x', 'a b', 'x{y}', 'x'.repeat(65), 'é'])
        await expect(store.clockOffset(name, t0)).rejects.toThrow(RangeError);
    });

    it('remembers per client what a verdict engine needs: counts, 429s in a row and the previous Retry-After', async () => {
      const store = await open({
        anonymous: { perMinute: 1, perDay: 100 },
        ban: { enabled: true, threshold: 2, durationMs: 120_000 },
      });
      expect((await anonymousHit(store, t0)).history).toEqual({
        requests: 1,
        refusals: 0,
        consecutiveRefusals: 0,
        previousRefusal: null,
      });
      expect((await anonymousHit(store, t0 + 10_000)).history).toEqual({
        requests: 2,
        refusals: 1,
        consecutiveRefusals: 1,
        previousRefusal: null,
      });
      expect((await anonymousHit(store, t0 + 20_000)).history).toEqual({
        requests: 3,
        refusals: 2,
        consecutiveRefusals: 2,
        previousRefusal: { atMs: t0 + 10_000, retryAfterSeconds: 50 },
      });
      const banned = await anonymousHit(store, t0 + 30_000);
      expect(banned.decision.outcome).toBe('banned');
      expect(banned.history).toEqual({
        requests: 4,
        refusals: 3,
        consecutiveRefusals: 3,
        previousRefusal: { atMs: t0 + 20_000, retryAfterSeconds: 40 },
      });
      const served = await anonymousHit(store, t0 + 30_000 + 120_000);
      expect(served.history).toEqual({
        requests: 5,
        refusals: 3,
        consecutiveRefusals: 0,
        previousRefusal: { atMs: t0 + 30_000, retryAfterSeconds: 120 },
      });
      await store.reset('default', t0);
      expect((await anonymousHit(store, t0 + 200_000)).history.requests).toBe(1);
    });

    it('peeks at an anonymous budget without counting a request', async () => {
      const store = await open({ anonymous: { perMinute: 2, perDay: 100 }, ban: noBan });
      expect(await store.peekAnonymous('default', '10.0.0.1', t0)).toMatchObject({
        outcome: 'allowed',
        limit: 2,
        remaining: 2,
        resetAtMs: t0 + minute,
        retryAfterSeconds: 60,
      });
      await anonymousHit(store, t0);
      expect(await store.peekAnonymous('default', '10.0.0.1', t0 + 1_000)).toMatchObject({
        remaining: 1,
        resetAtMs: t0 + minute,
      });
      expect((await anonymousHit(store, t0 + 1_000)).decision.remaining).toBe(0);
    });
  });
}

import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type StateStore, StoreUnavailableError } from '../../src/core/state/state-store.js';
import {
  connectRedisStore,
  loadRedisModule,
  redisStoreScripts,
  StoreConfigError,
} from '../../src/server/redis-store.js';
import { type RedisServerHandle, redisTestGate, startRedisServer } from '../support/redis-server.js';
import { keyEntry, publicEntry, storeOptions, testEpochMs as t0, uniquePrefix } from './fixtures.js';

const gate = redisTestGate();

describe.skipIf(gate.skip)(`Redis store${gate.skip ? ` (skipped: ${gate.reason})` : ''}`, () => {
  let redis: RedisServerHandle;
  let raw: ReturnType<typeof createClient>;
  const opened: StateStore[] = [];
  const open = async (
    prefix = uniquePrefix(),
    overrides: Parameters<typeof storeOptions>[0] = {},
    timeoutMs?: number,
  ) => {
    const store = await connectRedisStore({ url: redis.url, prefix, timeoutMs }, storeOptions(overrides));
    opened.push(store);
    return store;
  };

  beforeAll(async () => {
    redis = await startRedisServer();
    raw = createClient({ url: redis.url });
    raw.on('error', () => {});
    await raw.connect();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });
  afterAll(async () => {
    raw?.destroy();
    await redis?.stop();
  });

  async function keysUnder(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    for await (const batch of raw.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) keys.push(...batch);
    return keys.sort();
  }

  it('puts every key under the prefix, tagged with its session, and gives every key of a named session a TTL', async () => {
    const prefix = uniquePrefix();
    const store = await open(prefix, { sessionIdleMs: 600_000 });
    const key = keyEntry('ttl-key-1', 'free', { perMinute: 60, perDay: 1000 });
    for (const session of ['default', 'ci-job-1']) {
      await store.hit(session, { baseTimeMs: t0, clientAddress: '::ffff:10.1.2.3' });
      await store.hit(session, {
        baseTimeMs: t0,
        clientAddress: '10.0.0.1',
        keyDigest: key.digest,
        configKey: publicEntry(key),
      });
      await store.addKey(session, keyEntry('ttl-key-2', 'pro', { perMinute: 1, perDay: 1 }), t0);
      await store.createCategory(session, { name: 'x' }, t0);
      await store.appendRequest(
        session,
        {
          timeMs: t0,
          method: 'GET',
          path: '/',
          operationId: null,
          plan: 'anonymous',
          key: null,
          status: 404,
          code: 'not_found',
        },
        t0,
      );
      await store.advanceClock(session, 1_000, t0);
    }
    const keys = await keysUnder(prefix);
    expect(keys.length).toBeGreaterThanOrEqual(15);
    for (const name of keys) {
      const tag = /\{([^}]*)\}/.exec(name)?.[1];
      const ttl = await raw.pTTL(name);
      if (name === `${prefix}sessions`) {
        expect(ttl).toBeGreaterThan(0);
        continue;
      }
      expect(['default', 'ci-job-1'], name).toContain(tag);
      expect(name.indexOf('{'), name).toBe(prefix.length);
      if (tag === 'ci-job-1') {
        expect(ttl, name).toBeGreaterThan(0);
        expect(ttl, name).toBeLessThanOrEqual(Math.max(600_000, 86_400_000 + 1_000));
      } else if (name.includes(':b:')) {
        // Buckets of the default session expire with their windows.
        expect(ttl, name).toBeGreaterThan(0);
        expect(ttl, name).toBeLessThanOrEqual(86_400_000 + 1_000);
      } else {
        // The default session never expires: its categories and log are bounded by size instead.
        expect(ttl, name).toBe(-1);
      }
    }
    // Session-level keys of a named session expire with its idle time.
    expect(await raw.pTTL(`${prefix}{ci-job-1}:meta`)).toBeLessThanOrEqual(600_000);
    expect(await raw.pTTL(`${prefix}{ci-job-1}:cats`)).toBeGreaterThan(590_000);
  });

  it("reads the time of the Redis server only for the call's deadline: the virtual clock is the time the scripts are given", () => {
    for (const [name, source] of Object.entries(redisStoreScripts)) {
      expect(source.match(/['"]TIME['"]/g), name).toHaveLength(1);
      expect(source, name).toContain("local redis_now = redis.call('TIME')");
      // Used once more, in the deadline's comparison, and nowhere else.
      expect(source.match(/redis_now/g), name).toHaveLength(3);
      expect(source, name).toMatch(
        /if tonumber\(redis_now\[1\]\) \* 1000000 \+ tonumber\(redis_now\[2\]\) > tonumber\(deadline\) then return 'PETSTORE_LATE' end/,
      );
    }
  });

  it('bounds the request log in Redis to requestLogSize entries', async () => {
    const prefix = uniquePrefix();
    const store = await open(prefix, { requestLogSize: 3 });
    for (let index = 0; index < 50; index += 1)
      await store.appendRequest(
        'default',
        {
          timeMs: t0 + index,
          method: 'GET',
          path: '/',
          operationId: null,
          plan: 'anonymous',
          key: null,
          status: 200,
          code: null,
        },
        t0,
      );
    expect(await raw.lLen(`${prefix}{default}:log`)).toBe(3);
    expect((await store.requests('default', t0)).map((entry) => entry.time)).toEqual(
      [47, 48, 49].map((offset) => new Date(t0 + offset).toISOString()),
    );
  });

  it('stores no key and no digest in clear: only the masked key, plan, limits and bucket id', async () => {
    const prefix = uniquePrefix();
    const store = await open(prefix);
    const key = keyEntry('super-secret-token-123', 'pro', { perMinute: 5, perDay: 5 });
    await store.addKey('default', key, t0);
    await store.hit('default', { baseTimeMs: t0, clientAddress: '10.0.0.1', keyDigest: key.digest });
    for (const name of await keysUnder(prefix)) {
      const type = await raw.type(name);
      const dump =
        type === 'hash'
          ? JSON.stringify(await raw.hGetAll(name))
          : type === 'list'
            ? JSON.stringify(await raw.lRange(name, 0, -1))
            : type === 'zset'
              ? JSON.stringify(await raw.zRange(name, 0, -1))
              : String(await raw.get(name));
      expect(`${name} ${dump}`).not.toContain('super-secret-token-123');
    }
  });

  it('fails fast with StoreUnavailableError while Redis is down, and serves again by itself when it is back', async () => {
    const store = await open(uniquePrefix(), {}, 500);
    await store.hit('default', { baseTimeMs: t0, clientAddress: '10.0.0.1' });
    await redis.stop();
    try {
      const started = Date.now();
      const results = await Promise.allSettled(
        Array.from({ length: 200 }, (_, index) =>
          store.hit('default', { baseTimeMs: t0, clientAddress: `10.0.1.${index % 50}` }),
        ),
      );
      expect(Date.now() - started).toBeLessThan(2_000);
      for (const result of results) {
        expect(result.status).toBe('rejected');
        expect((result as PromiseRejectedResult).reason).toBeInstanceOf(StoreUnavailableError);
        expect((result as PromiseRejectedResult).reason).toMatchObject({
          code: 'store_unavailable',
          status: 503,
          retryAfterSeconds: 2,
          message: "The mock's state store is unavailable; retry after 2 seconds",
        });
        // The host is for the log, never for a client.
        expect((result as PromiseRejectedResult).reason.message).not.toContain('127.0.0.1');
        expect((result as PromiseRejectedResult).reason.detail).toMatch(
          /^The Redis store redis:\/\/127\.0\.0\.1:\d+\/0 is unavailable/,
        );
      }
    } finally {
      await redis.start();
    }
    // The client reconnects with a backoff capped at 1 s.
    const deadline = Date.now() + 5_000;
    let answer: unknown;
    while (Date.now() < deadline) {
      try {
        answer = await store.hit('default', { baseTimeMs: t0, clientAddress: '10.0.0.1' });
        break;
      } catch (error) {
        expect(error).toBeInstanceOf(StoreUnavailableError);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    // Persistence is off: the restarted Redis is empty, and the store serves it as a fresh one.
    expect(answer).toMatchObject({ decision: { outcome: 'allowed' } });
  });

  it('settles every call in flight when Redis goes away under load: an answer or StoreUnavailableError, within the timeout', async () => {
    // A call that Redis runs after its timeout changes nothing and is refused (decision 019), so on a busy machine a
    // short timeout with thousands queued refuses them all: 400 calls and 1.5 s keep some answered anywhere.
    const timeoutMs = 1_500;
    const store = await open(uniquePrefix(), { anonymous: { perMinute: 1e8, perDay: 1e8 } }, timeoutMs);
    await store.clockOffset('default', t0);
    const started = Date.now();
    // Redis is stopped once 50 calls have settled: the rest are in flight or not yet sent. Counted on settling, so
    // Redis is stopped even when few answers come back in time.
    let settled = 0;
    let stopping: Promise<void> | undefined;
    const calls = Array.from({ length: 400 }, (_, index) =>
      store.hit('default', { baseTimeMs: t0, clientAddress: `10.0.2.${index % 100}` }).finally(() => {
        settled += 1;
        if (settled === 50) stopping = redis.stop();
      }),
    );
    const inFlight = await Promise.allSettled(calls);
    await (stopping ?? redis.stop());
    // A fast Redis may answer every call it had received before it exits: the calls made once it is
    // gone must fail too, within the timeout.
    const afterStop = await Promise.allSettled(
      Array.from({ length: 50 }, (_, index) =>
        store.hit('default', { baseTimeMs: t0, clientAddress: `10.0.3.${index}` }),
      ),
    );
    const results = [...inFlight, ...afterStop];
    try {
      expect(afterStop.every((result) => result.status === 'rejected')).toBe(true);
      // In-flight calls settle within one timeout, the calls after the stop within another.
      expect(Date.now() - started).toBeLessThan(2 * timeoutMs + 2_000);
      for (const result of results) {
        if (result.status === 'fulfilled') expect(result.value.decision.outcome).toBe('allowed');
        else expect(result.reason).toBeInstanceOf(StoreUnavailableError);
      }
      expect(results.some((result) => result.status === 'fulfilled')).toBe(true);
      expect(results.some((result) => result.status === 'rejected')).toBe(true);
    } finally {
      await redis.start();
    }
  });

  it('answers StoreUnavailableError within the timeout when Redis accepts connections but never answers', async () => {
    const store = await open(uniquePrefix(), {}, 300);
    await store.clockOffset('default', t0);
    redis.pause();
    try {
      const started = Date.now();
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, () => store.hit('default', { baseTimeMs: t0, clientAddress: '10.0.0.1' })),
      );
      const elapsed = Date.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(250);
      // Wall clock (Redis is another process): ~380 ms on a quiet machine, 5 x that for a loaded CI; a
      // store that waits for the frozen Redis never answers at all.
      expect(elapsed).toBeLessThan(2_000);
      for (const result of results) {
        expect((result as PromiseRejectedResult).reason).toBeInstanceOf(StoreUnavailableError);
        expect((result as PromiseRejectedResult).reason.detail).toMatch(
          /did not answer within 300 ms; whatever it was asked will not be done$/,
        );
      }
    } finally {
      redis.resume();
    }
    expect((await store.hit('default', { baseTimeMs: t0, clientAddress: '10.0.0.2' })).decision.outcome).toBe(
      'allowed',
    );
  });

  it('fails at startup with one line naming the store when Redis is unreachable', async () => {
    const closedPort = redis.port === 1 ? 2 : 1;
    const started = Date.now();
    const failure = await connectRedisStore(
      { url: `redis://127.0.0.1:${closedPort}/0`, timeoutMs: 1_000 },
      storeOptions(),
    ).catch((error: unknown) => error);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(failure).toBeInstanceOf(StoreConfigError);
    expect((failure as Error).message).toMatch(/^Failed to connect to the store redis:\/\/127\.0\.0\.1:\d+\/0: .+$/);
    expect((failure as Error).message).not.toContain('\n');
  });

  it('refuses a bad store URL, prefix or timeout with one line, and hides the password', async () => {
    const cases: [Parameters<typeof connectRedisStore>[0], RegExp][] = [
      [{ url: 'not a url' }, /not a URL; expected redis:\/\/HOST:PORT\/DB/],
      [{ url: 'http://127.0.0.1:6379' }, /unsupported scheme http:/],
      [{ url: 'redis://127.0.0.1:6379/x' }, /database number/],
      [
        { url: 'redis://:hunter2@127.0.0.1:6379/0', prefix: 'a{b}' },
        /^Failed to use the store redis:\/\/:\*\*\*@127\.0\.0\.1:6379\/0: the key prefix/,
      ],
      [
        { url: 'redis://127.0.0.1:6379/0', timeoutMs: 10_000 },
        /timeout must be a whole number of milliseconds from 1 to 5000/,
      ],
    ];
    for (const [options, message] of cases) {
      const failure = await connectRedisStore(options, storeOptions()).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(StoreConfigError);
      expect((failure as Error).message).toMatch(message);
      expect((failure as Error).message).not.toContain('hunter2');
    }
  });

  it('names the install command when node-redis is not installed', async () => {
    const missing = Object.assign(new Error("Cannot find package 'redis'"), { code: 'ERR_MODULE_NOT_FOUND' });
    await expect(loadRedisModule('redis://127.0.0.1:6379/0', () => Promise.reject(missing))).rejects.toThrow(
      new StoreConfigError(
        'Failed to use the store redis://127.0.0.1:6379/0: the Redis client is not installed; run npm install redis',
      ),
    );
  });

  it('enforces a ban triggered through one replica on the others, with the same Retry-After', async () => {
    const prefix = uniquePrefix();
    const ban = { enabled: true, threshold: 2, durationMs: 900_000 };
    const replicas = [await open(prefix, { ban }), await open(prefix, { ban }), await open(prefix, { ban })];
    const free = keyEntry('demo-free', 'free', { perMinute: 60, perDay: 1_000 });
    const hit = (index: number, at: number) =>
      replicas[index % 3]!.hit('default', {
        baseTimeMs: at,
        clientAddress: '10.0.0.1',
        keyDigest: free.digest,
        configKey: publicEntry(free),
      });
    for (let index = 0; index < 60; index += 1) await hit(index, t0);
    expect((await hit(0, t0)).decision.outcome).toBe('limited');
    expect((await hit(1, t0)).decision.outcome).toBe('limited');
    expect((await hit(2, t0 + 500)).decision).toMatchObject({
      outcome: 'banned',
      retryAfterSeconds: 900,
      resetAtMs: t0 + 500 + 900_000,
    });
    for (const index of [0, 1, 2])
      expect((await hit(index, t0 + 1_000)).decision).toMatchObject({
        outcome: 'banned',
        resetAtMs: t0 + 500 + 900_000,
        retryAfterSeconds: 900,
      });
  });

  it('sees clock moves, keys and resets made through another replica on the next request', async () => {
    const prefix = uniquePrefix();
    const [a, b] = [
      await open(prefix, { anonymous: { perMinute: 1, perDay: 100 } }),
      await open(prefix, { anonymous: { perMinute: 1, perDay: 100 } }),
    ];
    await a.hit('job', { baseTimeMs: t0, clientAddress: '10.0.0.1' });
    expect((await b.hit('job', { baseTimeMs: t0, clientAddress: '10.0.0.1' })).decision.outcome).toBe('limited');
    await a.advanceClock('job', 60_000, t0);
    expect((await b.hit('job', { baseTimeMs: t0, clientAddress: '10.0.0.1' })).decision.outcome).toBe('allowed');
    await b.reset('job', t0);
    expect((await a.hit('job', { baseTimeMs: t0, clientAddress: '10.0.0.1' })).decision.outcome).toBe('allowed');
    const key = keyEntry('added-on-a-1', 'pro', { perMinute: 7, perDay: 7 });
    await a.addKey('job', key, t0);
    expect(
      (await b.hit('job', { baseTimeMs: t0, clientAddress: '10.0.0.1', keyDigest: key.digest })).key,
    ).toMatchObject({ plan: 'pro' });
  });
});

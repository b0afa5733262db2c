import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/core/state/memory-store.js';
import type { StateStore, StateStoreOptions } from '../../src/core/state/state-store.js';
import { connectRedisStore } from '../../src/server/redis-store.js';
import { type RedisServerHandle, redisTestGate, startRedisCluster, startRedisServer } from '../support/redis-server.js';
import { keyEntry, publicEntry, storeOptions, testEpochMs as t0, uniquePrefix } from './fixtures.js';

const gate = redisTestGate();
const free = keyEntry('demo-free', 'free', { perMinute: 60, perDay: 1_000 });
const defaultBan = { enabled: true, threshold: 10, durationMs: 900_000 };

describe.skipIf(gate.skip)(`Redis store under concurrency${gate.skip ? ` (skipped: ${gate.reason})` : ''}`, () => {
  let redis: RedisServerHandle;
  const opened: StateStore[] = [];
  /** Three stores on one prefix, each with its own connection: three replicas. */
  const replicas = async (overrides: Partial<StateStoreOptions> = {}) => {
    const prefix = uniquePrefix();
    const stores = await Promise.all(
      [0, 1, 2].map(() =>
        connectRedisStore({ url: redis.url, prefix }, storeOptions({ ban: defaultBan, ...overrides })),
      ),
    );
    opened.push(...stores);
    return stores;
  };
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await Promise.all(opened.map((store) => store.close()));
    await redis?.stop();
  });

  it('1,000 concurrent hits on a fresh Free key through 3 connections allow exactly 60', async () => {
    const stores = await replicas();
    const results = await Promise.all(
      Array.from({ length: 1_000 }, (_, index) =>
        stores[index % 3]!.hit('default', {
          baseTimeMs: t0,
          clientAddress: '10.0.0.1',
          keyDigest: free.digest,
          configKey: publicEntry(free),
        }),
      ),
    );
    const outcomes = results.map((result) => result.decision.outcome);
    expect(outcomes.filter((outcome) => outcome === 'allowed')).toHaveLength(60);
    // Exactly threshold 429s, then the ban: the counting is atomic across connections.
    expect(outcomes.filter((outcome) => outcome === 'limited')).toHaveLength(10);
    expect(outcomes.filter((outcome) => outcome === 'banned')).toHaveLength(930);
    const remaining = results
      .filter((result) => result.decision.outcome === 'allowed')
      .map((result) => result.decision.remaining)
      .sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: 60 }, (_, index) => index));
  });

  it('300 concurrent creates through 3 connections get 300 distinct ids, and every replica lists all of them', async () => {
    const stores = await replicas({ maxCategories: 10_000 });
    const created = await Promise.all(
      Array.from({ length: 300 }, (_, index) =>
        stores[index % 3]!.createCategory('default', { name: `c${index}` }, t0),
      ),
    );
    const ids = created.map((result) => result.category.id);
    expect(new Set(ids).size).toBe(300);
    // After the two seeds, in sequence.
    expect([...ids].sort((a, b) => a - b)).toEqual(Array.from({ length: 300 }, (_, index) => index + 3));
    for (const store of stores) {
      const listed = await store.listCategories('default', t0);
      expect(listed).toHaveLength(302);
      expect(new Set(listed.map((category) => category.id)).size).toBe(302);
    }
  });
});

/** One session's full cycle: spend a Free key to 429 and a ban, create categories, advance its clock, reset. */
async function cycle(store: StateStore, session: string) {
  const hit = () =>
    store.hit(session, {
      baseTimeMs: t0,
      clientAddress: '10.0.0.1',
      keyDigest: free.digest,
      configKey: publicEntry(free),
    });
  const outcomes: string[] = [];
  for (let index = 0; index < 72; index += 1) outcomes.push((await hit()).decision.outcome);
  const ids: number[] = [];
  for (let index = 0; index < 5; index += 1)
    ids.push((await store.createCategory(session, { name: `${session}-${index}` }, t0)).category.id);
  const offset = await store.advanceClock(session, 60_000, t0);
  const stillBanned = (await hit()).decision.outcome;
  await store.reset(session, t0);
  const afterReset = (await hit()).decision;
  const categories = await store.listCategories(session, t0);
  return { outcomes, ids, offset, stillBanned, afterReset, categories };
}

const storeKinds = [
  { name: 'memory', skip: false },
  { name: `redis${gate.skip ? ` (skipped: ${gate.reason})` : ''}`, skip: gate.skip },
];

describe('20 concurrent sessions on one store have no effect on each other', () => {
  let redis: RedisServerHandle | undefined;
  beforeAll(async () => {
    if (!gate.skip) redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  for (const kind of storeKinds) {
    it.skipIf(kind.skip)(`on the ${kind.name} store`, async () => {
      const options = storeOptions({ ban: defaultBan, maxSessions: 25 });
      const store =
        kind.name === 'memory'
          ? createMemoryStore(options)
          : await connectRedisStore({ url: redis!.url, prefix: uniquePrefix() }, options);
      try {
        const alone = await cycle(kind.name === 'memory' ? createMemoryStore(options) : store, 'solo');
        const sessions = Array.from({ length: 20 }, (_, index) => `ci-job-${index}`);
        const results = await Promise.all(sessions.map((session) => cycle(store, session)));
        for (const [index, result] of results.entries()) {
          expect(result.outcomes, sessions[index]).toEqual(alone.outcomes);
          expect(result.ids).toEqual([3, 4, 5, 6, 7]);
          expect(result.offset).toBe(60_000);
          expect(result.stillBanned).toBe('banned');
          expect(result.afterReset).toMatchObject({ outcome: 'allowed', remaining: 59 });
          expect(result.categories).toEqual(
            options.seedCategories.map((category, position) => ({ id: position + 1, ...category })),
          );
        }
        expect(alone.outcomes.filter((outcome) => outcome === 'allowed')).toHaveLength(60);
        expect(alone.outcomes.at(-1)).toBe('banned');
        // The default session never saw any of it.
        expect(await store.clockOffset('default', t0)).toBe(0);
        expect(
          (
            await store.hit('default', {
              baseTimeMs: t0,
              clientAddress: '10.0.0.1',
              keyDigest: free.digest,
              configKey: publicEntry(free),
            })
          ).decision,
        ).toMatchObject({ outcome: 'allowed', remaining: 59 });
        expect(await store.listCategories('default', t0)).toHaveLength(options.seedCategories.length);
      } finally {
        await store.close();
      }
    });
  }
});

describe.skipIf(gate.skip)(`Redis Cluster${gate.skip ? ` (skipped: ${gate.reason})` : ''}`, () => {
  let cluster: Awaited<ReturnType<typeof startRedisCluster>>;
  beforeAll(async () => {
    cluster = await startRedisCluster(3);
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('counts atomically through 3 cluster connections and spreads sessions over the nodes', async () => {
    const prefix = uniquePrefix();
    const stores = await Promise.all(
      [0, 1, 2].map(() =>
        connectRedisStore(
          { url: cluster.url, prefix, cluster: true },
          storeOptions({ ban: defaultBan, maxSessions: 50 }),
        ),
      ),
    );
    try {
      const results = await Promise.all(
        Array.from({ length: 1_000 }, (_, index) =>
          stores[index % 3]!.hit('default', {
            baseTimeMs: t0,
            clientAddress: '10.0.0.1',
            keyDigest: free.digest,
            configKey: publicEntry(free),
          }),
        ),
      );
      expect(results.filter((result) => result.decision.outcome === 'allowed')).toHaveLength(60);
      const sessions = Array.from({ length: 30 }, (_, index) => `job-${index}`);
      const created = await Promise.all(
        sessions.flatMap((session) =>
          [0, 1, 2].map((replica) => stores[replica]!.createCategory(session, { name: 'x' }, t0)),
        ),
      );
      for (const [index, session] of sessions.entries()) {
        expect(
          created
            .slice(index * 3, index * 3 + 3)
            .map((result) => result.category.id)
            .sort(),
          session,
        ).toEqual([3, 4, 5]);
      }
      // Each node holds some of the sessions: the cluster spreads them.
      const holding = cluster.nodes.filter(
        (node) =>
          Number(spawnSync('redis-cli', ['-p', String(node.port), 'dbsize'], { encoding: 'utf8' }).stdout.trim()) > 0,
      );
      expect(holding.length).toBe(3);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });
});

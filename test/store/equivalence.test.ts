import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/core/state/memory-store.js';
import type { StateStore, StateStoreOptions } from '../../src/core/state/state-store.js';
import { connectRedisStore } from '../../src/server/redis-store.js';
import { redisTestGate, startRedisCluster, startRedisServer } from '../support/redis-server.js';
import { keyEntry, publicEntry, storeOptions, testEpochMs, uniquePrefix } from './fixtures.js';

const gate = redisTestGate();
const sessions = ['default', 's1', 's2', 's3', 's4'];
const addresses = ['10.0.0.1', '::ffff:10.0.0.2', 'local'];
// Key 0 and 1 are config keys; key 1 and 2 can be added at run time (so key 1 can be shadowed).
const keyNames = ['config-only-key', 'shadowed-key-1', 'runtime-only-key'];

type Operation =
  | { kind: 'time'; ms: number }
  | {
      kind: 'hit';
      session: string;
      address: string;
      key: number | null;
      categories: 'none' | 'list' | 'list-keyed' | 'create' | 'create-keyed';
    }
  | { kind: 'peek'; session: string; address: string }
  | { kind: 'create'; session: string; name: string; description?: string }
  | { kind: 'list'; session: string }
  | { kind: 'stats'; session: string }
  | { kind: 'addKey'; session: string; key: number; perMinute: number; perDay: number }
  | { kind: 'keys'; session: string }
  | { kind: 'advance'; session: string; ms: number }
  | { kind: 'offset'; session: string }
  | { kind: 'log'; session: string; status: number }
  | { kind: 'requests'; session: string }
  | { kind: 'reset'; session: string }
  | { kind: 'sessions' }
  | { kind: 'setSpent'; session: string; address: string; key: number | null; minute?: number; day?: number }
  | { kind: 'ban'; session: string; address: string; key: number | null; ms: number }
  | { kind: 'setAfterSunset'; session: string; mode: 'gone' | 'serve' | null }
  | { kind: 'afterSunset'; session: string }
  | { kind: 'snapshot'; session: string }
  | { kind: 'startingState'; session: string }
  | { kind: 'restore'; session: string; to: string }
  | { kind: 'logRequest'; session: string; address: string; key: number | null; status: number };

// Biased towards one session and one client, so windows fill, bans start and expire.
const session = fc.oneof(
  { weight: 6, arbitrary: fc.constant('default') },
  { weight: 3, arbitrary: fc.constant('s1') },
  { weight: 2, arbitrary: fc.constantFrom(...sessions) },
);
const address = fc.oneof(
  { weight: 4, arbitrary: fc.constant(addresses[0]!) },
  { weight: 1, arbitrary: fc.constantFrom(...addresses) },
);
/** Steps that land exactly on, just before and just after the window and ban boundaries. */
/**
 * Worlds this property once failed on, run first every time. A clock step of 0.00012 ms left a ban ending
 * between two milliseconds: the memory store then refused its own snapshot and Redis called it corrupt (the
 * clock now moves in whole milliseconds).
 */
const knownCounterexamples: [World][] = [
  [
    {
      ban: { enabled: false, threshold: 1, durationMs: 1000 },
      anonymous: { perMinute: 1, perDay: 1 },
      configLimits: [
        { perMinute: 1, perDay: 1 },
        { perMinute: 1, perDay: 1 },
      ],
      maxCategories: 1,
      maxCategoryBytes: 16,
      requestLogSize: 1,
      seeds: [],
      maxSessions: 1,
      operations: [
        { kind: 'advance', session: 'default', ms: 0.00012207031250000003 },
        { kind: 'ban', session: 'default', address: '10.0.0.1', key: null, ms: 1 },
        { kind: 'restore', session: 'default', to: 's1' },
      ],
    },
  ],
];

const boundaryStep = fc.constantFrom(1, 999, 1_000, 1_001, 59_999, 60_000, 60_001, 86_340_000, 86_399_999, 86_400_000);
const smallLimit = fc.integer({ min: 1, max: 6 });
const operation: fc.Arbitrary<Operation> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('time' as const),
      ms: fc.oneof(
        { weight: 1, arbitrary: fc.constant(0) },
        { weight: 4, arbitrary: boundaryStep },
        { weight: 2, arbitrary: fc.integer({ min: 1, max: 70_000 }) },
      ),
    }),
  },
  {
    weight: 14,
    arbitrary: fc.record({
      kind: fc.constant('hit' as const),
      session,
      address,
      key: fc.option(fc.integer({ min: 0, max: 2 }), { nil: null }),
      categories: fc.constantFrom(
        'none' as const,
        'list' as const,
        'list-keyed' as const,
        'create' as const,
        'create-keyed' as const,
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('peek' as const), session, address }) },
  {
    weight: 2,
    arbitrary: fc.record(
      {
        kind: fc.constant('create' as const),
        session,
        name: fc.string({ maxLength: 8 }),
        description: fc.option(fc.string({ maxLength: 8 }), { nil: undefined }),
      },
      { requiredKeys: ['kind', 'session', 'name'] },
    ),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('list' as const), session }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('stats' as const), session }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('addKey' as const),
      session,
      key: fc.integer({ min: 1, max: 2 }),
      perMinute: smallLimit,
      perDay: fc.integer({ min: 1, max: 12 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('keys' as const), session }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      session,
      ms: fc.oneof(boundaryStep, fc.integer({ min: 0, max: 120_000 }), fc.double({ min: 0, max: 5_000, noNaN: true })),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('offset' as const), session }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('log' as const), session, status: fc.constantFrom(200, 201, 429, 401) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('requests' as const), session }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reset' as const), session }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('sessions' as const) }) },
  // Scenario steps: counts around the small limits (past them too), bans across the window boundaries.
  {
    weight: 2,
    arbitrary: fc.record(
      {
        kind: fc.constant('setSpent' as const),
        session,
        address,
        key: fc.option(fc.integer({ min: 0, max: 2 }), { nil: null }),
        minute: fc.integer({ min: 0, max: 8 }),
        day: fc.integer({ min: 0, max: 14 }),
      },
      { requiredKeys: ['kind', 'session', 'address', 'key'] },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('setAfterSunset' as const),
      session,
      mode: fc.constantFrom('gone' as const, 'serve' as const, null),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('afterSunset' as const), session }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('ban' as const),
      session,
      address,
      key: fc.option(fc.integer({ min: 0, max: 2 }), { nil: null }),
      ms: fc.oneof(boundaryStep, fc.integer({ min: 1, max: 200_000 })),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('snapshot' as const), session }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('startingState' as const), session }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('restore' as const), session, to: session }) },
  {
    // An API request logged after its hit: the log keeps its client's windows, and folds a dropped one into the starting state.
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('logRequest' as const),
      session,
      address,
      key: fc.option(fc.integer({ min: 0, max: 2 }), { nil: null }),
      status: fc.constantFrom(200, 429),
    }),
  },
);

const world = fc.record({
  ban: fc.record({
    enabled: fc.boolean(),
    threshold: fc.integer({ min: 1, max: 4 }),
    durationMs: fc.integer({ min: 1_000, max: 200_000 }),
  }),
  anonymous: fc.record({ perMinute: smallLimit, perDay: fc.integer({ min: 1, max: 12 }) }),
  configLimits: fc.array(fc.record({ perMinute: smallLimit, perDay: fc.integer({ min: 1, max: 12 }) }), {
    minLength: 2,
    maxLength: 2,
  }),
  maxCategories: fc.integer({ min: 1, max: 6 }),
  // Small enough that the byte bound drops categories (and refuses one larger than the whole bound) often.
  maxCategoryBytes: fc.integer({ min: 16, max: 160 }),
  requestLogSize: fc.integer({ min: 1, max: 5 }),
  seeds: fc.array(fc.record({ name: fc.string({ maxLength: 6 }) }), { maxLength: 3 }),
  maxSessions: fc.integer({ min: 1, max: 3 }),
  operations: fc.array(operation, { minLength: 1, maxLength: 80 }),
});
type World = typeof world extends fc.Arbitrary<infer Value> ? Value : never;

/** One operation on one store, its answer made comparable (errors by name and code). */
async function apply(
  store: StateStore,
  op: Operation,
  baseTimeMs: number,
  configKeys: ReturnType<typeof keyEntry>[],
): Promise<unknown> {
  try {
    switch (op.kind) {
      case 'time':
        return null;
      case 'hit': {
        const token = op.key === null ? undefined : keyEntry(keyNames[op.key]!, 'x', { perMinute: 1, perDay: 1 });
        const configKey = op.key === null ? undefined : configKeys[op.key];
        const requiresKey = op.categories.endsWith('-keyed');
        const input = { name: `made-by-hit-${baseTimeMs % 997}` };
        const categories =
          op.categories === 'none'
            ? undefined
            : op.categories.startsWith('list')
              ? { kind: 'list' as const, requiresKey }
              : { kind: 'create' as const, requiresKey, input };
        return await store.hit(op.session, {
          baseTimeMs,
          clientAddress: op.address,
          keyDigest: token?.digest,
          configKey: configKey ? publicEntry(configKey) : undefined,
          categories,
        });
      }
      case 'peek':
        return await store.peekAnonymous(op.session, op.address, baseTimeMs);
      case 'create':
        return await store.createCategory(
          op.session,
          op.description === undefined ? { name: op.name } : { name: op.name, description: op.description },
          baseTimeMs,
        );
      case 'list':
        return [
          await store.listCategoriesJson(op.session, baseTimeMs),
          await store.listCategories(op.session, baseTimeMs),
        ];
      case 'addKey':
        return await store.addKey(
          op.session,
          keyEntry(keyNames[op.key]!, `plan-${op.perMinute}`, { perMinute: op.perMinute, perDay: op.perDay }),
          baseTimeMs,
        );
      case 'stats':
        return await store.stats(op.session, baseTimeMs);
      case 'keys':
        return await store.listKeys(op.session, baseTimeMs);
      case 'advance':
        return await store.advanceClock(op.session, op.ms, baseTimeMs);
      case 'offset':
        return await store.clockOffset(op.session, baseTimeMs);
      case 'log':
        await store.appendRequest(
          op.session,
          {
            timeMs: baseTimeMs + 0.5,
            method: 'GET',
            path: '/v1/categories',
            operationId: 'listCategories',
            plan: 'free',
            key: 'demo…(9)',
            status: op.status,
            code: op.status === 429 ? 'rate_limited' : null,
          },
          baseTimeMs,
        );
        return null;
      case 'logRequest': {
        const token = op.key === null ? undefined : keyEntry(keyNames[op.key]!, 'x', { perMinute: 1, perDay: 1 });
        await store.appendRequest(
          op.session,
          {
            timeMs: baseTimeMs,
            method: 'GET',
            path: '/v1/categories',
            operationId: 'listCategories',
            plan: token ? 'free' : 'anonymous',
            key: null,
            status: op.status,
            code: op.status === 429 ? 'rate_limited' : null,
            replay: {
              url: '/v1/categories',
              keyDigest: token?.digest ?? null,
              clientAddress: op.address,
              auth: token ? 'key' : 'none',
              limits: { perMinute: 1, perDay: 1 },
              prefer: null,
              contentType: null,
              body: null,
            },
          },
          baseTimeMs,
        );
        return await store.startingState(op.session, baseTimeMs);
      }
      case 'snapshot':
        return await store.snapshot(op.session, baseTimeMs);
      case 'startingState':
        return await store.startingState(op.session, baseTimeMs);
      case 'restore': {
        const saved = await store.snapshot(op.session, baseTimeMs);
        const applied = await store.applyScenario(op.to, saved, baseTimeMs);
        return [applied, await store.snapshot(op.to, baseTimeMs), await store.startingState(op.to, baseTimeMs)];
      }
      case 'requests':
        return await store.requests(op.session, baseTimeMs);
      case 'reset':
        await store.reset(op.session, baseTimeMs);
        return null;
      case 'setAfterSunset':
        await store.setAfterSunset(op.session, op.mode, baseTimeMs);
        return null;
      case 'afterSunset':
        return await store.afterSunset(op.session, baseTimeMs);
      case 'setSpent':
      case 'ban': {
        const client =
          op.key === null
            ? { kind: 'anonymous' as const, address: op.address }
            : { kind: 'key' as const, id: keyEntry(keyNames[op.key]!, 'x', { perMinute: 1, perDay: 1 }).id };
        if (op.kind === 'ban') return await store.ban(op.session, client, op.ms, baseTimeMs);
        await store.setSpent(
          op.session,
          client,
          {
            ...(op.minute !== undefined ? { minute: op.minute } : {}),
            ...(op.day !== undefined ? { day: op.day } : {}),
          },
          baseTimeMs,
        );
        return null;
      }
      case 'sessions':
        // lastSeenMs is exact in memory and to the second on Redis: the names are what must agree.
        return (await store.listSessions(baseTimeMs)).map((entry) => entry.name).sort();
    }
  } catch (error) {
    return {
      error: (error as Error).name,
      code: (error as { code?: string }).code ?? null,
      message: (error as Error).message,
    };
  }
}

const targets = [
  {
    name: 'one Redis',
    cluster: false,
    runs: Number(process.env.STORE_PROPERTY_RUNS ?? 150),
    start: async () => startRedisServer(),
  },
  // The same scripts on a 3-node Redis Cluster: each call's keys share a hash tag, so no CROSSSLOT, no MOVED loop.
  {
    name: 'a Redis Cluster of 3 nodes',
    cluster: true,
    runs: Number(process.env.STORE_PROPERTY_RUNS ?? 40),
    start: async () => startRedisCluster(3),
  },
];

for (const target of targets) {
  describe.skipIf(gate.skip)(
    `the memory store and ${target.name} answer alike${gate.skip ? ` (skipped: ${gate.reason})` : ''}`,
    () => {
      let redis: { url: string; stop(): Promise<void> };
      beforeAll(async () => {
        redis = await target.start();
      });
      afterAll(async () => {
        await redis?.stop();
      });

      it('gives identical answers to the same random operations, times, sessions, limits and ban policies', async () => {
        await fc.assert(
          fc.asyncProperty(world, async (input) => {
            const options: StateStoreOptions = storeOptions({
              ban: input.ban,
              anonymous: input.anonymous,
              maxCategories: input.maxCategories,
              maxCategoryBytes: input.maxCategoryBytes,
              requestLogSize: input.requestLogSize,
              seedCategories: input.seeds,
              maxSessions: input.maxSessions,
              // Idle expiry is measured on different clocks (base time in memory, Redis TTL): a separate test.
              sessionIdleMs: 1e12,
            });
            const configKeys = input.configLimits.map((limits, index) =>
              keyEntry(keyNames[index]!, `config-${index}`, limits),
            );
            const memory = createMemoryStore(options);
            const onRedis = await connectRedisStore(
              { url: redis.url, prefix: uniquePrefix(), cluster: target.cluster },
              options,
            );
            try {
              let baseTimeMs = testEpochMs;
              for (const [step, op] of input.operations.entries()) {
                if (op.kind === 'time') baseTimeMs += op.ms;
                const expected = await apply(memory, op, baseTimeMs, configKeys);
                const actual = await apply(onRedis, op, baseTimeMs, configKeys);
                expect(actual, `step ${step}: ${JSON.stringify(op)}`).toEqual(expected);
              }
            } finally {
              await onRedis.close();
            }
          }),
          { numRuns: target.runs, examples: knownCounterexamples },
        );
      });
    },
  );
}

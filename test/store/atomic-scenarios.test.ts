import fc from 'fast-check';
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
 * A scenario (or a control) that is refused changes nothing, on either store: everything that can
 * refuse it (sizes, maxCategoryBytes, encodings, ranges, the store's key rules, the clock) is checked
 * before the first change, and the change is one step. Proven two ways: two mocks built alike, the
 * scenario sent to one, then the same probes to both must get the same answers; and on Redis every
 * key under the prefix holds the same value before and after.
 */
const gate = redisTestGate();
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

const config = {
  maxCategoryBytes: 1_024,
  ban: { threshold: 3, durationSeconds: 300 },
  keys: [{ key: 'config-key-1', plan: 'pro' }],
};
const options = mockStoreOptions({ spec: specDocument, config, seed: 1 });
const session = 'scenario-target';
const hour = 3_600;
const keyPool = ['demo-free', 'config-key-1', 'team-key', 'other-team-key'];
const addressPool = ['10.0.0.5', '10.0.0.6', 'browser-tab'];

type Store = { name: string; skip: boolean; open(): Promise<{ store: StateStore; prefix?: string }> };
const stores: Store[] = [
  { name: 'memory', skip: false, open: async () => ({ store: createMemoryStore(options) }) },
  {
    name: `redis${gate.skip ? ` (skipped: ${gate.reason})` : ''}`,
    skip: gate.skip,
    async open() {
      const prefix = uniquePrefix();
      return { store: await connectRedisStore({ url: redis.url, prefix }, options), prefix };
    },
  },
];

/** A mock on a clock that stands still, with some state in the target session already: a key, categories, a clock an hour ahead. */
async function preparedMock(target: Store): Promise<{ app: MockApp; prefix?: string }> {
  const { store, prefix } = await target.open();
  const app = createMockApp({ spec: specDocument, config, seed: 1, clock: createFixedClock(testEpochMs), store });
  await app.controlsFor(session).applyScenario({
    clock: { offsetSeconds: hour },
    keys: [{ key: 'team-key', plan: 'free', spent: { minute: 3 } }],
    categories: [{ name: 'before-1' }, { name: 'before-2' }],
  });
  return { app, prefix };
}

/** What the session shows: every client the scenarios can name, the lists, the clock, the keys, the sunset choice. */
async function probe(app: MockApp): Promise<unknown[]> {
  const seen: unknown[] = [];
  const headers = { 'x-mock-session': session };
  for (const key of [...keyPool, undefined]) {
    for (const address of addressPool) {
      const response = await app.handle(
        mockRequest('GET', '/v1/categories', { ...(key ? { key } : {}), headers }, address),
      );
      seen.push({ key, address, status: response.status, headers: response.headers, body: response.body });
    }
  }
  seen.push((await app.handle(mockRequest('GET', '/v1/pets/1', { key: 'demo-pro', headers }, '10.0.0.9'))).status);
  const controls = app.controlsFor(session);
  seen.push(await controls.clock(), await controls.keys(), await controls.categories(), await controls.health());
  return seen;
}

/** Every key under the prefix with its type and value (TTLs run with real time; values must not move). */
async function dump(prefix: string): Promise<Record<string, unknown>> {
  const found: Record<string, unknown> = {};
  for await (const batch of raw.scanIterator({ MATCH: `${prefix}*`, COUNT: 1_000 })) {
    for (const name of batch) {
      const type = await raw.type(name);
      const value =
        type === 'string'
          ? await raw.get(name)
          : type === 'hash'
            ? await raw.hGetAll(name)
            : type === 'list'
              ? await raw.lRange(name, 0, -1)
              : type === 'zset'
                ? await raw.zRangeWithScores(name, 0, -1)
                : type;
      found[name] = { type, value };
    }
  }
  return found;
}

/** Applies a scenario; undefined when applied, else the refusal's message. */
async function attempt(app: MockApp, scenario: Record<string, unknown>): Promise<string | undefined> {
  try {
    await app.controlsFor(session).applyScenario(scenario);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** One refusing part at a time, each something a whole-scenario check must catch before any change. */
const refusals: Record<string, (scenario: Record<string, unknown[]>) => Record<string, unknown>> = {
  'a category over maxCategoryBytes': (scenario) => ({
    ...scenario,
    categories: [...(scenario.categories ?? []), { name: 'big', description: 'x'.repeat(1_100) }],
  }),
  'a lone surrogate in an anonymous address': (scenario) => ({
    ...scenario,
    anonymous: [...(scenario.anonymous ?? []), { address: '10.0.0.\ud800', bannedSeconds: 30 }],
  }),
  "a clock before the session's clock": (scenario) => ({
    ...scenario,
    clock: { at: new Date(testEpochMs + 60_000).toISOString() },
  }),
  'a clock more than 100 years ahead': (scenario) => ({ ...scenario, clock: { at: '2200-01-01T00:00:00Z' } }),
  'an offset that takes the clock past 100 years ahead': (scenario) => ({
    ...scenario,
    clock: { offsetSeconds: 100 * 365 * 86_400 },
  }),
  'more spent than the window holds': (scenario) => ({
    ...scenario,
    keys: [...(scenario.keys ?? []), { key: 'demo-free', spent: { minute: 61 } }],
  }),
  'an unknown plan': (scenario) => ({
    ...scenario,
    keys: [...(scenario.keys ?? []), { key: 'new-key-9', plan: 'platinum' }],
  }),
};

const scenarioArbitrary = fc.record(
  {
    clock: fc.oneof(
      fc.record({ offsetSeconds: fc.integer({ min: 0, max: 30 * 86_400 }) }),
      fc.record({
        at: fc
          .integer({ min: 2, max: 1_000 })
          .map((hours) => new Date(testEpochMs + hours * hour * 1_000).toISOString()),
      }),
    ),
    sunset: fc.record({ afterSunset: fc.constantFrom('gone', 'serve') }),
    keys: fc.array(
      fc.record(
        {
          key: fc.constantFrom(...keyPool.slice(2)),
          plan: fc.constantFrom('free', 'pro'),
          spent: fc.record({ minute: fc.integer({ min: 0, max: 30 }) }),
          bannedSeconds: fc.integer({ min: 1, max: 600 }),
        },
        { requiredKeys: ['key', 'plan'] },
      ),
      { maxLength: 3 },
    ),
    anonymous: fc.array(
      fc.record(
        {
          address: fc.constantFrom(...addressPool),
          spent: fc.record({ day: fc.integer({ min: 0, max: 900 }) }),
          bannedSeconds: fc.integer({ min: 1, max: 600 }),
        },
        { requiredKeys: ['address'] },
      ),
      { maxLength: 3 },
    ),
    categories: fc.array(
      fc.record(
        {
          name: fc.string({ minLength: 1, maxLength: 40, unit: 'grapheme' }),
          description: fc.string({ maxLength: 60 }),
        },
        { requiredKeys: ['name'] },
      ),
      { maxLength: 4 },
    ),
  },
  { requiredKeys: [] },
);

for (const target of stores) {
  describe.skipIf(target.skip)(`refused scenarios change nothing: ${target.name}`, () => {
    const opened: MockApp[] = [];
    afterAll(async () => {
      await Promise.all(opened.map((app) => app.close()));
    });
    const mock = async () => {
      const made = await preparedMock(target);
      opened.push(made.app);
      return made;
    };

    for (const [name, refuse] of Object.entries(refusals)) {
      it(`is refused whole for ${name}, with one line naming the field, and the session is as it was`, async () => {
        const [refused, untouched] = [await mock(), await mock()];
        const before = refused.prefix === undefined ? undefined : await dump(refused.prefix);
        const scenario = refuse({
          clock: [],
          keys: [{ key: 'other-team-key', plan: 'pro', spent: { minute: 5 } }],
          anonymous: [{ address: '10.0.0.6', spent: { minute: 2 } }],
          categories: [{ name: 'added' }],
        } as never);
        if ((scenario as { clock?: unknown[] }).clock?.length === 0)
          (scenario as { clock?: unknown }).clock = { offsetSeconds: 120 };
        const message = await attempt(refused.app, scenario);
        expect(message).toMatch(/^Invalid scenario: \S/);
        expect(message!.split('\n')).toHaveLength(1);
        if (refused.prefix !== undefined) expect(await dump(refused.prefix)).toEqual(before);
        expect(await probe(refused.app)).toEqual(await probe(untouched.app));
      });
    }

    it('property: any generated scenario with one refusing part changes nothing; without it, it applies', async () => {
      await fc.assert(
        fc.asyncProperty(scenarioArbitrary, fc.constantFrom(...Object.keys(refusals)), async (scenario, refusal) => {
          const [refused, untouched] = [await mock(), await mock()];
          const before = refused.prefix === undefined ? undefined : await dump(refused.prefix);
          expect(await attempt(refused.app, refusals[refusal]!(scenario as never))).toMatch(/^Invalid scenario: /);
          if (refused.prefix !== undefined) expect(await dump(refused.prefix)).toEqual(before);
          expect(await probe(refused.app)).toEqual(await probe(untouched.app));
          // The same scenario without the refusing part is accepted: what was refused was that part.
          expect(await attempt(untouched.app, scenario)).toBeUndefined();
          await Promise.all([refused.app.close(), untouched.app.close()]);
        }),
        { numRuns: target.name === 'memory' ? 60 : 25 },
      );
    });
  });
}

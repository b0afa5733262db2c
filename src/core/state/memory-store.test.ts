import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createFixedClock } from '../clock.js';
import { parseMockConfig } from '../config/mock-config.js';
import { sessionsConfigSchema, storeConfigSchema } from '../config/store-config.js';
import { createMemoryStore } from './memory-store.js';
import { RateLimiter } from './rate-limiter.js';
import type { StateStoreOptions } from './state-store.js';
import { storeOptionsFromConfig } from './store-options.js';

const t0 = Date.UTC(2026, 0, 1);
const hour = 3_600_000;

function options(overrides: Partial<StateStoreOptions> = {}): StateStoreOptions {
  return { ...storeOptionsFromConfig(parseMockConfig({}), [{ name: 'dog' }]), ...overrides };
}

/** A request from `address` (with a run-time key's digest, or anonymous) counted and logged at `atMs`, as the pipeline does. */
async function hitAndLog(
  store: ReturnType<typeof createMemoryStore>,
  address: string,
  atMs: number,
  keyDigest?: string,
): Promise<void> {
  await store.hit('default', { baseTimeMs: atMs, clientAddress: address, keyDigest });
  await store.appendRequest(
    'default',
    {
      timeMs: atMs,
      method: 'GET',
      path: '/v1/categories',
      operationId: 'listCategories',
      plan: keyDigest === undefined ? 'anonymous' : 'free',
      key: keyDigest === undefined ? null : 'k…',
      status: 200,
      code: null,
      replay: {
        url: '/v1/categories',
        keyDigest: keyDigest ?? null,
        clientAddress: address,
        auth: keyDigest === undefined ? 'none' : 'key',
        limits: { perMinute: 60, perDay: 1_000 },
        prefer: null,
        contentType: null,
        body: null,
      },
    },
    atMs,
  );
}

describe('createMemoryStore', () => {
  it('decides exactly as the RateLimiter of the single-process core, for any sequence of requests and clock moves', async () => {
    const step = fc.record({
      advanceMs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 61_000 }), fc.constant(86_400_000)),
      client: fc.constantFrom('10.0.0.1', '10.0.0.2'),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          threshold: fc.integer({ min: 1, max: 3 }),
          enabled: fc.boolean(),
          perMinute: fc.integer({ min: 1, max: 4 }),
          perDay: fc.integer({ min: 1, max: 9 }),
        }),
        fc.array(step, { maxLength: 60 }),
        async (policy, steps) => {
          const ban = { enabled: policy.enabled, threshold: policy.threshold, durationMs: 90_000 };
          const anonymous = { perMinute: policy.perMinute, perDay: policy.perDay };
          const store = createMemoryStore(options({ ban, anonymous }));
          const clock = createFixedClock(t0);
          const limiter = new RateLimiter({ clock, ban, maxBuckets: 10_000 });
          for (const { advanceMs, client } of steps) {
            clock.advance(advanceMs);
            const expected = limiter.hit(client, anonymous);
            const actual = await store.hit('default', { baseTimeMs: clock.now(), clientAddress: client });
            expect(actual.decision).toEqual(expected);
          }
        },
      ),
    );
  });

  it('forgets a named session idle for sessionIdleMs on the base clock, never the default one', async () => {
    const store = createMemoryStore(options({ sessionIdleMs: hour }));
    await store.createCategory('job', { name: 'x' }, t0);
    await store.createCategory('default', { name: 'y' }, t0);
    expect(await store.listCategories('job', t0 + hour - 1)).toHaveLength(2);
    expect((await store.listSessions(t0 + 2 * hour - 2)).map((session) => session.name)).toEqual(['job', 'default']);
    expect((await store.listSessions(t0 + 2 * hour - 1)).map((session) => session.name)).toEqual(['default']);
    expect(await store.listCategories('job', t0 + 2 * hour)).toEqual([{ id: 1, name: 'dog' }]);
    expect(await store.listCategories('default', t0 + 100 * hour)).toHaveLength(2);
  });

  it('frees the place of an expired session for a new one', async () => {
    const store = createMemoryStore(options({ maxSessions: 1, sessionIdleMs: hour }));
    await store.clockOffset('first', t0);
    await expect(store.clockOffset('second', t0 + hour - 1)).rejects.toMatchObject({ code: 'too_many_sessions' });
    expect(await store.clockOffset('second', t0 + hour)).toBe(0);
  });

  it('bounds the anonymous histories like the anonymous buckets', async () => {
    const store = createMemoryStore(options({ maxTrackedClients: 3 }));
    for (let index = 0; index < 10; index += 1)
      await store.hit('default', { baseTimeMs: t0, clientAddress: `10.0.0.${index}` });
    // The first address was forgotten: its history starts again.
    expect((await store.hit('default', { baseTimeMs: t0, clientAddress: '10.0.0.0' })).history.requests).toBe(1);
    expect((await store.hit('default', { baseTimeMs: t0, clientAddress: '10.0.0.9' })).history.requests).toBe(2);
  });

  it('bounds the histories of keys and addresses together, forgetting the least recently seen address', async () => {
    const store = createMemoryStore(options({ maxTrackedClients: 2 }));
    const key = {
      digest: 'ab'.repeat(32),
      id: 'ab'.repeat(16),
      plan: 'free',
      masked: 'ab…',
      limits: { perMinute: 60, perDay: 1_000 },
    };
    await store.addKey('default', key, t0);
    await store.hit('default', { baseTimeMs: t0, clientAddress: '10.0.0.1', keyDigest: key.digest });
    await store.hit('default', { baseTimeMs: t0, clientAddress: '10.0.0.1' });
    // Three histories for room for two: the address seen least recently goes, the key's stays.
    await store.hit('default', { baseTimeMs: t0, clientAddress: '10.0.0.2' });
    expect((await store.hit('default', { baseTimeMs: t0, clientAddress: '10.0.0.1' })).history.requests).toBe(1);
    expect(
      (await store.hit('default', { baseTimeMs: t0, clientAddress: '10.0.0.1', keyDigest: key.digest })).history
        .requests,
    ).toBe(2);
  });

  it('folds the drops of two digests with one key id into one client, the newest winning, as the limiter counts them', async () => {
    const store = createMemoryStore(options({ requestLogSize: 1 }));
    const id = 'cd'.repeat(16);
    const digests = [`${id}${'0'.repeat(32)}`, `${id}${'1'.repeat(32)}`];
    const limits = { perMinute: 60, perDay: 1_000 };
    for (const digest of digests)
      await store.addKey('default', { digest, id, plan: 'free', masked: 'cd…', limits }, t0);
    const logged = (digest: string, atMs: number) => hitAndLog(store, '10.0.0.1', atMs, digest);
    await logged(digests[0]!, t0);
    await logged(digests[1]!, t0 + 1);
    await logged(digests[0]!, t0 + 2);
    await logged(digests[1]!, t0 + 3); // drops the third request: the key had counted three
    const clients = (await store.startingState('default', t0 + 3)).state.clients;
    expect(clients?.map(({ client, windows }) => [client, windows.minuteCount])).toEqual([[{ kind: 'key', id }, 3]]);
  });

  it("folds the log's drops in place: a client's newest post wins, and a starting state read earlier stays as it was", async () => {
    const store = createMemoryStore(options({ requestLogSize: 2 }));
    const logged = (address: string, atMs: number) => hitAndLog(store, address, atMs);
    const clientsOf = async () =>
      (await store.startingState('default', t0 + 10_000)).state.clients?.map(({ client, windows }) => [
        client,
        windows.minuteCount,
      ]);
    for (let index = 0; index < 4; index += 1) await logged('10.0.0.1', t0 + index);
    const earlier = await store.startingState('default', t0 + 10_000);
    // Four requests, two kept: the second dropped one left the client at two requests in its minute.
    expect(earlier.dropped).toEqual({ count: 2, firstAtMs: t0, lastAtMs: t0 + 1 });
    expect(await clientsOf()).toEqual([[{ kind: 'anonymous', address: '10.0.0.1' }, 2]]);
    await logged('10.0.0.1', t0 + 4);
    expect(await clientsOf()).toEqual([[{ kind: 'anonymous', address: '10.0.0.1' }, 3]]);
    expect(earlier.dropped).toEqual({ count: 2, firstAtMs: t0, lastAtMs: t0 + 1 });
    expect(earlier.state.clients?.[0]?.windows.minuteCount).toBe(2);
  });

  it("keeps at most maxTrackedClients clients in the log's starting state, and sweeps those whose windows are over every 1,024 drops", async () => {
    const store = createMemoryStore(options({ requestLogSize: 1, maxTrackedClients: 2 }));
    const day = 86_400_000;
    const logged = (address: string, atMs: number) => hitAndLog(store, address, atMs);
    const addresses = async (atMs: number) =>
      (await store.startingState('default', atMs)).state.clients?.map(({ client }) =>
        client.kind === 'anonymous' ? client.address : client.id,
      );
    await logged('10.0.0.1', t0);
    await logged('10.0.0.2', t0 + 1); // drops 10.0.0.1's request: kept
    await logged('10.0.0.3', t0 + 2); // drops 10.0.0.2's: kept
    await logged('10.0.0.1', t0 + 3); // drops 10.0.0.3's: no room, not kept
    expect(await addresses(t0 + 3)).toEqual(['10.0.0.1', '10.0.0.2']);
    // A day later 10.0.0.1 keeps coming back, and 10.0.0.2's windows are over: the last of these drops is the
    // 1,024th, which sweeps 10.0.0.2 out, so 10.0.0.3 then finds room.
    for (let index = 0; index < 1_021; index += 1) await logged('10.0.0.1', t0 + day + 10 + index);
    await logged('10.0.0.3', t0 + day + 2_000);
    await logged('10.0.0.1', t0 + day + 2_001); // drops 10.0.0.3's request: kept now
    expect(await addresses(t0 + day + 2_001)).toEqual(['10.0.0.1', '10.0.0.3']);
  });

  it('returns copies: changing an answer changes nothing stored', async () => {
    const store = createMemoryStore(options());
    const [first] = await store.listCategories('default', t0);
    first!.name = 'changed';
    expect(await store.listCategoriesJson('default', t0)).toBe('[{"id":1,"name":"dog"}]');
  });

  it('refuses options that are not whole numbers in range, naming the option', () => {
    expect(() => createMemoryStore(options({ sessionIdleMs: 1.5 }))).toThrow(
      'Invalid store option sessionIdleMs: expected a whole number >= 1, got 1.5',
    );
    expect(() => createMemoryStore(options({ maxCategories: 0 }))).toThrow(/maxCategories/);
    expect(() => createMemoryStore(options({ ban: { enabled: true, threshold: Number.NaN, durationMs: 1 } }))).toThrow(
      /ban\.threshold/,
    );
  });

  it('answers nothing once closed', async () => {
    const store = createMemoryStore(options());
    await store.close();
    await expect(store.clockOffset('default', t0)).rejects.toThrow('Failed to use the memory store: it is closed');
  });
});

describe('the sessions and store config sections', () => {
  it('default to 100 sessions idle for an hour, and turn seconds into the store options', () => {
    const sessions = sessionsConfigSchema().parse(undefined);
    expect(sessions).toEqual({ maxSessions: 100, idleSeconds: 3600 });
    expect(
      storeOptionsFromConfig(parseMockConfig({}), [], sessionsConfigSchema().parse({ idleSeconds: 60 })),
    ).toMatchObject({ maxSessions: 100, sessionIdleMs: 60_000 });
  });

  it('refuse unknown fields and bad values by name', () => {
    expect(sessionsConfigSchema().safeParse({ max: 3 }).error?.issues[0]).toMatchObject({
      code: 'unrecognized_keys',
      keys: ['max'],
    });
    expect(storeConfigSchema().safeParse({ url: 'http://x' }).error?.issues[0]?.message).toBe(
      'must be a redis:// or rediss:// URL',
    );
    expect(storeConfigSchema().safeParse({ url: 'redis://x:6379/0', prefix: 'a{b}' }).error?.issues[0]?.path).toEqual([
      'prefix',
    ]);
    expect(storeConfigSchema().parse({ url: 'redis://x:6379/0', cluster: true })).toEqual({
      url: 'redis://x:6379/0',
      cluster: true,
    });
  });
});

import type { Category, NewCategory } from '../../spec/schemas.js';
import type { AfterSunsetMode } from '../core/config/store-config.js';
import { HttpError } from '../core/errors.js';
import type { ApiKeyEntry } from '../core/state/key-registry.js';
import type { RateDecision } from '../core/state/rate-limiter.js';
import { publicLogEntry, type RecordedRequest, type RequestLogEntry } from '../core/state/request-log.js';
import { assertSessionName, defaultSessionName } from '../core/state/sessions.js';
import type {
  CreatedCategory,
  HitInput,
  HitResult,
  RuntimeKey,
  SessionInfo,
  SessionStats,
  SpentCounts,
  StartingState,
  StateStore,
  StateStoreOptions,
  StoreClient,
  StoreScenario,
} from '../core/state/state-store.js';
import {
  assertAfterSunsetMode,
  assertClientStep,
  assertDigest,
  assertRuntimeKey,
  assertScenarioSteps,
  categoryTooLargeMessage,
  clientName,
  clockRangeMessage,
  clockStepMs,
} from '../core/state/store-checks.js';
import { assertStoreOptions } from '../core/state/store-options.js';
import {
  connectCommander,
  type RedisCommander,
  type RedisSettings,
  type RedisStoreOptions,
  resolveRedisOptions,
} from './redis-connection.js';
import { RedisScriptCaller } from './redis-script-caller.js';
import { type Script, scripts } from './redis-scripts.js';
import { RedisSessionRegistry } from './redis-session-registry.js';
import {
  countArg,
  createdFrom,
  decisionFrom,
  entryRecord,
  globEscaped,
  hitArgs,
  hitResultFrom,
  recordedFrom,
  scenarioArgs,
  scenarioFromParts,
  scenarioRefusal,
  seededCategories,
  startingStateFrom,
  storedKeyFrom,
} from './redis-store-codec.js';

export { loadRedisModule, type RedisStoreOptions, StoreConfigError } from './redis-connection.js';
export { redisStoreScripts } from './redis-scripts.js';

/**
 * The Redis state store, for replicas behind a load balancer. Node only: nothing in `src/core` or
 * `mocks/` imports this file, so the browser bundle never contains a Redis client.
 *
 * - node-redis (`redis` on npm) is an optional peer dependency, loaded with `import()` when a Redis
 *   store is asked for; without it, one line names the install command.
 * - One Lua script per operation (one round trip; atomic across replicas; redis-scripts.ts). The
 *   virtual clock comes from the caller's base time; Redis TIME is read only for each call's deadline.
 * - Every key is under `prefix` and carries the session as its hash tag (`prefix{session}:...`),
 *   so each script touches one slot and the same code runs on Redis Cluster.
 * - Every key has a TTL: windows expire, a session's keys expire after its idle time. The default
 *   session's categories, keys and log are bounded by size instead (maxCategories, requestLogSize).
 * - An answer of 503 means nothing changed: a script that starts after its deadline does nothing,
 *   and the store waits for every answer until then. Data under the prefix that the mock did not write
 *   is 503 store_corrupt, Redis out of memory 507 store_full; `reset` rewrites a session's keys.
 *
 * Design and key layout: docs/decisions/010-state-store.md; failures: 019-store-failure-semantics.md.
 *
 * @example
 * const store = await connectRedisStore({ url: 'redis://127.0.0.1:6379/0' }, storeOptionsFromConfig(config, seeds));
 * await store.hit('default', { baseTimeMs: Date.now(), clientAddress: '10.0.0.7' });
 */
export async function connectRedisStore(
  redisOptions: RedisStoreOptions,
  options: StateStoreOptions,
): Promise<StateStore> {
  const settings = resolveRedisOptions(redisOptions);
  const commander = await connectCommander(settings);
  return new RedisStore(commander, settings, options);
}

/** Seeds up to this size ride along with every category call; larger ones are sent only when a session needs seeding. */
const inlineSeedBytes = 4096;

class RedisStore implements StateStore {
  readonly kind = 'redis' as const;
  readonly options: Readonly<StateStoreOptions>;
  readonly #settings: RedisSettings;
  readonly #seedArgs: string[];
  readonly #inlineSeeds: boolean;
  readonly #caller: RedisScriptCaller;
  readonly #sessions: RedisSessionRegistry;

  constructor(redis: RedisCommander, settings: RedisSettings, options: StateStoreOptions) {
    assertStoreOptions(options);
    this.#settings = settings;
    this.options = { ...options, seedCategories: options.seedCategories.map((category) => ({ ...category })) };
    this.#seedArgs = options.seedCategories.map((category) => JSON.stringify(category));
    this.#inlineSeeds = this.#seedArgs.reduce((total, seed) => total + seed.length, 0) <= inlineSeedBytes;
    this.#caller = new RedisScriptCaller(redis, settings);
    this.#sessions = new RedisSessionRegistry(this.#caller, settings.prefix, this.options);
  }

  async hit(session: string, input: HitInput): Promise<HitResult> {
    if (input.keyDigest !== undefined) assertDigest(input.keyDigest);
    const keyId = input.configKey?.id ?? input.keyDigest?.slice(0, 32) ?? '-';
    const keys = [this.#key(session, `b:k:${keyId}`), this.#anonymousBucket(session, input.clientAddress)];
    const head = hitArgs(input, this.options, this.#historyTtlMs());
    const attempt = async (withSeeds: boolean) =>
      (await this.#run(session, input.baseTimeMs, scripts.hit, {
        keys,
        args: [...head, ...this.#categoryArgs(input.categories, withSeeds)],
      })) as string[];
    let reply = await attempt(this.#inlineSeeds);
    // Seeds too large to ride along with every request: the session's first operation sends them, the whole request again.
    if (reply[0] === 'seed') reply = await attempt(true);
    return hitResultFrom(reply, input, this.options.maxCategoryBytes);
  }

  async peekAnonymous(session: string, clientAddress: string, baseTimeMs: number): Promise<RateDecision> {
    const reply = (await this.#run(session, baseTimeMs, scripts.peek, {
      keys: [this.#anonymousBucket(session, clientAddress)],
      args: [String(baseTimeMs), String(this.options.anonymous.perMinute), String(this.options.anonymous.perDay)],
    })) as string[];
    return decisionFrom(reply.slice(0, 5), reply.slice(5), this.options.anonymous);
  }

  async createCategory(session: string, input: NewCategory, baseTimeMs: number): Promise<CreatedCategory> {
    const reply = await this.#withSeeds(session, baseTimeMs, scripts.createCategory, [
      String(this.options.maxCategories),
      String(this.options.maxCategoryBytes),
      JSON.stringify(input),
    ]);
    if (reply[0] === 'too_large')
      throw new HttpError(
        'payload_too_large',
        categoryTooLargeMessage(Number(reply[1]), this.options.maxCategoryBytes),
      );
    return createdFrom(reply[0]!, reply[1]!);
  }

  async listCategories(session: string, baseTimeMs: number): Promise<Category[]> {
    return JSON.parse(await this.listCategoriesJson(session, baseTimeMs)) as Category[];
  }

  async listCategoriesJson(session: string, baseTimeMs: number): Promise<string> {
    return (
      await this.#withSeeds(session, baseTimeMs, scripts.listCategories, [
        String(this.options.maxCategories),
        String(this.options.maxCategoryBytes),
      ])
    )[0]!;
  }

  async stats(session: string, baseTimeMs: number): Promise<SessionStats> {
    const reply = await this.#withSeeds(session, baseTimeMs, scripts.stats, [
      String(this.options.maxCategories),
      String(this.options.maxCategoryBytes),
    ]);
    return {
      categories: {
        count: Number(reply[0]),
        bytes: Number(reply[1]),
        maxCount: this.options.maxCategories,
        maxBytes: this.options.maxCategoryBytes,
      },
      // Anonymous clients are bounded by TTL in Redis, never forgotten early.
      dropped: { categories: Number(reply[2]), trackedClients: 0 },
    };
  }

  async addKey(session: string, key: RuntimeKey, baseTimeMs: number): Promise<{ created: boolean }> {
    assertRuntimeKey(key);
    const reply = await this.#run(session, baseTimeMs, scripts.addKey, {
      args: [key.digest, JSON.stringify(entryRecord(key))],
    });
    return { created: Number(reply) === 1 };
  }

  async listKeys(session: string, baseTimeMs: number): Promise<ApiKeyEntry[]> {
    const reply = (await this.#run(session, baseTimeMs, scripts.listKeys, {})) as string[];
    const entries = reply.map((stored) => this.#caller.parsed(session, 'keys', () => storedKeyFrom(stored)));
    return entries.sort((a, b) => a.position - b.position).map(({ entry }) => entry);
  }

  async advanceClock(session: string, ms: number, baseTimeMs: number): Promise<number> {
    const step = clockStepMs(ms);
    const reply = await this.#run(session, baseTimeMs, scripts.advanceClock, {
      args: [String(step), String(baseTimeMs)],
    });
    if (Array.isArray(reply)) throw new RangeError(clockRangeMessage(Number(reply[1])));
    return Number(reply);
  }

  async clockOffset(session: string, baseTimeMs: number): Promise<number> {
    return Number(await this.#run(session, baseTimeMs, scripts.clockOffset, {}));
  }

  async appendRequest(session: string, entry: RecordedRequest, baseTimeMs: number): Promise<void> {
    const replay = entry.replay;
    // The client whose windows the entry keeps (see the script): the one the hit counted it against.
    const client: StoreClient | null =
      replay === undefined
        ? null
        : replay.auth === 'key' && replay.keyDigest !== null
          ? { kind: 'key', id: replay.keyDigest.slice(0, 32) }
          : replay.clientAddress === null
            ? null
            : { kind: 'anonymous', address: replay.clientAddress };
    await this.#run(session, baseTimeMs, scripts.appendRequest, {
      keys: client === null ? [] : [this.#clientBucket(session, client)],
      args: [
        JSON.stringify(entry),
        String(this.options.requestLogSize),
        client === null ? '' : clientName(client),
        String(this.options.maxTrackedClients),
      ],
    });
  }

  async snapshot(session: string, baseTimeMs: number): Promise<StoreScenario> {
    const prefix = this.#key(session, 'b:');
    const reply = await this.#run(session, baseTimeMs, scripts.snapshot, {
      args: [String(baseTimeMs), prefix, `${globEscaped(prefix)}*`],
    });
    return this.#caller.parsed(session, 'snapshot', () =>
      scenarioFromParts(JSON.parse(String(reply)), seededCategories(this.options)),
    );
  }

  async startingState(session: string, baseTimeMs: number): Promise<StartingState> {
    const reply = (await this.#run(session, baseTimeMs, scripts.startingState, {})) as string[];
    const meta = new Map<string, string>();
    for (let index = 0; index + 1 < reply.length; index += 2) meta.set(reply[index]!, reply[index + 1]!);
    return this.#caller.parsed(session, 'meta', () => startingStateFrom(meta, seededCategories(this.options)));
  }

  async requests(session: string, baseTimeMs: number): Promise<RequestLogEntry[]> {
    return (await this.recordedRequests(session, baseTimeMs)).map(publicLogEntry);
  }

  async recordedRequests(session: string, baseTimeMs: number): Promise<RecordedRequest[]> {
    const reply = (await this.#run(session, baseTimeMs, scripts.requests, {})) as string[];
    const entries: RecordedRequest[] = [];
    for (let index = reply.length - 1; index >= 0; index -= 1)
      entries.push(this.#caller.parsed(session, 'log', () => recordedFrom(reply[index]!)));
    return entries;
  }

  async reset(session: string, baseTimeMs: number): Promise<void> {
    await this.#run(session, baseTimeMs, scripts.reset, { args: [String(baseTimeMs)], repair: true });
  }

  async listSessions(baseTimeMs: number): Promise<SessionInfo[]> {
    this.#caller.assertOpen();
    return this.#sessions.list(baseTimeMs);
  }

  async setSpent(session: string, client: StoreClient, spent: SpentCounts, baseTimeMs: number): Promise<void> {
    assertClientStep(client, spent, null);
    await this.#run(session, baseTimeMs, scripts.setSpent, {
      keys: [this.#clientBucket(session, client)],
      args: [String(baseTimeMs), countArg(spent.minute), countArg(spent.day), String(this.#historyTtlMs())],
    });
  }

  async ban(session: string, client: StoreClient, ms: number, baseTimeMs: number): Promise<{ untilMs: number }> {
    assertClientStep(client, null, ms);
    const reply = await this.#run(session, baseTimeMs, scripts.ban, {
      keys: [this.#clientBucket(session, client)],
      args: [String(baseTimeMs), String(ms), String(this.#historyTtlMs())],
    });
    return { untilMs: Number(reply) };
  }

  async setAfterSunset(session: string, mode: AfterSunsetMode | null, baseTimeMs: number): Promise<void> {
    assertAfterSunsetMode(mode);
    await this.#run(session, baseTimeMs, scripts.setAfterSunset, { args: [mode ?? ''] });
  }

  async afterSunset(session: string, baseTimeMs: number): Promise<AfterSunsetMode | null> {
    const reply = await this.#run(session, baseTimeMs, scripts.afterSunset, {});
    return reply === 'serve' || reply === 'gone' ? reply : null;
  }

  async applyScenario(session: string, scenario: StoreScenario, baseTimeMs: number): Promise<{ offsetMs: number }> {
    assertScenarioSteps(scenario);
    const buckets = [...scenario.spends, ...scenario.bans, ...(scenario.clients ?? [])].map(({ client }) =>
      this.#clientBucket(session, client),
    );
    const { beforeSeedFlag, afterSeedFlag } = scenarioArgs(scenario, {
      baseTimeMs,
      historyTtlMs: this.#historyTtlMs(),
      options: this.options,
      bucketPrefix: this.#key(session, 'b:'),
    });
    const attempt = async (withSeeds: boolean) =>
      (await this.#run(session, baseTimeMs, scripts.scenario, {
        keys: buckets,
        args: [
          ...beforeSeedFlag,
          ...this.#seeds(withSeeds).slice(0, 1),
          ...afterSeedFlag,
          ...this.#seeds(withSeeds).slice(1),
        ],
      })) as string[];
    let reply = await attempt(this.#inlineSeeds);
    if (reply[0] === 'seed') reply = await attempt(true);
    if (reply[0] === 'refused') throw scenarioRefusal(reply, scenario, this.options.maxCategoryBytes);
    return { offsetMs: Number(reply[1]) };
  }

  close(): Promise<void> {
    return this.#caller.close();
  }

  /** The default session never expires; the others live `sessionIdleMs` after their last use. */
  #ttlMs(session: string): number {
    return session === defaultSessionName ? 0 : this.options.sessionIdleMs;
  }

  #historyTtlMs(): number {
    return this.options.sessionIdleMs;
  }

  #categoryArgs(operation: HitInput['categories'], withSeeds: boolean): string[] {
    if (!operation) return [''];
    const fields = operation.kind === 'create' ? JSON.stringify(operation.input) : '';
    return [
      operation.kind,
      operation.requiresKey ? '1' : '0',
      fields,
      String(this.options.maxCategories),
      String(this.options.maxCategoryBytes),
      ...this.#seeds(withSeeds),
    ];
  }

  #seeds(withSeeds: boolean): string[] {
    return withSeeds ? ['1', ...this.#seedArgs] : ['0'];
  }

  /** A category script, run again with the seeds when the session needs them and they did not come along. */
  async #withSeeds(session: string, baseTimeMs: number, which: Script, args: string[]): Promise<string[]> {
    const attempt = async (withSeeds: boolean) =>
      (await this.#run(session, baseTimeMs, which, { args: [...args, ...this.#seeds(withSeeds)] })) as string[];
    const reply = await attempt(this.#inlineSeeds);
    return reply[0] === 'seed' ? attempt(true) : reply;
  }

  /** `prefix{session}:name`: the session is the hash tag, so one script's keys share a slot. */
  #key(session: string, name: string): string {
    return `${this.#settings.prefix}{${session}}:${name}`;
  }

  #clientBucket(session: string, client: StoreClient): string {
    return client.kind === 'key'
      ? this.#key(session, `b:k:${client.id}`)
      : this.#anonymousBucket(session, client.address);
  }

  #anonymousBucket(session: string, clientAddress: string): string {
    return this.#key(session, `b:a:${encodeURIComponent(clientAddress)}`);
  }

  /** Runs a session script: KEYS meta, keys, cats, seq, log, then `call.keys`; ARGV stamp, ttl, then `call.args`. */
  async #run(
    session: string,
    baseTimeMs: number,
    which: Script,
    call: { keys?: string[]; args?: string[]; repair?: boolean },
  ): Promise<unknown> {
    this.#caller.assertOpen();
    assertSessionName(session);
    await this.#sessions.admit(session, baseTimeMs, call.repair === true);
    const keys = [
      this.#key(session, 'meta'),
      this.#key(session, 'keys'),
      this.#key(session, 'cats'),
      this.#key(session, 'seq'),
      this.#key(session, 'log'),
      ...(call.keys ?? []),
    ];
    return this.#caller.call(which, keys, [String(this.#ttlMs(session)), ...(call.args ?? [])], session);
  }
}

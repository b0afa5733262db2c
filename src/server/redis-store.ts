import { randomBytes } from 'node:crypto';
import type { Category, NewCategory } from '../../spec/schemas.js';
import type { Limits } from '../core/config/mock-config.js';
import type { AfterSunsetMode } from '../core/config/store-config.js';
import { HttpError } from '../core/errors.js';
import { CategoryStore } from '../core/state/category-store.js';
import type { ApiKeyEntry } from '../core/state/key-registry.js';
import { type RateDecision, windowsOf } from '../core/state/rate-limiter.js';
import { publicLogEntry, type RecordedRequest, type RequestLogEntry } from '../core/state/request-log.js';
import { assertSessionName, defaultSessionName } from '../core/state/sessions.js';
import {
  type ClientWindows,
  type CreatedCategory,
  type CreatedCategoryText,
  type HitInput,
  type HitResult,
  type RuntimeKey,
  ScenarioRefusedError,
  type SessionInfo,
  type SessionStats,
  type SpentCounts,
  type StartingState,
  type StateStore,
  type StateStoreOptions,
  type StoreClient,
  StoreCorruptError,
  StoreFullError,
  type StoreScenario,
  StoreUnavailableError,
  TooManySessionsError,
} from '../core/state/state-store.js';
import {
  assertAfterSunsetMode,
  assertClientStep,
  assertClientWindows,
  assertDigest,
  assertRuntimeKey,
  assertScenarioSteps,
  categoryTooLargeMessage,
  clientName,
  clockBehindMessage,
  clockRangeMessage,
  clockStepMs,
  sortClients,
  sortSessions,
  startingStateOf,
} from '../core/state/store-checks.js';
import { assertStoreOptions } from '../core/state/store-options.js';
import {
  connectCommander,
  describeError,
  type RedisCommander,
  type RedisSettings,
  type RedisStoreOptions,
  resolveRedisOptions,
} from './redis-connection.js';
import { lateReply, type Script, scripts } from './redis-scripts.js';

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

interface PendingCall {
  /** performance.now() past which the call is given up, after one more turn of the event loop. */
  deadline: number;
  /** A sweep saw it past its deadline; the next one gives it up if its answer has still not been read. */
  overdue: boolean;
  reject(error: Error): void;
}

/** Whose keys a call reads: a session's, or the session registry's (null). */
type CallScope = string | null;

/** Seeds up to this size ride along with every category call; larger ones are sent only when a session needs seeding. */
const inlineSeedBytes = 4096;
/** A replica re-registers a session it uses at most this often (base clock); `lastSeenMs` is as precise. */
const registryTouchMs = 1_000;
const redisReplyUnavailable = /^(BUSY|LOADING|MASTERDOWN|READONLY|TRYAGAIN|CLUSTERDOWN|NOREPLICAS|MISCONF)/;
const redisReplyCorrupt = /^(PETSTORE_CORRUPT |WRONGTYPE)/;

class RedisStore implements StateStore {
  readonly kind = 'redis' as const;
  readonly options: Readonly<StateStoreOptions>;
  readonly #redis: RedisCommander;
  readonly #settings: RedisSettings;
  readonly #seedArgs: string[];
  readonly #inlineSeeds: boolean;
  readonly #registryKey: string;
  /** Sessions this replica admitted, with the base time it last wrote them to the registry. Bounded by maxSessions + 1. */
  readonly #admitted = new Map<string, number>();
  readonly #admitting = new Map<string, Promise<void>>();
  readonly #inflight = new Set<PendingCall>();
  readonly #sweepMs: number;
  /** How long a script may wait in Redis before it must not start any more: the timeout less the time its answer needs to come back. */
  readonly #scriptBudgetMs: number;
  #sweeper: NodeJS.Timeout | undefined;
  #closed = false;
  #lastCorruptLogMs = Number.NEGATIVE_INFINITY;
  /** A random epoch per session creation or reset (`#nonce`): buckets of an older epoch count as empty. */
  readonly #noncePrefix = randomBytes(6).toString('hex');
  #nonceCounter = 0;

  constructor(redis: RedisCommander, settings: RedisSettings, options: StateStoreOptions) {
    assertStoreOptions(options);
    this.#redis = redis;
    this.#settings = settings;
    this.options = { ...options, seedCategories: options.seedCategories.map((category) => ({ ...category })) };
    this.#seedArgs = options.seedCategories.map((category) => JSON.stringify(category));
    this.#inlineSeeds = this.#seedArgs.reduce((total, seed) => total + seed.length, 0) <= inlineSeedBytes;
    this.#registryKey = `${settings.prefix}sessions`;
    this.#sweepMs = Math.min(100, Math.max(10, Math.floor(settings.timeoutMs / 4)));
    this.#scriptBudgetMs = settings.timeoutMs - Math.min(250, Math.floor(settings.timeoutMs / 2));
  }

  async hit(session: string, input: HitInput): Promise<HitResult> {
    if (input.keyDigest !== undefined) assertDigest(input.keyDigest);
    const keyId = input.configKey?.id ?? input.keyDigest?.slice(0, 32) ?? '-';
    const keys = [this.#key(session, `b:k:${keyId}`), this.#anonymousBucket(session, input.clientAddress)];
    const head = [
      String(input.baseTimeMs),
      input.keyDigest ?? '',
      input.configKey ? JSON.stringify(entryRecord(input.configKey)) : '',
      String(this.options.anonymous.perMinute),
      String(this.options.anonymous.perDay),
    ];
    const policy = [
      this.options.ban.enabled ? '1' : '0',
      String(this.options.ban.threshold),
      String(this.options.ban.durationMs),
      String(this.#historyTtlMs()),
    ];
    const attempt = async (withSeeds: boolean) =>
      (await this.#run(session, input.baseTimeMs, scripts.hit, {
        keys,
        args: [...head, ...policy, ...this.#categoryArgs(input.categories, withSeeds)],
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
    const entries = reply.map((stored) => this.#parsed(session, 'keys', () => storedKeyFrom(stored)));
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
    return this.#parsed(session, 'snapshot', () => scenarioFromParts(JSON.parse(String(reply)), this.#seedList()));
  }

  async startingState(session: string, baseTimeMs: number): Promise<StartingState> {
    const reply = (await this.#run(session, baseTimeMs, scripts.startingState, {})) as string[];
    const meta = new Map<string, string>();
    for (let index = 0; index + 1 < reply.length; index += 2) meta.set(reply[index]!, reply[index + 1]!);
    return this.#parsed(session, 'meta', () => startingStateFrom(meta, this.#seedList()));
  }

  /** The categories a seeded session starts with: each seed with the next id, one larger than the whole bound skipped (as both stores seed). */
  #seedList(): Category[] {
    const seeded = new CategoryStore({ maxCount: this.options.maxCategories, maxBytes: this.options.maxCategoryBytes });
    for (const seed of this.options.seedCategories) {
      try {
        seeded.create(seed);
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
      }
    }
    return seeded.list();
  }

  async requests(session: string, baseTimeMs: number): Promise<RequestLogEntry[]> {
    return (await this.recordedRequests(session, baseTimeMs)).map(publicLogEntry);
  }

  async recordedRequests(session: string, baseTimeMs: number): Promise<RecordedRequest[]> {
    const reply = (await this.#run(session, baseTimeMs, scripts.requests, {})) as string[];
    const entries: RecordedRequest[] = [];
    for (let index = reply.length - 1; index >= 0; index -= 1)
      entries.push(this.#parsed(session, 'log', () => recordedFrom(reply[index]!)));
    return entries;
  }

  async reset(session: string, baseTimeMs: number): Promise<void> {
    await this.#run(session, baseTimeMs, scripts.reset, { args: [String(baseTimeMs)], repair: true });
  }

  async listSessions(baseTimeMs: number): Promise<SessionInfo[]> {
    this.#assertOpen();
    const reply = (await this.#call(
      scripts.listSessions,
      [this.#registryKey],
      [String(baseTimeMs), String(this.options.sessionIdleMs), defaultSessionName],
      null,
    )) as string[];
    const sessions: SessionInfo[] = [];
    for (let index = 0; index + 1 < reply.length; index += 2)
      sessions.push({ name: reply[index]!, lastSeenMs: Number(reply[index + 1]) });
    if (!sessions.some((session) => session.name === defaultSessionName))
      sessions.push({ name: defaultSessionName, lastSeenMs: null });
    return sortSessions(sessions);
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
    const clients = scenario.clients ?? [];
    const list = scenario.categoryList;
    const buckets = [...scenario.spends, ...scenario.bans, ...clients].map(({ client }) =>
      this.#clientBucket(session, client),
    );
    const prefix = this.#key(session, 'b:');
    const clock = scenario.clock;
    const head = [
      String(baseTimeMs),
      clock?.kind ?? '',
      clock === undefined ? '' : String(clock.kind === 'advance' ? clock.ms : clock.atMs),
      scenario.afterSunset ?? '',
      String(this.#historyTtlMs()),
      String(this.options.maxCategories),
      String(this.options.maxCategoryBytes),
    ];
    const counts = [scenario.keys.length, scenario.spends.length, scenario.bans.length, scenario.categories.length].map(
      String,
    );
    const restore = [
      String(clients.length),
      String(list === undefined ? -1 : list.length),
      String(list?.[0]?.id ?? 1),
      prefix,
      `${globEscaped(prefix)}*`,
    ];
    const steps = [
      ...scenario.keys.flatMap((key) => [key.digest, JSON.stringify(entryRecord(key))]),
      ...clients.flatMap(({ windows }) => windowArgs(windows)),
      ...scenario.spends.flatMap(({ spent }) => [countArg(spent.minute), countArg(spent.day)]),
      ...scenario.bans.map(({ ms }) => String(ms)),
      ...(list ?? []).map(({ id: _id, ...fields }) => JSON.stringify(fields)),
      ...scenario.categories.map((category) => JSON.stringify(category)),
    ];
    const attempt = async (withSeeds: boolean) =>
      (await this.#run(session, baseTimeMs, scripts.scenario, {
        keys: buckets,
        args: [
          ...head,
          ...counts,
          ...this.#seeds(withSeeds).slice(0, 1),
          ...restore,
          ...steps,
          ...this.#seeds(withSeeds).slice(1),
        ],
      })) as string[];
    let reply = await attempt(this.#inlineSeeds);
    if (reply[0] === 'seed') reply = await attempt(true);
    if (reply[0] === 'refused') throw scenarioRefusal(reply, scenario, this.options.maxCategoryBytes);
    return { offsetMs: Number(reply[1]) };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#sweeper);
    this.#sweep();
    await this.#redis.close();
  }

  #nonce(): string {
    this.#nonceCounter += 1;
    return `${this.#noncePrefix}.${this.#nonceCounter.toString(36)}`;
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
    this.#assertOpen();
    assertSessionName(session);
    await this.#admit(session, baseTimeMs, call.repair === true);
    const keys = [
      this.#key(session, 'meta'),
      this.#key(session, 'keys'),
      this.#key(session, 'cats'),
      this.#key(session, 'seq'),
      this.#key(session, 'log'),
      ...(call.keys ?? []),
    ];
    return this.#call(which, keys, [String(this.#ttlMs(session)), ...(call.args ?? [])], session);
  }

  /**
   * Registers the session (and enforces maxSessions) at most once a second per replica: a round trip
   * of its own, but not one per request. A reset registers it every time, repairing a registry key of
   * another type.
   */
  async #admit(session: string, baseTimeMs: number, repair: boolean): Promise<void> {
    const last = this.#admitted.get(session);
    if (!repair && last !== undefined && baseTimeMs - last < registryTouchMs && baseTimeMs >= last) return;
    if (repair) return this.#register(session, baseTimeMs, true);
    // Requests that arrive together share one registration instead of each sending its own.
    let pending = this.#admitting.get(session);
    if (!pending) {
      pending = this.#register(session, baseTimeMs, false).finally(() => this.#admitting.delete(session));
      this.#admitting.set(session, pending);
    }
    await pending;
  }

  async #register(session: string, baseTimeMs: number, repair: boolean): Promise<void> {
    const admitted = await this.#call(
      scripts.admit,
      [this.#registryKey],
      [
        session,
        String(baseTimeMs),
        String(this.options.sessionIdleMs),
        String(this.options.maxSessions),
        defaultSessionName,
        repair ? '1' : '0',
      ],
      null,
    );
    if (Number(admitted) !== 1) throw new TooManySessionsError(this.options.maxSessions);
    this.#admitted.delete(session);
    this.#admitted.set(session, baseTimeMs);
    if (this.#admitted.size > this.options.maxSessions + 1) this.#admitted.delete(this.#admitted.keys().next().value!);
  }

  /**
   * EVALSHA with the call's stamp as ARGV[1] (its deadline in Redis's time and a nonce), loading the
   * script on NOSCRIPT. Every failure to answer becomes StoreUnavailableError: a call is given up once a
   * sweep after its timeout has seen it late twice (so an answer already in the socket is read first);
   * the script itself does nothing if it starts after its deadline, earlier than that. One sweeping
   * timer for all calls in flight (a timer per call was a tenth of the client's CPU per request).
   */
  #call(which: Script, keys: string[], args: string[], scope: CallScope): Promise<unknown> {
    const { displayUrl, timeoutMs, retryAfterSeconds } = this.#settings;
    if (!this.#redis.isReady)
      return Promise.reject(
        new StoreUnavailableError(
          `The Redis store ${displayUrl} is unavailable (reconnecting); nothing was sent`,
          retryAfterSeconds,
        ),
      );
    const stamp = `${this.#redis.clock.deadline(this.#scriptBudgetMs)} ${this.#nonce()}`;
    const command = ['EVALSHA', which.sha, String(keys.length), ...keys, stamp, ...args];
    return new Promise((resolve, reject) => {
      const pending: PendingCall = { deadline: performance.now() + timeoutMs, overdue: false, reject };
      this.#inflight.add(pending);
      this.#sweeper ??= setInterval(() => this.#sweep(), this.#sweepMs).unref();
      this.#redis
        .send(command)
        .catch((error: unknown) => {
          if (error instanceof Error && error.message.startsWith('NOSCRIPT'))
            return this.#redis.send(['EVAL', which.source, ...command.slice(2)]);
          throw error;
        })
        .then(
          (reply) => {
            if (!this.#inflight.delete(pending)) return;
            if (reply === lateReply)
              reject(
                new StoreUnavailableError(
                  `The Redis store ${displayUrl} ran a call after its deadline (${timeoutMs} ms): it changed nothing`,
                  retryAfterSeconds,
                ),
              );
            else resolve(reply);
          },
          (error: unknown) => {
            if (this.#inflight.delete(pending)) reject(this.#failure(error, scope));
          },
        );
    });
  }

  #failure(error: unknown, scope: CallScope): Error {
    const { displayUrl, retryAfterSeconds } = this.#settings;
    if (this.#redis.isReplyError(error)) {
      const message = (error as Error).message;
      if (redisReplyCorrupt.test(message)) return this.#corrupt(scope, message);
      // Refused before it ran: a script that may write is not started while Redis is over maxmemory.
      if (message.startsWith('OOM'))
        return new StoreFullError(
          `The Redis store is out of memory (its maxmemory): nothing was changed; free some (reset sessions, or let idle ones expire) or raise maxmemory`,
          retryAfterSeconds,
        );
      // Any other reply error is a bug in a script: the core answers 500.
      if (!redisReplyUnavailable.test(message))
        return new Error(`Failed to run a Redis store script: ${message}`, { cause: error });
    }
    return new StoreUnavailableError(
      `The Redis store ${displayUrl} is unavailable: ${describeError(error)}`,
      retryAfterSeconds,
      { cause: error },
    );
  }

  /** The one answer to data the mock did not write: where it is, and how to repair it (logged once per 10 s). */
  #corrupt(scope: CallScope, message: string): StoreCorruptError {
    const detail = message
      .replace(/^PETSTORE_CORRUPT /, '')
      .replace(/^WRONGTYPE .*/, 'a key of another type than the mock writes')
      .replace(/ script: \w+, on @user_script:\d+\.$/, '');
    const { prefix, logger } = this.#settings;
    const text =
      scope === null
        ? `The Redis store holds data the mock did not write at ${prefix}sessions (${detail}); POST /__mock/reset repairs it, or delete it: redis-cli DEL '${prefix}sessions'`
        : `The Redis store holds data the mock did not write under ${prefix}{${scope}}:* (${detail}); POST /__mock/reset${scope === defaultSessionName ? '' : ` with X-Mock-Session: ${scope}`} rewrites the session's keys, or delete them: redis-cli --scan --pattern '${prefix}{${scope}}:*' | xargs redis-cli DEL`;
    const now = performance.now();
    if (now - this.#lastCorruptLogMs >= 10_000) {
      this.#lastCorruptLogMs = now;
      logger.warn(`Answering 503 store_corrupt: ${text}`);
    }
    return new StoreCorruptError(text);
  }

  /** A stored value the caller parses (a key entry, a log line), or the store's corrupt answer when it is not what the mock writes. */
  #parsed<T>(session: string, what: string, parse: () => T): T {
    try {
      return parse();
    } catch {
      throw this.#corrupt(session, `${what}: an entry is not one the mock wrote`);
    }
  }

  /**
   * Gives up the calls past their timeout. Calls are in the set in the order they started, and all have
   * the same timeout: stop at the first still running. A late call is given up at its second late sweep:
   * between two sweeps the event loop has read the sockets, so an answer that had arrived is never
   * mistaken for none (a loop blocked past the timeout runs its timers before it reads).
   */
  #sweep(): void {
    const now = performance.now();
    for (const pending of this.#inflight) {
      if (pending.deadline > now) break;
      if (!pending.overdue && !this.#closed) {
        pending.overdue = true;
        continue;
      }
      this.#inflight.delete(pending);
      pending.reject(
        new StoreUnavailableError(
          `The Redis store ${this.#settings.displayUrl} did not answer within ${this.#settings.timeoutMs} ms; whatever it was asked will not be done`,
          this.#settings.retryAfterSeconds,
        ),
      );
    }
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error('Failed to use the Redis store: it is closed');
  }
}

/** A hit as the script answers it: the decision, the key, the history and the category operation's result. */
function hitResultFrom(reply: string[], input: HitInput, maxCategoryBytes: number): HitResult {
  const [
    outcome,
    limit,
    remaining,
    resetAtMs,
    retryAfterSeconds,
    nowMs,
    source,
    entryJson,
    requests,
    refusals,
    consecutive,
    previousAt,
    previousRetry,
    done,
    dropped,
    ...bucket
  ] = reply;
  const key = source === '' ? null : entryRecord(JSON.parse(entryJson!) as ApiKeyEntry);
  const limits = { perMinute: Number(bucket[4]), perDay: Number(bucket[5]) };
  const result: HitResult = {
    nowMs: Number(nowMs),
    decision: decisionFrom([outcome!, limit!, remaining!, resetAtMs!, retryAfterSeconds!], bucket, limits),
    key,
    client: key ? `k:${key.id}` : `a:${input.clientAddress}`,
    history: {
      requests: Number(requests),
      refusals: Number(refusals),
      consecutiveRefusals: Number(consecutive),
      previousRefusal:
        previousAt === '' ? null : { atMs: Number(previousAt), retryAfterSeconds: Number(previousRetry) },
    },
  };
  const operation = input.categories;
  if (operation?.kind === 'list' && done !== '') result.categoriesJson = done;
  else if (operation?.kind === 'create' && done === 'too_large')
    result.categoryRefusal = new HttpError(
      'payload_too_large',
      categoryTooLargeMessage(Number(dropped), maxCategoryBytes),
    );
  else if (operation?.kind === 'create' && done !== '') result.created = createdText(createdFrom(done!, dropped!));
  return result;
}

/** A decision as the scripts return it: the headline fields, then the bucket's window starts and counts. */
function decisionFrom(head: readonly string[], bucket: readonly string[], limits: Limits): RateDecision {
  const outcome = head[0] as RateDecision['outcome'];
  const resetAtMs = Number(head[3]);
  const counts = {
    minuteStart: Number(bucket[0]),
    minuteCount: Number(bucket[1]),
    dayStart: Number(bucket[2]),
    dayCount: Number(bucket[3]),
  };
  // A banned client has nothing left in either window until the ban ends (as RateLimiter says).
  const windows =
    outcome === 'banned'
      ? windowsOf(counts, limits).map((window) => ({ ...window, remaining: 0, resetAtMs }))
      : windowsOf(counts, limits);
  return {
    outcome,
    limit: Number(head[1]),
    remaining: Number(head[2]),
    resetAtMs,
    retryAfterSeconds: Number(head[4]),
    windows,
  };
}

/** The refusal the scenario script answered with, in the memory store's words. */
function scenarioRefusal(reply: string[], scenario: StoreScenario, maxCategoryBytes: number): ScenarioRefusedError {
  const [, part, index, value] = reply;
  if (part === 'category')
    return new ScenarioRefusedError(
      'category',
      Number(index),
      categoryTooLargeMessage(Number(value), maxCategoryBytes),
    );
  if (part === 'clock-behind' && scenario.clock?.kind === 'to')
    return new ScenarioRefusedError('clock-behind', 0, clockBehindMessage(scenario.clock.atMs, Number(value)));
  return new ScenarioRefusedError('clock-range', 0, clockRangeMessage(Number(value)));
}

/** A prefix as a SCAN pattern matches it literally. */
function globEscaped(text: string): string {
  return text.replace(/[*?[\]\\]/g, (character) => `\\${character}`);
}

/** A client's windows as the scenario script takes them: ms mc ds dc st bu ('-' when not banned). */
function windowArgs(windows: ClientWindows): string[] {
  return [
    String(windows.minuteStartMs),
    String(windows.minuteCount),
    String(windows.dayStartMs),
    String(windows.dayCount),
    String(windows.strikes),
    windows.bannedUntilMs === null ? '-' : String(windows.bannedUntilMs),
  ];
}

/** "ms mc ds dc st bu" as the scripts write a client's windows; throws when it is not that. */
function windowsFrom(text: string): ClientWindows {
  const fields = text.split(' ');
  const numbers = fields.map((field) => (field === '-' ? null : Number(field)));
  if (fields.length !== 6 || numbers.slice(0, 5).some((value) => value === null || !Number.isSafeInteger(value)))
    throw new Error('not a client bucket');
  const windows: ClientWindows = {
    minuteStartMs: numbers[0]!,
    minuteCount: numbers[1]!,
    dayStartMs: numbers[2]!,
    dayCount: numbers[3]!,
    strikes: numbers[4]!,
    bannedUntilMs: numbers[5] ?? null,
  };
  assertClientWindows(windows);
  return windows;
}

/** `k:<id>` or `a:<address>` (a bucket key's name, the address URI-encoded) as a client. */
function clientFromBucketName(name: string): StoreClient {
  if (name.startsWith('k:')) return { kind: 'key', id: name.slice(2) };
  if (name.startsWith('a:')) return { kind: 'anonymous', address: decodeURIComponent(name.slice(2)) };
  throw new Error('not a client bucket');
}

interface SnapshotParts {
  off: string;
  as: string;
  keys: string[] | Record<string, never>;
  cats: string;
  clients: string[] | Record<string, never>;
}

/** The snapshot script's parts as a scenario (see StateStore.snapshot); throws when they are not what it writes. */
function scenarioFromParts(parts: SnapshotParts, seeds: Category[]): StoreScenario {
  const keyPairs = Array.isArray(parts.keys) ? parts.keys : [];
  const keys: { position: number; key: RuntimeKey }[] = [];
  for (let index = 0; index + 1 < keyPairs.length; index += 2) {
    const { position, entry } = storedKeyFrom(keyPairs[index + 1]!);
    keys.push({ position, key: { ...entry, digest: keyPairs[index]! } });
  }
  const clients = (Array.isArray(parts.clients) ? parts.clients : []).map((line) => {
    const space = line.indexOf(' ');
    return { client: clientFromBucketName(line.slice(0, space)), windows: windowsFrom(line.slice(space + 1)) };
  });
  const offset = Number(parts.off);
  if (!Number.isFinite(offset)) throw new Error('not a clock offset');
  const afterSunset = parts.as === 'serve' || parts.as === 'gone' ? parts.as : undefined;
  return {
    clock: { kind: 'advance', ms: offset },
    ...(afterSunset === undefined ? {} : { afterSunset }),
    keys: keys.sort((a, b) => a.position - b.position).map(({ key }) => key),
    spends: [],
    bans: [],
    categories: [],
    clients: sortClients(clients),
    categoryList: parts.cats === '' ? seeds : (JSON.parse(parts.cats) as Category[]),
  };
}

/** The meta fields of the log's starting state (sa, ss, dn, df, dl, d:<client>) as StartingState. */
function startingStateFrom(meta: Map<string, string>, seeds: Category[]): StartingState {
  const text = meta.get('ss');
  const state =
    text === undefined
      ? scenarioFromParts({ off: '0', as: '', keys: [], cats: '', clients: [] }, seeds)
      : scenarioFromParts(JSON.parse(text) as SnapshotParts, seeds);
  const at = meta.get('sa');
  const atMs = at === undefined ? null : Number(at);
  const count = Number(meta.get('dn') ?? '0');
  if (count === 0) return { atMs, state, dropped: null };
  const dropped = { count, firstAtMs: Number(meta.get('df')), lastAtMs: Number(meta.get('dl')) };
  const after = new Map<string, { client: StoreClient; windows: ClientWindows }>();
  for (const [field, value] of meta)
    if (field.startsWith('d:')) {
      const name = field.slice(2);
      const client: StoreClient = name.startsWith('k:')
        ? { kind: 'key', id: name.slice(2) }
        : { kind: 'anonymous', address: name.slice(2) };
      after.set(clientName(client), { client, windows: windowsFrom(value) });
    }
  return startingStateOf(atMs, state, dropped, after);
}

function countArg(count: number | undefined): string {
  return count === undefined ? '' : String(count);
}

/** The stored form of a key entry: the public fields only (never the key, never the digest). */
function entryRecord({ masked, plan, limits, id }: ApiKeyEntry): ApiKeyEntry {
  return { masked, plan, limits: { perMinute: limits.perMinute, perDay: limits.perDay }, id };
}

/** A run-time key as stored (`position|entry JSON`); throws when it is not what the store writes. */
function storedKeyFrom(stored: string): { position: number; entry: ApiKeyEntry } {
  const bar = stored.indexOf('|');
  const entry = JSON.parse(stored.slice(bar + 1)) as ApiKeyEntry;
  const position = Number(stored.slice(0, bar));
  if (
    bar < 1 ||
    !Number.isSafeInteger(position) ||
    typeof entry.masked !== 'string' ||
    typeof entry.plan !== 'string' ||
    typeof entry.id !== 'string' ||
    !Number.isSafeInteger(entry.limits?.perMinute) ||
    !Number.isSafeInteger(entry.limits?.perDay)
  ) {
    throw new Error('not a stored key');
  }
  return { position, entry: entryRecord(entry) };
}

/** A log line as stored; throws when it is not what the store writes. */
function recordedFrom(stored: string): RecordedRequest {
  // pc and post: the client's windows kept for the starting state (the append script), not the log's.
  const {
    pc: _client,
    post: _post,
    ...entry
  } = JSON.parse(stored) as RecordedRequest & { pc?: unknown; post?: unknown };
  if (
    entry === null ||
    typeof entry !== 'object' ||
    typeof entry.timeMs !== 'number' ||
    !Number.isFinite(entry.timeMs) ||
    Math.abs(entry.timeMs) > 8.64e15 ||
    typeof entry.method !== 'string' ||
    typeof entry.path !== 'string' ||
    typeof entry.status !== 'number'
  ) {
    throw new Error('not a log line');
  }
  return entry;
}

/** What the hit answers of a created category: its id instead of the object. */
function createdText({ category, ...created }: CreatedCategory): CreatedCategoryText {
  return { id: category.id, ...created };
}

/** A stored category as the script answers it: its text is the memory store's (`{"id":N,` + the input's JSON), kept as it is. */
function createdFrom(categoryJson: string, dropped: string): CreatedCategory {
  return {
    category: JSON.parse(categoryJson) as Category,
    dropped: Number(dropped),
    json: categoryJson,
    bytes: Buffer.byteLength(categoryJson, 'utf8'),
  };
}

import type { Category, NewCategory } from '../../../spec/schemas.js';
import { CategoryStore } from './category-store.js';
import { HttpError } from '../errors.js';
import { copyKeyEntry, frozenKeyEntry, type ApiKeyEntry } from './key-registry.js';
import { RateLimiter, type RateDecision } from './rate-limiter.js';
import { RequestLog, type RecordedRequest, type RequestLogEntry } from './request-log.js';
import type { AfterSunsetMode } from '../config/store-config.js';
import { assertAfterSunsetMode, assertClientStep, assertClockStep, assertDigest, assertRuntimeKey, assertScenarioSteps, categoryTooLargeMessage, clockOffsetInRange, clockRangeMessage, scenarioOffset, sortSessions } from './store-checks.js';
import { assertSessionName, defaultSessionName } from './sessions.js';
import { assertStoreOptions } from './store-options.js';
import { ScenarioRefusedError, TooManySessionsError, type StoreScenario, type ClientHistory, type CreatedCategory, type HitInput, type HitResult, type ImmediateStoreCalls, type RuntimeKey, type SessionInfo, type SessionStats, type SpentCounts, type StateStore, type StateStoreOptions, type StoreClient } from './state-store.js';

interface HistoryRecord {
  requests: number;
  refusals: number;
  consecutiveRefusals: number;
  /** Null before the first 429: "none" is not a time (a refusal may come at any time, before 1970 too). */
  lastRefusalAtMs: number | null;
  lastRetryAfterSeconds: number;
}

/** One isolated world: the same components the single-process core used, one set per session. */
class MemorySession {
  /** The virtual time of the operation in progress: the limiters read it through their clock. */
  now = 0;
  offsetMs = 0;
  lastSeenMs: number;
  readonly keyLimiter: RateLimiter;
  readonly anonymousLimiter: RateLimiter;
  readonly categories: CategoryStore;
  readonly log: RequestLog;
  /** Keys added at run time, by digest, in the order they were first added. */
  readonly keys = new Map<string, ApiKeyEntry>();
  /** Per client, least recently seen first (re-inserted on every hit). */
  readonly histories = new Map<string, HistoryRecord>();
  #newHistoriesSinceSweep = 0;
  /** A scenario's `sunset.afterSunset` for this session; null: the config decides. */
  afterSunset: AfterSunsetMode | null = null;

  constructor(
    readonly options: StateStoreOptions,
    baseTimeMs: number,
  ) {
    const clock = { now: () => this.now };
    // Keys and anonymous clients are tracked apart, as in the single-process core: only anonymous
    // clients (one per address, so unbounded in number) are capped.
    this.keyLimiter = new RateLimiter({ clock, ban: options.ban, maxBuckets: Number.POSITIVE_INFINITY });
    this.anonymousLimiter = new RateLimiter({ clock, ban: options.ban, maxBuckets: options.maxTrackedClients });
    this.categories = new CategoryStore({ maxCount: options.maxCategories, maxBytes: options.maxCategoryBytes });
    this.log = new RequestLog(options.requestLogSize);
    this.lastSeenMs = baseTimeMs;
    this.seed();
  }

  seed(): void {
    this.categories.clear();
    for (const category of this.options.seedCategories) {
      // A seed larger than the whole byte bound is skipped (and takes no id), as in the Redis store.
      try {
        // create copies its input into the stored category.
        this.categories.create(category);
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
      }
    }
  }

  reset(): void {
    this.keyLimiter.reset();
    this.anonymousLimiter.reset();
    this.keys.clear();
    this.histories.clear();
    this.log.clear();
    this.afterSunset = null;
    this.seed();
  }

  #sweepHistories(): void {
    this.#newHistoriesSinceSweep = 0;
    for (const id of this.histories.keys()) {
      const limiter = id.startsWith('a:') ? this.anonymousLimiter : this.keyLimiter;
      if (!limiter.has(id.slice(2))) this.histories.delete(id);
    }
  }

  recordHistory(client: string, anonymous: boolean, decision: RateDecision): ClientHistory {
    let record = this.histories.get(client);
    if (record) {
      // Only anonymous histories are evicted least-recently-seen first: only they need the re-insert.
      if (anonymous) {
        this.histories.delete(client);
        this.histories.set(client, record);
      }
    } else {
      record = { requests: 0, refusals: 0, consecutiveRefusals: 0, lastRefusalAtMs: null, lastRetryAfterSeconds: 0 };
      // A history lives as long as its client's rate-limit record: once the limiter has swept an
      // expired client, its history goes too (as Redis lets both expire together), so memory returns.
      if (++this.#newHistoriesSinceSweep >= 1024) this.#sweepHistories();
      this.histories.set(client, record);
    }
    const previousRefusal = record.lastRefusalAtMs !== null ? { atMs: record.lastRefusalAtMs, retryAfterSeconds: record.lastRetryAfterSeconds } : null;
    record.requests += 1;
    if (decision.outcome === 'allowed') {
      record.consecutiveRefusals = 0;
    } else {
      record.refusals += 1;
      record.consecutiveRefusals += 1;
      record.lastRefusalAtMs = this.now;
      record.lastRetryAfterSeconds = decision.retryAfterSeconds;
    }
    // Bounded like the anonymous buckets: a flood of addresses forgets the least recently seen.
    if (anonymous && this.histories.size > this.options.maxTrackedClients) {
      for (const [id] of this.histories) {
        if (id.startsWith('a:')) {
          this.histories.delete(id);
          break;
        }
      }
    }
    return { requests: record.requests, refusals: record.refusals, consecutiveRefusals: record.consecutiveRefusals, previousRefusal };
  }
}

/**
 * The in-memory state store: the default, and the only one in the browser bundle. Each session is
 * the set of components the single-process core always used (RateLimiter, CategoryStore,
 * RequestLog), so it behaves exactly as the mock did before stores existed; the Redis store is
 * proven to answer the same (`test/store/equivalence.test.ts`).
 *
 * Sessions are bounded: past `maxSessions` a new one is refused, and one unused for `sessionIdleMs`
 * is forgotten (the default session never is).
 *
 * @example
 * const store = createMemoryStore(storeOptionsFromConfig(parseMockConfig({}), [{ name: 'dog' }]));
 * await store.createCategory('ci-job-1', { name: 'cat' }, Date.now()); // { category: { id: 2, name: 'cat' }, dropped: 0 }
 */
export function createMemoryStore(options: StateStoreOptions): StateStore {
  return new MemoryStore(options);
}

class MemoryStore implements StateStore {
  readonly kind = 'memory' as const;
  readonly options: Readonly<StateStoreOptions>;
  readonly #sessions = new Map<string, MemorySession>();
  #closed = false;

  constructor(options: StateStoreOptions) {
    assertStoreOptions(options);
    this.options = { ...options, seedCategories: options.seedCategories.map((category) => ({ ...category })) };
  }

  readonly immediate: ImmediateStoreCalls = {
    hit: (sessionName, input) => this.#hit(sessionName, input),
    // The core hands over an entry it never touches again: kept as it is (the async call copies).
    appendRequest: (sessionName, entry, baseTimeMs) => this.#session(sessionName, baseTimeMs).log.add(entry),
  };

  async hit(sessionName: string, input: HitInput): Promise<HitResult> {
    return this.#hit(sessionName, input);
  }

  #hit(sessionName: string, input: HitInput): HitResult {
    if (input.keyDigest !== undefined) assertDigest(input.keyDigest);
    const session = this.#session(sessionName, input.baseTimeMs);
    const nowMs = (session.now = input.baseTimeMs + session.offsetMs);
    const runtime = input.keyDigest === undefined ? undefined : session.keys.get(input.keyDigest);
    const key = runtime ?? input.configKey ?? null;
    const decision = key ? session.keyLimiter.hit(key.id, key.limits) : session.anonymousLimiter.hit(input.clientAddress, this.options.anonymous);
    const client = key ? `k:${key.id}` : `a:${input.clientAddress}`;
    const history = session.recordHistory(client, key === null, decision);
    const result: HitResult = { nowMs, decision, key, client, history };
    if (!key && session.anonymousLimiter.evicted > 0) result.trackedClientsDropped = session.anonymousLimiter.evicted;
    const operation = input.categories;
    if (operation && decision.outcome === 'allowed' && (!operation.requiresKey || key !== null)) {
      if (operation.kind === 'list') {
        result.categoriesJson = session.categories.listJson();
      } else {
        try {
          result.created = session.categories.createEntry(operation.input);
        } catch (error) {
          // Larger than the whole byte bound: the request was counted, the category is refused (413).
          if (!(error instanceof HttpError)) throw error;
          result.categoryRefusal = error;
        }
      }
    }
    return result;
  }

  async peekAnonymous(sessionName: string, clientAddress: string, baseTimeMs: number): Promise<RateDecision> {
    const session = this.#session(sessionName, baseTimeMs);
    session.now = baseTimeMs + session.offsetMs;
    return session.anonymousLimiter.peek(clientAddress, this.options.anonymous);
  }

  async createCategory(sessionName: string, input: NewCategory, baseTimeMs: number): Promise<CreatedCategory> {
    const session = this.#session(sessionName, baseTimeMs);
    const { id, dropped, json, bytes } = session.categories.createEntry(input);
    return { category: { id, ...input }, dropped, json, bytes };
  }

  async listCategories(sessionName: string, baseTimeMs: number): Promise<Category[]> {
    // list() parses fresh objects from the stored text: the caller's to keep.
    return this.#session(sessionName, baseTimeMs).categories.list();
  }

  async listCategoriesJson(sessionName: string, baseTimeMs: number): Promise<string> {
    return this.#session(sessionName, baseTimeMs).categories.listJson();
  }

  async addKey(sessionName: string, key: RuntimeKey, baseTimeMs: number): Promise<{ created: boolean }> {
    assertRuntimeKey(key);
    const session = this.#session(sessionName, baseTimeMs);
    const created = !session.keys.has(key.digest);
    session.keys.set(key.digest, frozenKeyEntry(key));
    return { created };
  }

  async listKeys(sessionName: string, baseTimeMs: number): Promise<ApiKeyEntry[]> {
    return [...this.#session(sessionName, baseTimeMs).keys.values()].map(copyKeyEntry);
  }

  async advanceClock(sessionName: string, ms: number, baseTimeMs: number): Promise<number> {
    assertClockStep(ms);
    const session = this.#session(sessionName, baseTimeMs);
    const moved = session.offsetMs + ms;
    if (!clockOffsetInRange(moved, baseTimeMs)) throw new RangeError(clockRangeMessage(moved));
    session.offsetMs = moved;
    return session.offsetMs;
  }

  async clockOffset(sessionName: string, baseTimeMs: number): Promise<number> {
    return this.#session(sessionName, baseTimeMs).offsetMs;
  }

  async appendRequest(sessionName: string, entry: RecordedRequest, baseTimeMs: number): Promise<void> {
    this.#session(sessionName, baseTimeMs).log.add({ ...entry });
  }

  async requests(sessionName: string, baseTimeMs: number): Promise<RequestLogEntry[]> {
    return this.#session(sessionName, baseTimeMs).log.entries();
  }

  async recordedRequests(sessionName: string, baseTimeMs: number): Promise<RecordedRequest[]> {
    return this.#session(sessionName, baseTimeMs).log.recorded();
  }

  async stats(sessionName: string, baseTimeMs: number): Promise<SessionStats> {
    const session = this.#session(sessionName, baseTimeMs);
    const { dropped, ...categories } = session.categories.stats();
    return { categories, dropped: { categories: dropped, trackedClients: session.anonymousLimiter.evicted } };
  }

  async reset(sessionName: string, baseTimeMs: number): Promise<void> {
    this.#session(sessionName, baseTimeMs).reset();
  }

  async listSessions(baseTimeMs: number): Promise<SessionInfo[]> {
    this.#assertOpen();
    this.#expireIdle(baseTimeMs);
    const sessions: SessionInfo[] = [...this.#sessions].map(([name, session]) => ({ name, lastSeenMs: session.lastSeenMs }));
    if (!this.#sessions.has(defaultSessionName)) sessions.push({ name: defaultSessionName, lastSeenMs: null });
    return sortSessions(sessions);
  }

  async setSpent(sessionName: string, client: StoreClient, spent: SpentCounts, baseTimeMs: number): Promise<void> {
    assertClientStep(client, spent, null);
    const session = this.#session(sessionName, baseTimeMs);
    session.now = baseTimeMs + session.offsetMs;
    if (client.kind === 'key') session.keyLimiter.setSpent(client.id, spent);
    else session.anonymousLimiter.setSpent(client.address, spent);
  }

  async ban(sessionName: string, client: StoreClient, ms: number, baseTimeMs: number): Promise<{ untilMs: number }> {
    assertClientStep(client, null, ms);
    const session = this.#session(sessionName, baseTimeMs);
    session.now = baseTimeMs + session.offsetMs;
    const untilMs = client.kind === 'key' ? session.keyLimiter.banFor(client.id, ms) : session.anonymousLimiter.banFor(client.address, ms);
    return { untilMs };
  }

  async setAfterSunset(sessionName: string, mode: AfterSunsetMode | null, baseTimeMs: number): Promise<void> {
    assertAfterSunsetMode(mode);
    this.#session(sessionName, baseTimeMs).afterSunset = mode;
  }

  async afterSunset(sessionName: string, baseTimeMs: number): Promise<AfterSunsetMode | null> {
    return this.#session(sessionName, baseTimeMs).afterSunset;
  }

  async applyScenario(sessionName: string, scenario: StoreScenario, baseTimeMs: number): Promise<{ offsetMs: number }> {
    assertScenarioSteps(scenario);
    const session = this.#session(sessionName, baseTimeMs);
    // Everything that can refuse it, before the first change.
    const offsetMs = scenarioOffset(scenario.clock, session.offsetMs, baseTimeMs);
    const tooLarge = session.categories.firstTooLarge(scenario.categories);
    if (tooLarge !== null) throw new ScenarioRefusedError('category', tooLarge.index, categoryTooLargeMessage(tooLarge.bytes, this.options.maxCategoryBytes));
    // Then all of it, in the plan's order: budgets and bans at the scenario's clock.
    session.offsetMs = offsetMs;
    session.now = baseTimeMs + offsetMs;
    if (scenario.afterSunset !== undefined) session.afterSunset = scenario.afterSunset;
    for (const key of scenario.keys) session.keys.set(key.digest, frozenKeyEntry(key));
    for (const { client, spent } of scenario.spends) (client.kind === 'key' ? session.keyLimiter.setSpent(client.id, spent) : session.anonymousLimiter.setSpent(client.address, spent));
    for (const { client, ms } of scenario.bans) (client.kind === 'key' ? session.keyLimiter.banFor(client.id, ms) : session.anonymousLimiter.banFor(client.address, ms));
    for (const category of scenario.categories) session.categories.createEntry(category);
    return { offsetMs };
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#sessions.clear();
  }

  #session(name: string, baseTimeMs: number): MemorySession {
    this.#assertOpen();
    let session = this.#sessions.get(name);
    // Only a name never seen is checked: every stored one was valid when it was created.
    if (!session) assertSessionName(name);
    if (session && name !== defaultSessionName && baseTimeMs - session.lastSeenMs >= this.options.sessionIdleMs) {
      // Idle past its expiry: forgotten, exactly as if it had been swept (Redis lets its keys expire).
      this.#sessions.delete(name);
      session = undefined;
    }
    if (!session) {
      if (name !== defaultSessionName) {
        this.#expireIdle(baseTimeMs);
        const named = this.#sessions.size - (this.#sessions.has(defaultSessionName) ? 1 : 0);
        if (named >= this.options.maxSessions) throw new TooManySessionsError(this.options.maxSessions);
      }
      session = new MemorySession(this.options, baseTimeMs);
      this.#sessions.set(name, session);
    }
    if (baseTimeMs > session.lastSeenMs) session.lastSeenMs = baseTimeMs;
    return session;
  }

  #expireIdle(baseTimeMs: number): void {
    for (const [name, session] of this.#sessions) {
      if (name !== defaultSessionName && baseTimeMs - session.lastSeenMs >= this.options.sessionIdleMs) this.#sessions.delete(name);
    }
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error('Failed to use the memory store: it is closed');
  }
}

import type { Category, NewCategory } from '../../../spec/schemas.js';
import { type AfterSunsetMode, storeDefaults } from '../config/store-config.js';
import { HttpError } from '../errors.js';
import { CategoryStore } from './category-store.js';
import { type ApiKeyEntry, copyKeyEntry } from './key-registry.js';
import { MemoryBudget } from './memory-budget.js';
import { countInHistory, MemorySession } from './memory-session.js';
import type { RateDecision } from './rate-limiter.js';
import type { RecordedRequest, RequestLogEntry } from './request-log.js';
import { assertSessionName, defaultSessionName } from './sessions.js';
import {
  type CreatedCategory,
  type HitInput,
  type HitResult,
  type ImmediateStoreCalls,
  type RuntimeKey,
  ScenarioRefusedError,
  type SessionInfo,
  type SessionStats,
  type SpentCounts,
  type StartingState,
  type StateStore,
  type StateStoreOptions,
  type StoreClient,
  type StoreScenario,
  TooManySessionsError,
} from './state-store.js';
import {
  assertAfterSunsetMode,
  assertClientStep,
  assertDigest,
  assertRuntimeKey,
  assertScenarioSteps,
  categoryTooLargeMessage,
  clockOffsetInRange,
  clockRangeMessage,
  clockStepMs,
  scenarioOffset,
  sortSessions,
} from './store-checks.js';
import { assertStoreOptions } from './store-options.js';
import { utf8Length } from './utf8.js';

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
  readonly memory: MemoryBudget;
  readonly #sessions = new Map<string, MemorySession>();
  #closed = false;

  constructor(options: StateStoreOptions) {
    assertStoreOptions(options);
    this.options = { ...options, seedCategories: options.seedCategories.map((category) => ({ ...category })) };
    this.memory = new MemoryBudget(
      options.memoryBudgetBytes ?? storeDefaults.memoryBudgetBytes,
      'categories and their cached lists, request logs, rate-limit records, run-time keys and the lab, of every session',
    );
    // A session forgotten to make room goes whole, as an idle one does (the budget has counted it out).
    this.memory.onEvict((name) => this.#sessions.delete(name));
  }

  readonly immediate: ImmediateStoreCalls = {
    hit: (sessionName, input) => this.#hit(sessionName, input),
    // The core hands over an entry it never touches again: kept as it is (the async call copies).
    appendRequest: (sessionName, entry, baseTimeMs, keyId) => this.#append(sessionName, entry, baseTimeMs, keyId),
  };

  /** @param keyId The counted key's id as the hit gave it; derived from the entry's digest when not given. */
  #append(sessionName: string, entry: RecordedRequest, baseTimeMs: number, keyId?: string): void {
    const session = this.#session(sessionName, baseTimeMs);
    const replay = entry.replay;
    if (replay === undefined) {
      session.log.add(entry, null);
      return;
    }
    // A key is counted under its digest's first 32 hex digits, as the key registry and the limiter count it.
    const counted =
      replay.auth === 'key' && replay.keyDigest !== null ? (keyId ?? replay.keyDigest.slice(0, 32)) : null;
    // Where the client stands just after its request: kept for the log's starting state once the entry is dropped.
    session.log.add(entry, session.postOf(counted, replay.clientAddress), counted);
  }

  async hit(sessionName: string, input: HitInput): Promise<HitResult> {
    if (input.keyDigest !== undefined) assertDigest(input.keyDigest);
    return this.#hit(sessionName, input);
  }

  /** `hit` without the digest's check: `immediate` is the core's, whose digests are the authenticator's SHA-256. */
  #hit(sessionName: string, input: HitInput): HitResult {
    const session = this.#session(sessionName, input.baseTimeMs);
    const nowMs = (session.now = input.baseTimeMs + session.offsetMs);
    const runtime = input.keyDigest === undefined ? undefined : session.keys.get(input.keyDigest);
    const key = runtime ?? input.configKey ?? null;
    const decision = key
      ? session.keyLimiter.hit(key.id, key.limits)
      : session.anonymousLimiter.hit(input.clientAddress, this.options.anonymous);
    const record = session.historyOf(key ? key.id : input.clientAddress, key === null);
    const history = countInHistory(record, decision, nowMs);
    session.countRecords();
    const result: HitResult = { nowMs, decision, key, client: record.client, history };
    if (!key && session.anonymousLimiter.evicted > 0) result.trackedClientsDropped = session.anonymousLimiter.evicted;
    const operation = input.categories;
    if (operation && decision.outcome === 'allowed' && (!operation.requiresKey || key !== null)) {
      if (operation.kind === 'list') {
        result.categoriesJson = session.categories.listJson();
      } else {
        try {
          result.created = session.categories.createEntry(operation.input);
        } catch (error) {
          // Larger than the whole byte bound (413), or no room in the memory budget (507): the request was counted, the category is refused.
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
    return { created: this.#session(sessionName, baseTimeMs).addKey(key) };
  }

  async listKeys(sessionName: string, baseTimeMs: number): Promise<ApiKeyEntry[]> {
    return [...this.#session(sessionName, baseTimeMs).keys.values()].map(copyKeyEntry);
  }

  async advanceClock(sessionName: string, ms: number, baseTimeMs: number): Promise<number> {
    const step = clockStepMs(ms);
    const session = this.#session(sessionName, baseTimeMs);
    const moved = session.offsetMs + step;
    if (!clockOffsetInRange(moved, baseTimeMs)) throw new RangeError(clockRangeMessage(moved));
    session.offsetMs = moved;
    return session.offsetMs;
  }

  async clockOffset(sessionName: string, baseTimeMs: number): Promise<number> {
    return this.#session(sessionName, baseTimeMs).offsetMs;
  }

  async appendRequest(sessionName: string, entry: RecordedRequest, baseTimeMs: number): Promise<void> {
    this.#append(sessionName, { ...entry }, baseTimeMs);
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
    const session = this.#session(sessionName, baseTimeMs);
    session.now = baseTimeMs + session.offsetMs;
    session.reset();
  }

  async snapshot(sessionName: string, baseTimeMs: number): Promise<StoreScenario> {
    const session = this.#session(sessionName, baseTimeMs);
    session.now = baseTimeMs + session.offsetMs;
    return session.snapshot();
  }

  async startingState(sessionName: string, baseTimeMs: number): Promise<StartingState> {
    return this.#session(sessionName, baseTimeMs).startingState();
  }

  async listSessions(baseTimeMs: number): Promise<SessionInfo[]> {
    this.#assertOpen();
    this.#expireIdle(baseTimeMs);
    const sessions: SessionInfo[] = [...this.#sessions].map(([name, session]) => ({
      name,
      lastSeenMs: session.lastSeenMs,
    }));
    if (!this.#sessions.has(defaultSessionName)) sessions.push({ name: defaultSessionName, lastSeenMs: null });
    return sortSessions(sessions);
  }

  async setSpent(sessionName: string, client: StoreClient, spent: SpentCounts, baseTimeMs: number): Promise<void> {
    assertClientStep(client, spent, null);
    const session = this.#session(sessionName, baseTimeMs);
    session.now = baseTimeMs + session.offsetMs;
    if (client.kind === 'key') session.keyLimiter.setSpent(client.id, spent);
    else session.anonymousLimiter.setSpent(client.address, spent);
    session.countRecords();
  }

  async ban(sessionName: string, client: StoreClient, ms: number, baseTimeMs: number): Promise<{ untilMs: number }> {
    assertClientStep(client, null, ms);
    const session = this.#session(sessionName, baseTimeMs);
    session.now = baseTimeMs + session.offsetMs;
    const untilMs =
      client.kind === 'key'
        ? session.keyLimiter.banFor(client.id, ms)
        : session.anonymousLimiter.banFor(client.address, ms);
    session.countRecords();
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
    const tooLarge = categoriesTooLarge(scenario, session, this.options.maxCategoryBytes);
    if (tooLarge !== null)
      throw new ScenarioRefusedError(
        'category',
        tooLarge.index,
        categoryTooLargeMessage(tooLarge.bytes, this.options.maxCategoryBytes),
      );
    session.assertRoomFor(scenario.keys, [...(scenario.categoryList ?? []), ...scenario.categories]);
    // Then all of it, in the plan's order: budgets and bans at the scenario's clock.
    session.offsetMs = offsetMs;
    session.now = baseTimeMs + offsetMs;
    if (scenario.afterSunset !== undefined) session.afterSunset = scenario.afterSunset;
    for (const key of scenario.keys) session.addKey(key);
    for (const { client, windows } of scenario.clients ?? [])
      client.kind === 'key'
        ? session.keyLimiter.setState(client.id, windows)
        : session.anonymousLimiter.setState(client.address, windows);
    for (const { client, spent } of scenario.spends)
      client.kind === 'key'
        ? session.keyLimiter.setSpent(client.id, spent)
        : session.anonymousLimiter.setSpent(client.address, spent);
    for (const { client, ms } of scenario.bans)
      client.kind === 'key'
        ? session.keyLimiter.banFor(client.id, ms)
        : session.anonymousLimiter.banFor(client.address, ms);
    if (scenario.categoryList !== undefined) session.categories.restore(scenario.categoryList);
    for (const category of scenario.categories) session.categories.createEntry(category);
    // The log's starting state is the session as the scenario left it.
    session.markStart();
    // Last: the records are charged, never refused, so they cannot take the room made above for the keys and categories.
    session.countRecords();
    return { offsetMs };
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const [name, session] of this.#sessions) this.#forget(name, session);
  }

  #session(name: string, baseTimeMs: number): MemorySession {
    this.#assertOpen();
    let session = this.#sessions.get(name);
    // Only a name never seen is checked: every stored one was valid when it was created.
    if (!session) assertSessionName(name);
    if (session && name !== defaultSessionName && baseTimeMs - session.lastSeenMs >= this.options.sessionIdleMs) {
      // Idle past its expiry: forgotten, exactly as if it had been swept (Redis lets its keys expire).
      this.#forget(name, session);
      session = undefined;
    }
    if (!session) {
      if (name !== defaultSessionName) {
        this.#expireIdle(baseTimeMs);
        const named = this.#sessions.size - (this.#sessions.has(defaultSessionName) ? 1 : 0);
        if (named >= this.options.maxSessions) throw new TooManySessionsError(this.options.maxSessions);
      }
      session = new MemorySession(this.options, baseTimeMs, this.memory.meter(name));
      this.#sessions.set(name, session);
    }
    if (baseTimeMs > session.lastSeenMs) session.lastSeenMs = baseTimeMs;
    this.memory.touch(name);
    return session;
  }

  #expireIdle(baseTimeMs: number): void {
    for (const [name, session] of this.#sessions) {
      if (name !== defaultSessionName && baseTimeMs - session.lastSeenMs >= this.options.sessionIdleMs)
        this.#forget(name, session);
    }
  }

  /** A session dropped by the store (idle): what it held goes back to the memory budget. */
  #forget(name: string, session: MemorySession): void {
    this.#sessions.delete(name);
    session.meter.releaseAll();
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error('Failed to use the memory store: it is closed');
  }
}

/**
 * The first category of a scenario larger than the whole byte bound, with its size, or null: the list
 * to restore (with its own ids), then the categories to create after it.
 */
function categoriesTooLarge(
  scenario: StoreScenario,
  session: MemorySession,
  maxBytes: number,
): { index: number; bytes: number } | null {
  const list = scenario.categoryList;
  if (list === undefined) return session.categories.firstTooLarge(scenario.categories);
  const fresh = new CategoryStore({ maxBytes });
  for (const [index, category] of list.entries()) {
    const bytes = utf8Length(JSON.stringify(category));
    if (2 + bytes > maxBytes) return { index, bytes };
  }
  if (list.length > 0) fresh.restore([list[list.length - 1]!]);
  const tooLarge = fresh.firstTooLarge(scenario.categories);
  return tooLarge === null ? null : { index: list.length + tooLarge.index, bytes: tooLarge.bytes };
}

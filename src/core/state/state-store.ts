import type { Category, NewCategory } from '../../../spec/schemas.js';
import type { Limits } from '../config/mock-config.js';
import type { ExactWindows } from '../config/scenario-windows.js';
import type { AfterSunsetMode } from '../config/store-config.js';
import { HttpError } from '../errors.js';
import type { ApiKeyEntry } from './key-registry.js';
import type { ProcessMemory } from './memory-account.js';
import type { BanPolicy, RateDecision } from './rate-limiter.js';
import type { RecordedRequest, RequestLogEntry } from './request-log.js';

/**
 * The state of the mock that must be shared by replicas and kept apart per session, behind one
 * asynchronous interface: rate-limit windows, strikes and bans; categories and their id sequence;
 * the keys added at run time; the virtual clock's offset; the request log; and the sessions
 * themselves. Two implementations: `createMemoryStore` (the default, and the only one in the browser
 * bundle) and `createRedisStore` in `src/server/redis-store.ts` (replicas). A property test drives
 * both with the same operations and asserts the same answers (`test/store/equivalence.test.ts`).
 *
 * Every method takes the session first. Times passed in are the caller's base clock in
 * milliseconds (never the store's clock, never Redis TIME): the store adds the session's virtual
 * clock offset itself, so one call is enough on the request path, and returns the virtual time it
 * used. Why asynchronous, and what stays synchronous: docs/decisions/010-state-store.md.
 *
 * Browser-safe: no Node types here.
 *
 * @example
 * const store = createMemoryStore(storeOptionsFromConfig(config, seedCategories));
 * const hit = await store.hit('default', { baseTimeMs: Date.now(), clientAddress: '127.0.0.1', keyDigest, configKey });
 * hit.decision.outcome; // 'allowed' | 'limited' | 'banned'
 */
export interface StateStore {
  readonly kind: 'memory' | 'redis';
  readonly options: Readonly<StateStoreOptions>;

  /**
   * The hot path, one round trip: resolves the client (a key added at run time shadows a config key;
   * no valid key means the anonymous budget of `clientAddress`), counts one request against its
   * windows atomically, and returns the decision, the virtual time, the key and the client's history.
   */
  hit(session: string, input: HitInput): Promise<HitResult>;
  /** What the headers of the anonymous budget of `clientAddress` would say, without counting a request. */
  peekAnonymous(session: string, clientAddress: string, baseTimeMs: number): Promise<RateDecision>;

  /** Stores a category under the next id of the session's sequence (the oldest is dropped past maxCategories). */
  createCategory(session: string, input: NewCategory, baseTimeMs: number): Promise<CreatedCategory>;
  listCategories(session: string, baseTimeMs: number): Promise<Category[]>;
  /** The list as JSON text (the hot path of `GET /categories`: no parse and re-serialise). */
  listCategoriesJson(session: string, baseTimeMs: number): Promise<string>;

  /** Adds a key at run time, or changes the plan of one added before. `created` is false when it replaced one. */
  addKey(session: string, key: RuntimeKey, baseTimeMs: number): Promise<{ created: boolean }>;
  /** The keys added at run time (config and demo keys live in the app, the same in every session). */
  listKeys(session: string, baseTimeMs: number): Promise<ApiKeyEntry[]>;

  /** Moves the session's virtual clock forward by `ms` (finite, >= 0); returns the new offset. */
  advanceClock(session: string, ms: number, baseTimeMs: number): Promise<number>;
  /** How far the session's virtual clock is ahead of the base clock, in milliseconds. */
  clockOffset(session: string, baseTimeMs: number): Promise<number>;

  /** Appends to the session's bounded request log (the newest `requestLogSize` entries are kept). */
  appendRequest(session: string, entry: RecordedRequest, baseTimeMs: number): Promise<void>;
  /** The session's request log, oldest first, as `GET /__mock/requests` serves it. */
  requests(session: string, baseTimeMs: number): Promise<RequestLogEntry[]>;
  /** The same log as recorded, with the fields the export needs (`GET /__mock/requests?format=jsonl`). */
  recordedRequests(session: string, baseTimeMs: number): Promise<RecordedRequest[]>;

  /** The session's bounded data against its bounds, and what the bounds dropped since the last reset (`GET /__mock/health`). */
  stats(session: string, baseTimeMs: number): Promise<SessionStats>;

  /** Back to the seeded state: counters, bans, histories, run-time keys, the log and categories. The clock stays. */
  reset(session: string, baseTimeMs: number): Promise<void>;
  /** The live sessions (the default one always), most recently seen first. */
  listSessions(baseTimeMs: number): Promise<SessionInfo[]>;

  /**
   * Puts a client where that many served requests would have put it (scenario files): the next `hit`
   * answers exactly as after `minute` requests in its current minute window and `day` in its day window.
   * A window still running keeps its start; an ended (or new) one starts at the session's virtual now.
   * A count left out stays as it is; the day holds at least what the minute holds (a served request
   * counts in both). Strikes start over; a ban stays. Atomic; the client's history is not touched.
   */
  setSpent(session: string, client: StoreClient, spent: SpentCounts, baseTimeMs: number): Promise<void>;
  /**
   * Bans a client for `ms` from the session's virtual now: every request until then is answered as a
   * ban of the ban policy (`banned`, Retry-After to the ban's end); afterwards its strikes start over.
   * Returns the virtual time the ban ends.
   */
  ban(session: string, client: StoreClient, ms: number, baseTimeMs: number): Promise<{ untilMs: number }>;
  /**
   * What the session's deprecated operations do past their sunset date (a scenario's `sunset.afterSunset`);
   * null goes back to the config's choice. Cleared by `reset`.
   */
  setAfterSunset(session: string, mode: AfterSunsetMode | null, baseTimeMs: number): Promise<void>;
  /** The session's choice, or null when it made none (the config decides). */
  afterSunset(session: string, baseTimeMs: number): Promise<AfterSunsetMode | null>;

  /**
   * A scenario in one step: everything that can refuse it (the clock's move and range, each category's
   * size, every key, client and budget, the memory budget) is checked before the first change, and
   * then all of it is applied, in the order clock, sunset mode, keys, budgets, bans, categories
   * (budgets and bans at the scenario's clock). A refusal (`ScenarioRefusedError`, or the RangeError of
   * a bad step) changes nothing. Returns the session's clock offset afterwards.
   */
  applyScenario(session: string, scenario: StoreScenario, baseTimeMs: number): Promise<{ offsetMs: number }>;

  /**
   * The session's state now, as a scenario the store applies again: `applyScenario(session2,
   * await snapshot(session1))` on a fresh session puts it where session1 is (clock offset, after-sunset
   * mode, run-time keys, every client's windows, strikes and ban, the categories with their ids).
   * The request log and the clients' histories are not part of it. Clients whose windows have all
   * ended and that are not banned are left out (they answer as new ones).
   *
   * @example
   * const saved = await store.snapshot('default', Date.now());
   * await other.applyScenario('default', saved, Date.now()); // the same budgets, bans, keys and categories
   */
  snapshot(session: string, baseTimeMs: number): Promise<StoreScenario>;
  /**
   * The state the request log starts from, for the export (`GET /__mock/requests?format=jsonl`): the
   * snapshot taken when the session was created, reset or given a scenario, with the windows each
   * client had after its last request the log has since dropped (the log keeps the newest
   * `requestLogSize`), and how many requests it dropped. Design: docs/decisions/026-faithful-export.md.
   */
  startingState(session: string, baseTimeMs: number): Promise<StartingState>;

  /** Releases connections; the store answers nothing afterwards. */
  close(): Promise<void>;

  /**
   * The process's memory budget, when the store keeps its sessions in this process (memory): the app
   * counts the lab against the same budget. A store without one (Redis) keeps its data where its own
   * bound applies (maxmemory), and the app gives the lab a budget of its own.
   */
  readonly memory?: ProcessMemory;

  /**
   * The request path's two calls answered at once, offered by a store whose state is in this
   * process (memory): the core then answers a request in the same turn of the event loop, with no
   * promise per step (issue 11: the in-memory mock must cost no more than it did before stores).
   * Same semantics as `hit` and `appendRequest`; they throw where those reject, except that `hit` here
   * takes the key digest as the core's authenticator made it (SHA-256 hex) without checking it again.
   */
  readonly immediate?: ImmediateStoreCalls;
}

export interface ImmediateStoreCalls {
  hit(session: string, input: HitInput): HitResult;
  /**
   * Takes the entry over: the caller must not change it afterwards (the async `appendRequest` copies it).
   * `keyId` is the id of the key this request's hit counted it against (`HitResult.key.id`): the very
   * string the store's tables hold, so the entry's client is found without deriving it from the digest.
   */
  appendRequest(session: string, entry: RecordedRequest, baseTimeMs: number, keyId?: string): void;
}

/** A scenario as a store applies it (`applyScenario`): every step resolved, applied whole or not at all. */
export interface StoreScenario {
  /**
   * Where the virtual clock goes: forward by `ms`; `to` an instant (refused when the session's clock is
   * past it); `atLeast` an instant (a clock already past it stays). Never more than 100 years ahead.
   */
  clock?: { kind: 'advance'; ms: number } | { kind: 'to'; atMs: number } | { kind: 'atLeast'; atMs: number };
  afterSunset?: AfterSunsetMode;
  keys: readonly RuntimeKey[];
  spends: readonly { client: StoreClient; spent: SpentCounts }[];
  bans: readonly { client: StoreClient; ms: number }[];
  categories: readonly NewCategory[];
  /**
   * Clients put exactly where a snapshot found them (window starts and counts, strikes, ban end),
   * replacing what the session had of them; applied after the keys, before the budgets and bans.
   */
  clients?: readonly { client: StoreClient; windows: ClientWindows }[];
  /**
   * The session's categories replaced by exactly these, ids kept (consecutive, ascending; the next id
   * follows the last). Applied before `categories`, which are then created after them.
   */
  categoryList?: readonly Category[];
}

/** Where a client stands, as the rate limiter keeps it: virtual times in milliseconds (a scenario's `windows`). */
export type ClientWindows = ExactWindows;

/** What `StateStore.startingState` answers. */
export interface StartingState {
  /**
   * The virtual time the state holds at: when the session was reset or given a scenario (null: since
   * it was created, seeded), or, when the log dropped requests since, the time of the last one it dropped.
   */
  atMs: number | null;
  state: StoreScenario;
  /** API requests the log dropped since the snapshot was taken, oldest and newest; null when none. */
  dropped: { count: number; firstAtMs: number; lastAtMs: number } | null;
}

/** A rate-limit client: a key by its id (`ApiKeyEntry.id`), or an anonymous client by address. */
export type StoreClient = { kind: 'key'; id: string } | { kind: 'anonymous'; address: string };

/** Requests to count as already served in a client's windows; a window left out keeps its count. */
export interface SpentCounts {
  minute?: number;
  day?: number;
}

export interface StateStoreOptions {
  /** Requests without a valid key are counted per client address against these limits. */
  anonymous: Limits;
  ban: BanPolicy;
  /** Most anonymous clients tracked per session in memory (Redis bounds them by TTL instead). */
  maxTrackedClients: number;
  maxCategories: number;
  /** Most bytes of a session's category list as served (JSON); the oldest are dropped past it. */
  maxCategoryBytes: number;
  requestLogSize: number;
  /** Categories a session starts with, and gets back on reset (ids 1..n). */
  seedCategories: readonly NewCategory[];
  /** Most sessions alive at once besides the default one; a new one past it is refused. */
  maxSessions: number;
  /** A session not used for this long (base clock) is forgotten. The default session never is. */
  sessionIdleMs: number;
  /**
   * The memory budget of everything the process keeps for its sessions (the memory store's data and
   * the lab), in bytes. Default 256 MiB. With Redis it counts the lab only.
   */
  memoryBudgetBytes?: number;
}

export interface HitInput {
  /** The caller's base clock (not virtual): the store adds the session's offset. */
  baseTimeMs: number;
  /** Who is calling, for the anonymous budget (`local` for a trusted in-process caller). */
  clientAddress: string;
  /** SHA-256 of the bearer token in lower-case hex, when one was sent (`keyDigest` in key-registry terms). */
  keyDigest?: string;
  /** The token's entry among the config and demo keys, if it is one; a run-time key of the session wins. */
  configKey?: ApiKeyEntry;
  /**
   * The request's category operation, done in the same round trip when the request is allowed (and,
   * with `requiresKey`, made with a valid key): `list` for `GET /categories`, `create` for a valid
   * `POST /categories` (the caller has validated the body and checked everything else that could refuse
   * it). Nothing is done for a refused request.
   */
  categories?: { kind: 'list'; requiresKey: boolean } | { kind: 'create'; requiresKey: boolean; input: NewCategory };
}

export interface HitResult {
  /** The virtual time of this request (base + the session's offset). */
  nowMs: number;
  decision: RateDecision;
  /** The key the request was counted against, or null for the anonymous budget. */
  key: ApiKeyEntry | null;
  /** The rate-limit client: `k:<key id>` or `a:<address>`. */
  client: string;
  history: ClientHistory;
  /** After a `list` operation was done: what `listCategoriesJson` would answer. */
  categoriesJson?: string;
  /** After a `create` operation was done: what `createCategory` would answer, the category as text only (the answer is the text). */
  created?: CreatedCategoryText;
  /** Anonymous clients the session forgot to stay within maxTrackedClients (memory only; absent when none). */
  trackedClientsDropped?: number;
  /** A `create` refused because the category alone is larger than maxCategoryBytes (413); nothing was stored. */
  categoryRefusal?: Error;
}

/**
 * What the store remembers of a client between requests, beyond its windows: enough for a verdict
 * engine to judge Retry-After, backoff and hammering (issue 12) without another round trip.
 * Kept since the session's last reset, bounded like the buckets.
 */
export interface ClientHistory {
  /** Requests counted, this one included. */
  requests: number;
  /** Of those, answered 429 (limited or banned). */
  refusals: number;
  /** 429s in a row since the client was last served, this one included. */
  consecutiveRefusals: number;
  /** The latest 429 before this request, or null: when it was given and the Retry-After it carried. */
  previousRefusal: { atMs: number; retryAfterSeconds: number } | null;
}

export interface SessionStats {
  categories: { count: number; bytes: number; maxCount: number; maxBytes: number };
  /** Dropped by a bound since the session was seeded or reset: categories (oldest first), anonymous clients forgotten (memory only: Redis bounds them by TTL). */
  dropped: { categories: number; trackedClients: number };
}

/** A stored category as the answer to a create needs it: its id and its text, no object. */
export interface CreatedCategoryText {
  id: number;
  /** Categories dropped to stay within maxCategories since the session was seeded. */
  dropped: number;
  /** The category as JSON text (`JSON.stringify(category)`): the answer's body, made once. */
  json: string;
  /** UTF-8 bytes of `json`, counted where it was made (the store's byte bound counts them). */
  bytes: number;
}

export interface CreatedCategory extends Omit<CreatedCategoryText, 'id'> {
  category: Category;
}

/** A key added at run time: the public entry plus the digest it is found by. */
export interface RuntimeKey extends ApiKeyEntry {
  /** SHA-256 of the key in lower-case hex. */
  digest: string;
}

export interface SessionInfo {
  name: string;
  /**
   * Base-clock time of the session's last use, in milliseconds (Redis: to the second, it is written
   * at most once a second per replica); null for a default session never used yet.
   */
  lastSeenMs: number | null;
}

/**
 * The store did not answer (down, unreachable, or slower than its timeout). The core answers 503
 * with an Error body of this code, this message (safe to show a client: it names no host) and
 * `Retry-After: retryAfterSeconds`, and logs `detail` (which store, what failed).
 */
export class StoreUnavailableError extends Error {
  readonly code = 'store_unavailable' as const;
  readonly status = 503;
  readonly retryAfterSeconds: number;
  /** For the log: which store and what failed. */
  readonly detail: string;

  constructor(detail: string, retryAfterSeconds = 1, options?: { cause?: unknown }) {
    super(`The mock's state store is unavailable; retry after ${retryAfterSeconds} seconds`, options);
    this.name = 'StoreUnavailableError';
    this.retryAfterSeconds = retryAfterSeconds;
    this.detail = detail;
  }
}

/** A new session past `maxSessions`. The core answers 429 or 503 with this code; existing sessions are untouched. */
export class TooManySessionsError extends Error {
  readonly code = 'too_many_sessions' as const;

  constructor(maxSessions: number) {
    super(`Too many sessions: ${maxSessions} are alive; reuse one, reset one, or wait for an idle one to expire`);
    this.name = 'TooManySessionsError';
  }
}

/**
 * A scenario part a store refused before changing anything: the clock (`clock-behind`: an instant
 * before the session's clock; `clock-range`: more than 100 years ahead) or a category (`category`,
 * `index` in the scenario's categories) larger than maxCategoryBytes. The message is the same from
 * every store; the scenario names the field.
 */
export class ScenarioRefusedError extends RangeError {
  constructor(
    readonly part: 'clock-behind' | 'clock-range' | 'category',
    readonly index: number,
    message: string,
  ) {
    super(message);
    this.name = 'ScenarioRefusedError';
  }
}

/**
 * The store holds data under its keys that the mock did not write (Redis: another tool's key of the
 * wrong type, a list entry that is no category, a meta field that is no number, a clock out of range).
 * Answered 503 `store_corrupt` on every replica, with where and how to repair it; never a 500.
 */
export class StoreCorruptError extends HttpError {
  constructor(message: string) {
    super('store_corrupt', message);
    this.name = 'StoreCorruptError';
  }
}

/**
 * A write that the memory budget (or Redis's own maxmemory) has no room for, refused before it
 * changed anything: 507 `store_full` with Retry-After.
 */
export class StoreFullError extends HttpError {
  constructor(message: string, retryAfterSeconds: number) {
    super('store_full', message, { 'Retry-After': String(retryAfterSeconds) });
    this.name = 'StoreFullError';
  }
}

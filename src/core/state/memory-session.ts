import type { NewCategory } from '../../../spec/schemas.js';
import type { AfterSunsetMode } from '../config/store-config.js';
import { HttpError } from '../errors.js';
import { CategoryStore } from './category-store.js';
import { type ApiKeyEntry, frozenKeyEntry } from './key-registry.js';
import type { ByteMeter } from './memory-account.js';
import { dueForMove, type RateDecision, RateLimiter } from './rate-limiter.js';
import { type DroppedRequest, RequestLog } from './request-log.js';
import type {
  ClientHistory,
  ClientWindows,
  RuntimeKey,
  StartingState,
  StateStoreOptions,
  StoreClient,
  StoreScenario,
} from './state-store.js';
import { clientName, sortClients, startingStateOf, windowsOver } from './store-checks.js';

/** What a session's own objects (its tables, limiters, log and store) count against the memory budget. */
const sessionBytes = 16 * 1024;
/** A rate-limit bucket or a client history: its object and its table entry. */
const recordBytes = 200;
/** A run-time key: its frozen entry, limits and table entry. */
const keyBytes = 400;

interface HistoryRecord {
  /** The client's name in a hit (`k:<key id>` or `a:<address>`), made once: the lab's client table and gauges look it up on every request. */
  readonly client: string;
  requests: number;
  refusals: number;
  consecutiveRefusals: number;
  /** NaN before the first 429: "none" is not a time (a refusal may come at any time, before 1970 too). */
  lastRefusalAtMs: number;
  lastRetryAfterSeconds: number;
  /** When the record was last moved to the recently seen end of the table. */
  touchedAtMs: number;
}

/** A client of a dropped request, with where it stood just after it. */
interface ClientAfter {
  client: StoreClient;
  windows: ClientWindows;
}

/**
 * One isolated world of the memory store: the same components the single-process core used, one set
 * per session, and its account with the memory budget (categories, their cached list, the log, the
 * rate-limit records and run-time keys count against it).
 */
export class MemorySession {
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
  /** Per key id, as the key limiter's buckets. */
  readonly keyHistories = new Map<string, HistoryRecord>();
  /** Per address, least recently seen first to within a second (see historyOf), as the anonymous limiter's buckets. */
  readonly anonymousHistories = new Map<string, HistoryRecord>();
  #newHistoriesSinceSweep = 0;
  /** Drops folded into the log's starting state since its clients were last swept. */
  #dropsSinceSweep = 0;
  /** A scenario's `sunset.afterSunset` for this session; null: the config decides. */
  afterSunset: AfterSunsetMode | null = null;

  /**
   * The state the log starts from (docs/decisions/026-faithful-export.md): a snapshot taken when the
   * session was created, reset or given a scenario, and what the log dropped since, each dropped
   * request's client with where it stood just after it (the newest of each client wins): keys by
   * their id (as the limiter counts them), anonymous clients by the address the log's entry holds.
   */
  start!: {
    atMs: number | null;
    state: StoreScenario;
    dropped: { count: number; firstAtMs: number; lastAtMs: number } | null;
    afterKeys: Map<string, ClientAfter>;
    afterAnonymous: Map<string, ClientAfter>;
  };

  /** Rate-limit records (buckets and histories) counted against the budget so far. */
  #chargedRecords = 0;

  constructor(
    readonly options: StateStoreOptions,
    baseTimeMs: number,
    readonly meter: ByteMeter,
  ) {
    const clock = { now: () => this.now };
    // Keys and anonymous clients are tracked apart, as in the single-process core: only anonymous
    // clients (one per address, so unbounded in number) are capped.
    this.keyLimiter = new RateLimiter({ clock, ban: options.ban, maxBuckets: Number.POSITIVE_INFINITY });
    this.anonymousLimiter = new RateLimiter({ clock, ban: options.ban, maxBuckets: options.maxTrackedClients });
    this.categories = new CategoryStore({ maxCount: options.maxCategories, maxBytes: options.maxCategoryBytes, meter });
    this.log = new RequestLog(options.requestLogSize, meter, (dropped) => this.#foldDropped(dropped));
    this.lastSeenMs = baseTimeMs;
    meter.charge(sessionBytes);
    this.seed();
    this.now = baseTimeMs;
    this.markStart(null);
  }

  /** Where the session is now, as a scenario that puts a fresh session there (StateStore.snapshot). */
  snapshot(): StoreScenario {
    const clients: { client: StoreClient; windows: ClientWindows }[] = [];
    for (const [id, windows] of this.keyLimiter.liveStates(this.now))
      clients.push({ client: { kind: 'key', id }, windows });
    for (const [address, windows] of this.anonymousLimiter.liveStates(this.now))
      clients.push({ client: { kind: 'anonymous', address }, windows });
    return {
      clock: { kind: 'advance', ms: this.offsetMs },
      ...(this.afterSunset === null ? {} : { afterSunset: this.afterSunset }),
      keys: [...this.keys].map(([digest, entry]) => ({ ...entry, limits: { ...entry.limits }, digest })),
      spends: [],
      bans: [],
      categories: [],
      clients: sortClients(clients),
      categoryList: this.categories.list(),
    };
  }

  /** The log's starting state is the session as it is now (at `this.now`; null: as created): reset, or given a scenario. */
  markStart(atMs: number | null = this.now): void {
    this.start = { atMs, state: this.snapshot(), dropped: null, afterKeys: new Map(), afterAnonymous: new Map() };
  }

  startingState(): StartingState {
    const { atMs, state, dropped, afterKeys, afterAnonymous } = this.start;
    const clients = new Map<string, ClientAfter>();
    // Copies: the fold goes on updating its own in place.
    for (const { client, windows } of [...afterKeys.values(), ...afterAnonymous.values()])
      clients.set(clientName(client), { client, windows: { ...windows } });
    return startingStateOf(atMs, state, dropped === null ? null : { ...dropped }, clients);
  }

  /** Where a logged request's client stands now, by its key's id or else its address: what the log keeps with the entry (see RequestLog.add). */
  postOf(keyId: string | null, clientAddress: string | null): ClientWindows | null {
    if (keyId !== null) return this.keyLimiter.stateOf(keyId);
    return clientAddress === null ? null : this.anonymousLimiter.stateOf(clientAddress);
  }

  /**
   * O(1) and in place, for it runs on every request once the log is full: the count and a known
   * client's windows are updated where they are (a Map's delete and set on every request cost more
   * than the rest of the fold: V8 shrinks the table at each delete). Bounded as the limiter is:
   * clients whose windows and ban are over stand nowhere, and are swept every 1,024 drops (so memory
   * returns once they expire); past maxTrackedClients a new client is not kept, as on Redis: the
   * replay starts it fresh and says the recording starts mid-window.
   */
  #foldDropped(dropped: DroppedRequest): void {
    const timeMs = dropped.timeMs;
    // A request before the snapshot is in it already.
    if (this.start.atMs !== null && timeMs < this.start.atMs) return;
    const count = this.start.dropped;
    if (count === null) this.start.dropped = { count: 1, firstAtMs: timeMs, lastAtMs: timeMs };
    else {
      count.count += 1;
      count.lastAtMs = timeMs;
    }
    if (Number.isNaN(dropped.postMinuteStart)) return;
    const { afterKeys, afterAnonymous } = this.start;
    if (++this.#dropsSinceSweep >= 1024) {
      this.#dropsSinceSweep = 0;
      for (const table of [afterKeys, afterAnonymous])
        for (const [id, entry] of table) if (windowsOver(entry.windows, timeMs)) table.delete(id);
    }
    const keyId = dropped.keyId;
    const table = keyId !== null ? afterKeys : afterAnonymous;
    const id = keyId ?? dropped.clientAddress ?? 'local';
    const known = table.get(id);
    if (known !== undefined) copyPost(dropped, known.windows);
    else if (afterKeys.size + afterAnonymous.size < this.options.maxTrackedClients) {
      const client: StoreClient = keyId !== null ? { kind: 'key', id } : { kind: 'anonymous', address: id };
      table.set(id, { client, windows: copyPost(dropped, emptyWindows()) });
    }
  }

  /**
   * Counts the rate-limit records against the budget as they come and go: O(1), read from the
   * tables' sizes (a record is bounded by maxTrackedClients and expiry, so it is charged, never refused).
   */
  countRecords(): void {
    const records =
      this.keyLimiter.size + this.anonymousLimiter.size + this.keyHistories.size + this.anonymousHistories.size;
    if (records === this.#chargedRecords) return;
    this.meter.charge((records - this.#chargedRecords) * recordBytes);
    this.#chargedRecords = records;
  }

  /**
   * Throws 507 store_full, changing nothing, when the memory budget has no room for these keys and
   * categories; else the room is made (other sessions forgotten as needed) for the steps that take it.
   */
  assertRoomFor(keys: readonly RuntimeKey[], categories: readonly NewCategory[]): void {
    const fresh = new Set(keys.map((key) => key.digest).filter((digest) => !this.keys.has(digest)));
    const room = this.categories.chargeOf(categories) + fresh.size * keyBytes;
    if (!this.meter.take(room)) throw this.meter.full('scenario');
    this.meter.give(room);
  }

  /** Adds a key at run time (or changes one); a new key counts against the budget, 507 when it has no room. */
  addKey(key: RuntimeKey): boolean {
    const created = !this.keys.has(key.digest);
    if (created && !this.meter.take(keyBytes)) throw this.meter.full('key');
    this.keys.set(key.digest, frozenKeyEntry(key));
    return created;
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
    this.meter.give(this.keys.size * keyBytes);
    this.keys.clear();
    this.keyHistories.clear();
    this.anonymousHistories.clear();
    this.countRecords();
    this.log.clear();
    this.afterSunset = null;
    this.seed();
    this.markStart();
  }

  #sweepHistories(): void {
    this.#newHistoriesSinceSweep = 0;
    for (const id of this.keyHistories.keys()) if (!this.keyLimiter.has(id)) this.keyHistories.delete(id);
    for (const address of this.anonymousHistories.keys())
      if (!this.anonymousLimiter.has(address)) this.anonymousHistories.delete(address);
  }

  /**
   * A client's history record (`clientId` as the limiter counts it: the key's id, or the address),
   * made at its first request; `countInHistory` counts the request in it.
   */
  historyOf(clientId: string, anonymous: boolean): HistoryRecord {
    const histories = anonymous ? this.anonymousHistories : this.keyHistories;
    let record = histories.get(clientId);
    if (record) {
      // Only anonymous histories are evicted least-recently-seen first: only they need the re-insert,
      // at most once a second, as the limiter's buckets (a Map's delete and set on every request
      // cost more than the rest of this function: V8 shrinks the table at each delete).
      if (anonymous && dueForMove(record.touchedAtMs, this.now)) {
        record.touchedAtMs = this.now;
        histories.delete(clientId);
        histories.set(clientId, record);
      }
    } else {
      record = {
        client: clientName(anonymous ? { kind: 'anonymous', address: clientId } : { kind: 'key', id: clientId }),
        requests: 0,
        refusals: 0,
        consecutiveRefusals: 0,
        lastRefusalAtMs: Number.NaN,
        lastRetryAfterSeconds: 0,
        touchedAtMs: this.now,
      };
      // A history lives as long as its client's rate-limit record: once the limiter has swept an
      // expired client, its history goes too (as Redis lets both expire together), so memory returns.
      if (++this.#newHistoriesSinceSweep >= 1024) this.#sweepHistories();
      histories.set(clientId, record);
    }
    // Bounded over both tables, on every anonymous request: a flood of addresses forgets the least recently
    // seen address (a key's history stays while its key's bucket does).
    if (anonymous && this.keyHistories.size + this.anonymousHistories.size > this.options.maxTrackedClients)
      this.anonymousHistories.delete(this.anonymousHistories.keys().next().value!);
    return record;
  }
}

/** Counts a request in a client's history: what the hit reports, the refusal before this request included. */
export function countInHistory(record: HistoryRecord, decision: RateDecision, nowMs: number): ClientHistory {
  const previousRefusal = Number.isNaN(record.lastRefusalAtMs)
    ? null
    : { atMs: record.lastRefusalAtMs, retryAfterSeconds: record.lastRetryAfterSeconds };
  record.requests += 1;
  if (decision.outcome === 'allowed') {
    record.consecutiveRefusals = 0;
  } else {
    record.refusals += 1;
    record.consecutiveRefusals += 1;
    record.lastRefusalAtMs = nowMs;
    record.lastRetryAfterSeconds = decision.retryAfterSeconds;
  }
  return {
    requests: record.requests,
    refusals: record.refusals,
    consecutiveRefusals: record.consecutiveRefusals,
    previousRefusal,
  };
}

function emptyWindows(): ClientWindows {
  return { minuteStartMs: 0, minuteCount: 0, dayStartMs: 0, dayCount: 0, strikes: 0, bannedUntilMs: null };
}

/** Where a dropped request's client stood just after it, written into `windows`. */
function copyPost(dropped: DroppedRequest, windows: ClientWindows): ClientWindows {
  windows.minuteStartMs = dropped.postMinuteStart;
  windows.minuteCount = dropped.postMinuteCount;
  windows.dayStartMs = dropped.postDayStart;
  windows.dayCount = dropped.postDayCount;
  windows.strikes = dropped.postStrikes;
  windows.bannedUntilMs = Number.isNaN(dropped.postBannedUntil) ? null : dropped.postBannedUntil;
  return windows;
}

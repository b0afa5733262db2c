import type { ByteMeter, MemoryBudgetStats, ProcessMemory } from './memory-account.js';
import { defaultSessionName } from './sessions.js';
import { StoreFullError } from './state-store.js';

/**
 * One memory budget for everything the mock keeps in this process for its sessions: categories and
 * their cached lists, request logs, rate-limit records, run-time keys and the lab, of every session,
 * counted where each text is made (O(1) a write). When a write does not fit, the least recently used
 * named session is forgotten whole (the default session never is); when only the default session and
 * the writer's are left, the write is refused with 507 store_full and Retry-After. So many sessions
 * can never take the process past its heap.
 *
 * @example
 * const budget = new MemoryBudget(256 * 1024 * 1024, 'categories, lists, logs and the lab');
 * budget.onEvict((session) => sessions.delete(session));
 * const meter = budget.meter('ci-job-7');
 * if (!meter.take(json.length)) throw meter.full('category');
 */
export class MemoryBudget implements ProcessMemory {
  #used = 0;
  /** What each session holds, least recently used first. A meter holds its session's ledger: a write is two additions, no lookup. */
  readonly #sessions = new Map<string, Ledger>();
  /** The session used last is already the newest: no reorder (this runs on every request). */
  #newest: Ledger | null = null;
  readonly #listeners: ((session: string) => void)[] = [];
  #evicted = 0;
  #refused = 0;
  #notKept = 0;

  /**
   * @param budgetBytes The total, in bytes.
   * @param counts What it counts, in words, for the health answer.
   * @param retryAfterSeconds Retry-After of a refused write (a session frees room when it is reset or idle long enough).
   */
  constructor(
    readonly budgetBytes: number,
    readonly counts: string,
    readonly retryAfterSeconds = 60,
  ) {}

  /** Called with each session forgotten to make room: its owners drop it whole (the budget has already counted it out). */
  onEvict(listener: (session: string) => void): void {
    this.#listeners.push(listener);
  }

  /** Marks `session` as the most recently used. */
  touch(session: string): void {
    if (this.#newest?.session === session) return;
    const ledger = this.#sessions.get(session);
    if (ledger === undefined) return;
    this.#sessions.delete(session);
    this.#sessions.set(session, ledger);
    this.#newest = ledger;
  }

  /** An account for one owner of one session. */
  meter(session: string): ByteMeter {
    let taken = 0;
    let ledger = this.#ledger(session);
    const add = (bytes: number) => {
      // Forgotten to make room since (its owner dropped it), or emptied and let go: the session's ledger now.
      if (ledger.evicted) return;
      if (!ledger.attached) ledger = this.#ledger(session);
      ledger.bytes += bytes;
      this.#used += bytes;
      taken += bytes;
    };
    return {
      take: (bytes) => {
        if (!this.#makeRoom(session, bytes)) return false;
        add(bytes);
        return true;
      },
      charge: (bytes) => {
        this.#makeRoom(session, bytes, true);
        add(bytes);
      },
      give: (bytes) => add(-bytes),
      releaseAll: () => {
        add(-taken);
        // Nothing left of the session: its entry goes, so sessions that come and go leave nothing behind.
        if (ledger.bytes <= 0 && ledger.attached && !ledger.evicted) this.#detach(ledger);
      },
      notKept: () => {
        this.#notKept += 1;
      },
      full: (what) => this.#full(what),
    };
  }

  stats(): MemoryBudgetStats {
    return {
      budgetBytes: this.budgetBytes,
      usedBytes: this.#used,
      counts: this.counts,
      evictedSessions: this.#evicted,
      refusedWrites: this.#refused,
      notKept: this.#notKept,
    };
  }

  #ledger(session: string): Ledger {
    let ledger = this.#sessions.get(session);
    if (ledger === undefined) {
      ledger = { session, bytes: 0, attached: true, evicted: false };
      this.#sessions.set(session, ledger);
    }
    return ledger;
  }

  #detach(ledger: Ledger): void {
    ledger.attached = false;
    this.#sessions.delete(ledger.session);
    if (this.#newest === ledger) this.#newest = null;
  }

  /** Forgets least recently used named sessions (never the default one, never `session`) until `bytes` fit; whether they do. O(1) unless it must forget. */
  #makeRoom(session: string, bytes: number, whatItCan = false): boolean {
    if (bytes <= 0 || this.#used + bytes <= this.budgetBytes) return true;
    // A write that would not fit even with every other named session gone forgets none of them (a charge forgets what it can).
    let freeable = 0;
    for (const ledger of this.#sessions.values())
      if (ledger.session !== defaultSessionName && ledger.session !== session) freeable += ledger.bytes;
    if (!whatItCan && this.#used - freeable + bytes > this.budgetBytes) return false;
    while (this.#used + bytes > this.budgetBytes) {
      const victim = this.#leastRecentlyUsed(session);
      if (victim === undefined) return false;
      this.#used -= victim.bytes;
      victim.evicted = true;
      this.#detach(victim);
      this.#evicted += 1;
      for (const listener of this.#listeners) listener(victim.session);
    }
    return true;
  }

  #leastRecentlyUsed(except: string): Ledger | undefined {
    for (const ledger of this.#sessions.values()) {
      if (ledger.session !== defaultSessionName && ledger.session !== except && ledger.bytes > 0) return ledger;
    }
    return undefined;
  }

  #full(what: string): StoreFullError {
    this.#refused += 1;
    const mib = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MiB`;
    return new StoreFullError(
      `The mock's memory budget (${mib(this.budgetBytes)}, memoryBudgetBytes or --memory-budget) is used up by the default session and this one: the ${what} was not stored; reset a session (POST /__mock/reset), or raise the budget`,
      this.retryAfterSeconds,
    );
  }
}

/** What one session holds against the budget, all owners together. */
interface Ledger {
  readonly session: string;
  bytes: number;
  /** In the budget's table (a ledger emptied by its owners is let go; the next write makes a new one). */
  attached: boolean;
  /** Forgotten to make room: its owners dropped the session, and nothing counts against it any more. */
  evicted: boolean;
}

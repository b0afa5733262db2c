import type { MockApp } from '../src/core/mock-app.js';
import { defaultSessionName } from '../src/core/state/sessions.js';
import type { StoreScenario } from '../src/core/state/state-store.js';

/**
 * Keeps the browser mock's state across page reloads (`setupPetstoreWorker({ persist })`): after each
 * answered request the session's snapshot (`StateStore.snapshot`: spent budgets, bans, run-time keys,
 * categories, the clock's offset) is saved to Web Storage, debounced, and a page that starts again
 * applies it before its first request. Off by default: a test page usually wants a fresh mock.
 * Browser-safe; no Node types.
 */
export type PersistOption = 'sessionStorage' | 'localStorage' | false;

/** What the browser mock keeps across reloads, and where. */
export interface PersistenceOptions {
  /** `sessionStorage` (this tab) or `localStorage` (every tab of the origin). */
  storage: Storage;
  /** The storage key. Default `petstore-kit:state:<session>`. */
  key?: string;
  session?: string;
  /** Quiet time before a save: a burst of requests is saved once. Default 200 ms. */
  debounceMs?: number;
  /** Largest snapshot saved, in characters (Web Storage holds about 5 MB per origin). Default 1,000,000. */
  maxChars?: number;
  /** Where the one warning of a failed save or restore goes. Default `console.warn`. */
  warn?: (message: string) => void;
}

export interface MockPersistence {
  /** Resolves once a saved state (if any) is applied; a state that cannot be applied is dropped with one warning. */
  restored: Promise<void>;
  /** Schedules a save (debounced): called after each answered request. */
  changed(): void;
  /** Saves now. */
  flush(): Promise<void>;
  /** Forgets the saved state (for example on `controls.reset()`); nothing is saved until the next change. */
  clear(): void;
}

const version = 1;

/**
 * Saves and restores `app`'s session in `options.storage`.
 *
 * @example
 * const persistence = persistMockState(app, { storage: sessionStorage });
 * await persistence.restored; // the page's state before the reload, if it had one
 */
export function persistMockState(
  app: Pick<MockApp, 'store' | 'baseClock' | 'ready'>,
  options: PersistenceOptions,
): MockPersistence {
  const persistence = new SessionPersistence(app, options);
  // After the startup scenario: the saved state is newer than it.
  const restored = app.ready.then(
    () => persistence.restore(),
    () => undefined,
  );
  return {
    restored,
    changed: () => persistence.schedule(),
    flush: () => persistence.flush(),
    clear: () => persistence.clear(),
  };
}

/**
 * One session's state in Web Storage: where it goes, the save that waits for a quiet moment, and the
 * kinds of failure already warned of. One warning per kind, never a crash: persistence is a
 * convenience, the mock keeps answering.
 */
class SessionPersistence {
  private readonly session: string;
  private readonly key: string;
  private readonly debounceMs: number;
  private readonly maxChars: number;
  /** The debounced save, if one is waiting. */
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly warned = new Set<string>();

  constructor(
    private readonly app: Pick<MockApp, 'store' | 'baseClock'>,
    private readonly options: PersistenceOptions,
  ) {
    this.session = options.session ?? defaultSessionName;
    this.key = options.key ?? `petstore-kit:state:${this.session}`;
    this.debounceMs = options.debounceMs ?? 200;
    this.maxChars = options.maxChars ?? 1_000_000;
  }

  /** A save once the requests stop for `debounceMs`. */
  schedule(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.save(), this.debounceMs);
  }

  async flush(): Promise<void> {
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.save();
  }

  clear(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.options.storage.removeItem(this.key);
  }

  private async save(): Promise<void> {
    this.timer = undefined;
    try {
      const state = await this.app.store.snapshot(this.session, this.app.baseClock.now());
      const text = JSON.stringify({ v: version, state });
      if (text.length > this.maxChars) {
        this.warnOnce(
          'size',
          `the mock's state (${text.length} characters) is larger than persist's bound (${this.maxChars}): not saved`,
        );
        return;
      }
      this.options.storage.setItem(this.key, text);
    } catch (error) {
      // QuotaExceededError, a storage the browser refuses (private mode), a store that failed.
      this.warnOnce('save', `failed to save the mock's state: ${(error as Error).message}`);
    }
  }

  async restore(): Promise<void> {
    let text: string | null;
    try {
      text = this.options.storage.getItem(this.key);
    } catch (error) {
      this.warnOnce('read', `failed to read the mock's saved state: ${(error as Error).message}`);
      return;
    }
    if (text === null) return;
    try {
      const saved = JSON.parse(text) as { v?: unknown; state?: StoreScenario };
      if (saved?.v !== version || typeof saved.state !== 'object' || saved.state === null)
        throw new Error('not a state this version saved');
      const base = this.app.baseClock.now();
      const clock = saved.state.clock;
      // The saved offset, at least: a startup scenario that moved the clock further keeps its clock.
      const atLeast =
        clock?.kind === 'advance'
          ? { clock: { kind: 'atLeast' as const, atMs: base + clock.ms } }
          : { clock: undefined };
      await this.app.store.applyScenario(this.session, { ...saved.state, ...atLeast }, base);
    } catch (error) {
      this.options.storage.removeItem(this.key);
      this.warnOnce('restore', `dropped the mock's saved state: ${(error as Error).message}`);
    }
  }

  private warnOnce(kind: string, message: string): void {
    if (this.warned.has(kind)) return;
    this.warned.add(kind);
    (this.options.warn ?? ((text: string) => console.warn(text)))(`petstore-kit: ${message}`);
  }
}

/** The Web Storage a `persist` option names, or null when the page has none (a worker, a locked-down browser). */
export function storageOf(option: Exclude<PersistOption, false>): Storage | null {
  try {
    return (globalThis as unknown as Record<string, Storage | undefined>)[option] ?? null;
  } catch {
    return null;
  }
}

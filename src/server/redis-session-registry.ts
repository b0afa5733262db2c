import { defaultSessionName } from '../core/state/sessions.js';
import { type SessionInfo, type StateStoreOptions, TooManySessionsError } from '../core/state/state-store.js';
import { sortSessions } from '../core/state/store-checks.js';
import type { RedisScriptCaller } from './redis-script-caller.js';
import { scripts } from './redis-scripts.js';

/** A replica re-registers a session it uses at most this often (base clock); `lastSeenMs` is as precise. */
const registryTouchMs = 1_000;

/**
 * The Redis store's registry of sessions (`prefix` + `sessions`, shared by every replica): which exist,
 * when each was last used, and maxSessions. What this replica wrote there lately is remembered, so a
 * request costs a registration of its own at most once a second per session.
 */
export class RedisSessionRegistry {
  readonly #caller: RedisScriptCaller;
  readonly #options: Readonly<StateStoreOptions>;
  readonly #registryKey: string;
  /** Sessions this replica admitted, with the base time it last wrote them to the registry. Bounded by maxSessions + 1. */
  readonly #admitted = new Map<string, number>();
  readonly #admitting = new Map<string, Promise<void>>();

  constructor(caller: RedisScriptCaller, prefix: string, options: Readonly<StateStoreOptions>) {
    this.#caller = caller;
    this.#options = options;
    this.#registryKey = `${prefix}sessions`;
  }

  /**
   * Registers the session (and enforces maxSessions) at most once a second per replica: a round trip
   * of its own, but not one per request. A reset registers it every time, repairing a registry key of
   * another type.
   */
  async admit(session: string, baseTimeMs: number, repair: boolean): Promise<void> {
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

  /** The sessions not idle past sessionIdleMs, the default one always among them. */
  async list(baseTimeMs: number): Promise<SessionInfo[]> {
    const reply = (await this.#caller.call(
      scripts.listSessions,
      [this.#registryKey],
      [String(baseTimeMs), String(this.#options.sessionIdleMs), defaultSessionName],
      null,
    )) as string[];
    const sessions: SessionInfo[] = [];
    for (let index = 0; index + 1 < reply.length; index += 2)
      sessions.push({ name: reply[index]!, lastSeenMs: Number(reply[index + 1]) });
    if (!sessions.some((session) => session.name === defaultSessionName))
      sessions.push({ name: defaultSessionName, lastSeenMs: null });
    return sortSessions(sessions);
  }

  async #register(session: string, baseTimeMs: number, repair: boolean): Promise<void> {
    const admitted = await this.#caller.call(
      scripts.admit,
      [this.#registryKey],
      [
        session,
        String(baseTimeMs),
        String(this.#options.sessionIdleMs),
        String(this.#options.maxSessions),
        defaultSessionName,
        repair ? '1' : '0',
      ],
      null,
    );
    if (Number(admitted) !== 1) throw new TooManySessionsError(this.#options.maxSessions);
    this.#admitted.delete(session);
    this.#admitted.set(session, baseTimeMs);
    if (this.#admitted.size > this.#options.maxSessions + 1) this.#admitted.delete(this.#admitted.keys().next().value!);
  }
}

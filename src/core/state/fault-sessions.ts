import type { FaultSettings } from '../config/fault-config.js';

/**
 * The fault settings of each session and the sequence its draws come from (decision 042). Kept per
 * app, in this process: a scenario or `POST /__mock/faults` sets a session's settings, a reset gives
 * it back the config's and starts its draws over, so the same requests in the same order meet the
 * same faults. Bounded like the sessions themselves: past `maxSessions` the oldest entry is forgotten.
 */
export class FaultSessions {
  readonly #own = new Map<string, FaultSettings>();
  readonly #draws = new Map<string, number>();
  readonly #seed: number;
  readonly #maxSessions: number;

  constructor(
    readonly configured: FaultSettings | undefined,
    seed: number,
    maxSessions: number,
  ) {
    this.#seed = seed >>> 0;
    this.#maxSessions = maxSessions + 1;
  }

  /** The session's settings: its own when a scenario or the controls set them, else the config's. */
  settingsOf(session: string): FaultSettings | undefined {
    return this.#own.get(session) ?? this.configured;
  }

  /** Whether any session may meet a fault or a latency (the request path skips the stage when none can). */
  get active(): boolean {
    return this.configured !== undefined || this.#own.size > 0;
  }

  /** The session's own settings, its draws started over. */
  set(session: string, settings: FaultSettings): void {
    this.#draws.delete(session);
    this.#own.delete(session);
    this.#own.set(session, settings);
    if (this.#own.size > this.#maxSessions) this.#own.delete(this.#own.keys().next().value!);
  }

  /** Back to the config's settings, and the draws start over. */
  reset(session: string): void {
    this.#own.delete(session);
    this.#draws.delete(session);
  }

  /**
   * The session's next draw, evenly in [0, 1): the n-th draw of a session is a function of the seed,
   * the session's name and n alone (mulberry32 over their mix), so a run is reproduced by its seed.
   */
  draw(session: string): number {
    const index = this.#draws.get(session) ?? 0;
    this.#draws.delete(session);
    this.#draws.set(session, index + 1);
    if (this.#draws.size > this.#maxSessions) this.#draws.delete(this.#draws.keys().next().value!);
    return unitDraw(this.#seed ^ nameHash(session), index);
  }
}

/** FNV-1a of a session name, 32 bits. */
function nameHash(name: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < name.length; index += 1) {
    hash ^= name.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** mulberry32's output for the state `stream + index * golden ratio`: a draw in [0, 1). */
function unitDraw(stream: number, index: number): number {
  let state = (stream + Math.imul(index + 1, 0x9e3779b9)) | 0;
  state = Math.imul(state ^ (state >>> 15), state | 1);
  state ^= state + Math.imul(state ^ (state >>> 7), state | 61);
  return ((state ^ (state >>> 14)) >>> 0) / 4_294_967_296;
}

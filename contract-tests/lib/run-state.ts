import type { Exchange } from './exchange.js';

/**
 * State one run shares between its checks: every exchange (for the "every response" checks at the
 * end), the category ids seen (for uniqueness), exchanges that later checks read (the 429, the pet
 * response). The suite runs in one worker with `isolate: false`, so all check files see the same
 * instance; it is keyed by run id on `globalThis` so two runs in one process never mix.
 *
 * @example runState(target.runId).exchanges.length
 */
export interface RunState {
  exchanges: Exchange[];
  nextSeq: number;
  /** Category id -> where it was seen first ("listed before the run", "created by create.ok"). */
  categoryIds: Map<number, string>;
  /** Exchanges one check leaves for another, by name. */
  shared: Map<string, Exchange>;
  /** Set when the rate-limit key got its 429: the kit never uses it again in this run. */
  rateLimitKeyStopped: boolean;
}

const registryKey = Symbol.for('petstore-contract.run-states');

export function runState(runId: string): RunState {
  const holder = globalThis as typeof globalThis & { [registryKey]?: Map<string, RunState> };
  const registry = (holder[registryKey] ??= new Map());
  let state = registry.get(runId);
  if (!state) {
    state = { exchanges: [], nextSeq: 1, categoryIds: new Map(), shared: new Map(), rateLimitKeyStopped: false };
    registry.set(runId, state);
  }
  return state;
}

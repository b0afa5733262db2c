import type { ExactId } from '../../spec/interface/exact-ids.js';
import type { SpecModel } from '../../spec/interface/spec-model.js';
import type { Exchange, Identity } from './exchange.js';
import { RunJudge } from './run-judge.js';

/**
 * State one run shares between its checks: every exchange (for the "every response" checks at the
 * end), the category ids seen (for uniqueness), exchanges that later checks read (the 429, the pet
 * response). One object per run, created by the runner: two runs in one process never mix.
 *
 * @example const state = createRunState(); state.exchanges.length // 0
 */
export interface RunState {
  exchanges: Exchange[];
  /** The rule catalogue on every exchange as it is answered (suite/99-every-response reports it). */
  judge: RunJudge;
  nextSeq: number;
  /** Category id -> where it was seen first ("listed before the run", "created by create.ok"). */
  categoryIds: Map<ExactId, string>;
  /** Exchanges one check leaves for another, by name. */
  shared: Map<string, Exchange>;
  /** Set when the rate-limit key got its 429: the kit does not use it again unless it first waits out that 429. */
  rateLimitKeyStopped: boolean;
  /** When the last 429 of the rate-limit key said it may retry (kit clock, ms); undefined without a usable Retry-After. */
  rateLimitRetryAtMs: number | undefined;
  /** Requests sent, by the key they drew on. */
  requestsByIdentity: Record<Identity, number>;
  /** Categories this run created (201 answers), for the report. */
  created: number;
  /** Requests the main key had sent when the rate-limit key's budget was first read. */
  mainRequestsAtRateLimitStart: number;
  /** Requests the main key had sent when the 429 check first used the rate-limit key. */
  mainRequestsAtFirstProbe: number;
  /**
   * The longest plain ASCII value the server accepted per string field of NewCategory, and the
   * shortest it refused with 400 (generate/length-probe.ts): a valid value longer than the
   * accepted one, refused, is the server's open length limit, not a failure.
   */
  lengthLimits: Map<string, { acceptedBytes: number; refusedBytes: number | undefined }>;
  /** Why checks could not run (rate limits, deadline, server gone): the run's INCONCLUSIVE reasons. */
  stoppers: Set<string>;
}

/**
 * `spec`: the document whose rules judge every exchange, when it is the Petstore interface; without
 * it the catalogue judges nothing (a generic run, a unit test). `keys`: the run's keys.
 */
export function createRunState(spec?: SpecModel, keys: readonly string[] = []): RunState {
  return {
    exchanges: [],
    judge: new RunJudge(spec, keys),
    nextSeq: 1,
    categoryIds: new Map(),
    shared: new Map(),
    rateLimitKeyStopped: false,
    rateLimitRetryAtMs: undefined,
    requestsByIdentity: { main: 0, anonymous: 0, 'rate-limit': 0 },
    created: 0,
    mainRequestsAtRateLimitStart: 0,
    mainRequestsAtFirstProbe: 0,
    stoppers: new Set(),
    lengthLimits: new Map(),
  };
}

import type { LabLimits, LabObservation } from './lab-types.js';
import { createResilienceState, type ResilienceState } from './resilience-judge.js';

/**
 * An incremental judge of one client's behaviour after 429s (issue 12 section 1). The state is a
 * plain, JSON-serialisable object of a fixed number of fields plus evidence samples of at most
 * `maxSamples` entries per rule: memory never grows with the client's history, so a store (memory
 * or Redis) can keep one per client and the verdicts can be asked for at any time.
 *
 * The rules and their tolerances: docs/decisions/012-rate-limit-lab.md.
 *
 * @example
 * let state = createClientJudgeState(firstObservation);
 * for (const observation of observations) state = observeClient(state, observation);
 * clientVerdicts(state, { enabled: true, threshold: 10, durationMs: 900_000 });
 */
export interface ClientJudgeState {
  client: string;
  clientId: string;
  kind: 'key' | 'anonymous';
  plan: string;
  limits: LabLimits;
  firstAtMs: number;
  lastAtMs: number;
  total: number;
  byStatus: Record<string, number>;
  refused429: number;
  /** 429s forced with Prefer: counted, never judged. */
  forced429: number;

  // retry-after-honoured
  /** When the last organic 429 said the client may come back, or null once a request has been judged against it. */
  deadlineMs: number | null;
  deadlineSetAtMs: number;
  deadlineRetryAfterSeconds: number;
  retryChecks: number;
  retryViolations: number;
  retrySamples: RetrySample[];
  lastHonoured: RetrySample | null;

  // backoff-growing
  /** Time of the latest organic 429 of the current run of 429s, or null when the last request was served. */
  streakRefusalAtMs: number | null;
  streakRetryAfterSeconds: number;
  streakPreviousWaitMs: number | null;
  streakWaitsSeconds: number[];
  longestStreakWaitsSeconds: number[];
  backoffPairs: number;
  backoffViolations: number;
  backoffSamples: BackoffSample[];

  // no-hammering
  organicRefusals: number;
  consecutiveRefusals: number;
  maxConsecutiveRefusals: number;
  maxConsecutiveAtMs: number;
  bans: number;
  firstBanAtMs: number | null;
  banUntilMs: number;

  // deprecated-operation
  deprecatedCalls: number;
  deprecatedSunset: string | null;
  deprecatedFirstAtMs: number | null;
  deprecatedLastAtMs: number | null;
  deprecatedOperations: string[];

  // retries-idempotent, no-blind-resend, bounded-attempts
  resilience: ResilienceState;
}

export interface RetrySample {
  refusedAt: string;
  retryAfterSeconds: number;
  retriedAt: string;
  waitSeconds: number;
  /** How long before the moment the 429 named the request came (0 when on time). */
  earlyBySeconds: number;
}

export interface BackoffSample {
  refusedAt: string;
  retryAfterSeconds: number;
  previousWaitSeconds: number;
  waitSeconds: number;
}

/**
 * How early a request may arrive before the moment a 429's Retry-After named and still count as
 * honouring it: Retry-After is whole seconds, so a client that rounds it (or reads X-RateLimit-Reset,
 * also whole seconds) may be up to a second off. A request 1 s early or more is early.
 */
export const retryAfterToleranceMs = 1_000;

export function createClientJudgeState(
  first: Pick<LabObservation, 'client' | 'clientId' | 'kind' | 'plan' | 'limits' | 'atMs'>,
): ClientJudgeState {
  return {
    client: first.client,
    clientId: first.clientId ?? first.client,
    kind: first.kind,
    plan: first.plan,
    limits: { perMinute: first.limits.perMinute, perDay: first.limits.perDay },
    firstAtMs: first.atMs,
    lastAtMs: first.atMs,
    total: 0,
    byStatus: {},
    refused429: 0,
    forced429: 0,
    deadlineMs: null,
    deadlineSetAtMs: 0,
    deadlineRetryAfterSeconds: 0,
    retryChecks: 0,
    retryViolations: 0,
    retrySamples: [],
    lastHonoured: null,
    streakRefusalAtMs: null,
    streakRetryAfterSeconds: 0,
    streakPreviousWaitMs: null,
    streakWaitsSeconds: [],
    longestStreakWaitsSeconds: [],
    backoffPairs: 0,
    backoffViolations: 0,
    backoffSamples: [],
    organicRefusals: 0,
    consecutiveRefusals: 0,
    maxConsecutiveRefusals: 0,
    maxConsecutiveAtMs: 0,
    bans: 0,
    firstBanAtMs: null,
    banUntilMs: 0,
    deprecatedCalls: 0,
    deprecatedSunset: null,
    deprecatedFirstAtMs: null,
    deprecatedLastAtMs: null,
    deprecatedOperations: [],
    resilience: createResilienceState(),
  };
}

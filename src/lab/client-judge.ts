import { isoOf, type LabBanPolicy, type LabLimits, type LabObservation, type Verdict } from './lab-types.js';
import {
  createResilienceState,
  observeResilience,
  type ResilienceState,
  resilienceVerdicts,
} from './resilience-judge.js';

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

/** Evidence samples kept per rule (the first ones: they show where the behaviour began). */
export const maxSamples = 5;
/** Waits shown for the longest run of 429s. */
const maxStreakWaits = 8;
const maxDeprecatedOperations = 10;

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

/**
 * Folds one request into the client's state, in place, and returns it. Requests the rate limiter did
 * not count (`outcome: 'other'`) are ignored. Observations must come in time order.
 */
export function observeClient(state: ClientJudgeState, observation: LabObservation): ClientJudgeState {
  if (observation.outcome === 'other') return state;
  const now = observation.atMs;
  state.lastAtMs = Math.max(state.lastAtMs, now);
  state.plan = observation.plan;
  if (state.limits.perMinute !== observation.limits.perMinute || state.limits.perDay !== observation.limits.perDay)
    state.limits = { perMinute: observation.limits.perMinute, perDay: observation.limits.perDay };
  state.total += 1;
  // The status as a number key: an element access, no number-to-string conversion (the same "429" key).
  const status = observation.status;
  state.byStatus[status] = (state.byStatus[status] ?? 0) + 1;
  // An organic refusal is a 429 the rate limiter gave; a 429 forced with Prefer is the test's choice,
  // not the client's doing, so it is counted and never starts a wait, a run of 429s or a strike.
  const refused = observation.outcome === 'limited' || observation.outcome === 'banned';
  if (observation.status === 429) {
    state.refused429 += 1;
    if (!refused) state.forced429 += 1;
  }
  const retryAfterSeconds = Math.max(0, observation.retryAfterSeconds ?? 0);

  // retry-after-honoured: every request is judged against the moment the last organic 429 named.
  if (state.deadlineMs !== null) {
    const earlyByMs = Math.max(0, state.deadlineMs - now);
    // Built only when kept: a hammering client meets this on every request.
    const sample = (): RetrySample => ({
      refusedAt: isoOf(state.deadlineSetAtMs),
      retryAfterSeconds: state.deadlineRetryAfterSeconds,
      retriedAt: isoOf(now),
      waitSeconds: seconds(now - state.deadlineSetAtMs),
      earlyBySeconds: seconds(earlyByMs),
    });
    state.retryChecks += 1;
    if (earlyByMs >= retryAfterToleranceMs) {
      state.retryViolations += 1;
      if (state.retrySamples.length < maxSamples) state.retrySamples.push(sample());
    } else {
      state.lastHonoured = sample();
    }
    state.deadlineMs = null;
  }
  if (refused) {
    state.deadlineMs = now + retryAfterSeconds * 1000;
    state.deadlineSetAtMs = now;
    state.deadlineRetryAfterSeconds = retryAfterSeconds;
  }

  // backoff-growing: the wait after each 429 of a run must be longer than the wait after the one before.
  if (state.streakRefusalAtMs !== null) {
    const waitMs = now - state.streakRefusalAtMs;
    if (state.streakPreviousWaitMs !== null) {
      state.backoffPairs += 1;
      if (waitMs <= state.streakPreviousWaitMs) {
        state.backoffViolations += 1;
        if (state.backoffSamples.length < maxSamples) {
          state.backoffSamples.push({
            refusedAt: isoOf(state.streakRefusalAtMs),
            retryAfterSeconds: state.streakRetryAfterSeconds,
            previousWaitSeconds: seconds(state.streakPreviousWaitMs),
            waitSeconds: seconds(waitMs),
          });
        }
      }
    }
    state.streakPreviousWaitMs = waitMs;
    if (state.streakWaitsSeconds.length < maxStreakWaits) state.streakWaitsSeconds.push(seconds(waitMs));
    if (state.streakWaitsSeconds.length > state.longestStreakWaitsSeconds.length)
      state.longestStreakWaitsSeconds = [...state.streakWaitsSeconds];
  }
  if (refused) {
    state.streakRefusalAtMs = now;
    state.streakRetryAfterSeconds = retryAfterSeconds;
  } else {
    state.streakRefusalAtMs = null;
    state.streakPreviousWaitMs = null;
    if (state.streakWaitsSeconds.length > 0) state.streakWaitsSeconds = [];
  }

  // no-hammering: requests in a row answered 429 by the limiter (a ban included), and bans.
  if (refused) {
    state.organicRefusals += 1;
    state.consecutiveRefusals += 1;
    if (state.consecutiveRefusals > state.maxConsecutiveRefusals) {
      state.maxConsecutiveRefusals = state.consecutiveRefusals;
      state.maxConsecutiveAtMs = now;
    }
    if (observation.outcome === 'banned' && now >= state.banUntilMs) {
      // A ban met on the first refusal of a run was not earned by the traffic the lab saw (a scenario's
      // ban, or one from before a reset): a wait to honour, not a ban of this client's making.
      if (state.consecutiveRefusals > 1) {
        state.bans += 1;
        state.firstBanAtMs ??= now;
      }
      state.banUntilMs = now + retryAfterSeconds * 1000;
    }
  } else {
    state.consecutiveRefusals = 0;
  }

  if (observation.deprecated) {
    state.deprecatedCalls += 1;
    state.deprecatedSunset = observation.deprecated.sunset ?? state.deprecatedSunset;
    state.deprecatedFirstAtMs ??= now;
    state.deprecatedLastAtMs = now;
    const name = observation.operationId ?? `${observation.method} ${observation.path}`;
    if (!state.deprecatedOperations.includes(name) && state.deprecatedOperations.length < maxDeprecatedOperations)
      state.deprecatedOperations.push(name);
  }
  observeResilience(state.resilience, observation);
  return state;
}

/** The seven verdicts of a client, in a fixed order: after 429s, the deprecated operation, then its resilience. */
export function clientVerdicts(state: ClientJudgeState, banPolicy: LabBanPolicy): Verdict[] {
  return [
    retryAfterVerdict(state),
    backoffVerdict(state),
    hammeringVerdict(state, banPolicy),
    deprecatedVerdict(state),
    ...resilienceVerdicts(state.resilience),
  ];
}

function retryAfterVerdict(state: ClientJudgeState): Verdict {
  const common = {
    toleranceSeconds: retryAfterToleranceMs / 1000,
    judged: state.retryChecks,
    early: state.retryViolations,
    forced429Ignored: state.forced429,
  };
  if (state.retryViolations > 0) {
    const first = state.retrySamples[0]!;
    return {
      rule: 'retry-after-honoured',
      outcome: 'fail',
      evidence: {
        summary: `${state.retryViolations} of ${state.retryChecks} requests after a 429 came early; first: ${first.waitSeconds} s after a 429 at ${first.refusedAt} that said Retry-After: ${first.retryAfterSeconds}`,
        ...common,
        samples: state.retrySamples,
      },
    };
  }
  if (state.retryChecks > 0) {
    const last = state.lastHonoured;
    return {
      rule: 'retry-after-honoured',
      outcome: 'pass',
      evidence: {
        summary: `waited as told after all ${state.retryChecks} 429s${last ? `; last: ${last.waitSeconds} s after Retry-After: ${last.retryAfterSeconds}` : ''}`,
        ...common,
        samples: last ? [last] : [],
      },
    };
  }
  return {
    rule: 'retry-after-honoured',
    outcome: 'not-exercised',
    evidence: {
      summary:
        state.organicRefusals > 0
          ? 'got a 429 but sent nothing after it'
          : `never refused by the rate limiter${state.forced429 > 0 ? ` (${state.forced429} 429s forced with Prefer are not judged)` : ''}`,
      ...common,
      samples: [],
    },
  };
}

function backoffVerdict(state: ClientJudgeState): Verdict {
  const common = {
    comparedWaits: state.backoffPairs,
    shrinkingOrEqual: state.backoffViolations,
    longestRunWaitsSeconds: state.longestStreakWaitsSeconds,
  };
  if (state.backoffViolations > 0) {
    const first = state.backoffSamples[0]!;
    return {
      rule: 'backoff-growing',
      outcome: 'fail',
      evidence: {
        summary: `${state.backoffViolations} of ${state.backoffPairs} waits after consecutive 429s did not grow; first: ${first.previousWaitSeconds} s then ${first.waitSeconds} s (429 at ${first.refusedAt})`,
        ...common,
        samples: state.backoffSamples,
      },
    };
  }
  if (state.backoffPairs > 0) {
    return {
      rule: 'backoff-growing',
      outcome: 'pass',
      evidence: {
        summary: `every wait grew across consecutive 429s (${state.backoffPairs} compared; longest run: ${state.longestStreakWaitsSeconds.join(' s, ')} s)`,
        ...common,
        samples: [],
      },
    };
  }
  return {
    rule: 'backoff-growing',
    outcome: 'not-exercised',
    evidence: {
      summary: 'never waited twice across consecutive 429s (needs a second 429 in a row and a request after it)',
      ...common,
      samples: [],
    },
  };
}

function hammeringVerdict(state: ClientJudgeState, ban: LabBanPolicy): Verdict {
  const common = {
    tolerated: ban.threshold,
    banEnabled: ban.enabled,
    maxRequestsInARowWhileLimited: state.maxConsecutiveRefusals,
    refusedByLimiter: state.organicRefusals,
    bans: state.bans,
    firstBanAt: state.firstBanAtMs === null ? null : isoOf(state.firstBanAtMs),
  };
  if (state.bans > 0) {
    return {
      rule: 'no-hammering',
      outcome: 'fail',
      evidence: {
        summary: `banned ${state.bans} time${state.bans === 1 ? '' : 's'}, first at ${isoOf(state.firstBanAtMs!)}; up to ${state.maxConsecutiveRefusals} requests in a row while limited (the ban policy tolerates ${ban.threshold})`,
        ...common,
      },
    };
  }
  if (state.maxConsecutiveRefusals > ban.threshold) {
    return {
      rule: 'no-hammering',
      outcome: 'fail',
      evidence: {
        summary: `${state.maxConsecutiveRefusals} requests in a row while limited, up to ${isoOf(state.maxConsecutiveAtMs)} (the ban policy tolerates ${ban.threshold}${ban.enabled ? '' : '; bans are off, so it was not banned'})`,
        ...common,
      },
    };
  }
  if (state.organicRefusals > 0) {
    return {
      rule: 'no-hammering',
      outcome: 'pass',
      evidence: {
        summary: `never banned; at most ${state.maxConsecutiveRefusals} requests in a row while limited (tolerated: ${ban.threshold})`,
        ...common,
      },
    };
  }
  return {
    rule: 'no-hammering',
    outcome: 'not-exercised',
    evidence: { summary: 'never refused by the rate limiter', ...common },
  };
}

function deprecatedVerdict(state: ClientJudgeState): Verdict {
  if (state.deprecatedCalls === 0) {
    return {
      rule: 'deprecated-operation',
      outcome: 'not-exercised',
      evidence: { summary: 'never called a deprecated operation', calls: 0, sunset: null, operations: [] },
    };
  }
  return {
    rule: 'deprecated-operation',
    outcome: 'info',
    evidence: {
      summary: `called ${state.deprecatedOperations.join(', ')} ${state.deprecatedCalls} time${state.deprecatedCalls === 1 ? '' : 's'}${state.deprecatedSunset ? `; sunset ${state.deprecatedSunset}` : ''}`,
      calls: state.deprecatedCalls,
      sunset: state.deprecatedSunset,
      operations: state.deprecatedOperations,
      firstAt: isoOf(state.deprecatedFirstAtMs!),
      lastAt: isoOf(state.deprecatedLastAtMs!),
    },
  };
}

/** Milliseconds as seconds with at most 3 decimals (exact for the virtual clock's whole ms). */
function seconds(ms: number): number {
  return Math.round(ms) / 1000;
}

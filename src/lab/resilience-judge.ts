import { compareWait, keepSample, verdict, waitPair } from './judge-evidence.js';
import { isoOf, type LabObservation, type Verdict } from './lab-types.js';

/**
 * The client's resilience, judged beside its behaviour after 429s: what it does when an answer fails
 * (a 5xx, or a fault of the request log: the connection reset or closed without an answer, no answer
 * until it gave up). Three rules, docs/decisions/043-prism-habits-incident-picture-resilience.md:
 *
 * - `retries-idempotent`: a failed idempotent request (GET, HEAD, PUT, DELETE, OPTIONS) sent again
 *   waits longer before each new attempt (growing waits);
 * - `no-blind-resend`: a non-idempotent request (POST, PATCH) whose outcome the client cannot know (a
 *   reset, a close, a timeout: the server may have acted) is sent again only with the Idempotency-Key
 *   it first carried (IETF draft-ietf-httpapi-idempotency-key-header), never blindly;
 * - `bounded-attempts`: no request is attempted more than `maxAttempts` times in a row while it fails.
 *
 * "The same request" is the same method and path (without the query), sent by the same client while
 * its previous attempt had failed, within `sameRequestWindowMs`. A rule with no failure to judge is
 * `not-exercised`, never `pass`. The state is plain data of a bounded size (at most `maxPending`
 * requests followed at once, `maxSamples` evidence samples a rule).
 *
 * @example
 * const state = createResilienceState();
 * for (const observation of observations) observeResilience(state, observation);
 * resilienceVerdicts(state); // three verdicts
 */
export interface ResilienceState {
  /** Failed requests the client may send again, oldest first. */
  pending: PendingRequest[];
  /** Failures seen (5xx, reset, close, timeout), of any request. */
  failures: number;
  idempotentFailures: number;
  /** Attempts of a failed idempotent request sent again. */
  retries: number;
  /** Waits compared (a retry after a retry) and those that did not grow. */
  comparedWaits: number;
  shrinkingWaits: number;
  waitSamples: WaitSample[];
  /** Non-idempotent requests whose outcome the client could not know. */
  unknownOutcomes: number;
  keyedResends: number;
  blindResends: number;
  resendSamples: ResendSample[];
  /** The longest run of attempts of one request while it failed, and when and what it was. */
  longestRun: number;
  longestRunRequest: string | null;
  longestRunAtMs: number;
}

interface PendingRequest {
  request: string;
  idempotent: boolean;
  /** The last attempt's time and what went wrong with it. */
  atMs: number;
  failure: string;
  /** The outcome is unknown to the client (no answer came). */
  unknownOutcome: boolean;
  attempts: number;
  previousWaitMs: number | null;
  /** The Idempotency-Key of the first attempt (null without one). */
  idempotencyKey: string | null;
}

interface WaitSample {
  request: string;
  failedAt: string;
  failure: string;
  previousWaitSeconds: number;
  waitSeconds: number;
}

interface ResendSample {
  request: string;
  failedAt: string;
  failure: string;
  resentAt: string;
  /** Why it is blind: `no Idempotency-Key`, or `another Idempotency-Key than the first attempt's`. */
  problem: string;
}

/** RFC 9110 section 9.2.2: the methods whose repetition has the effect of one request. */
const idempotentMethods = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'TRACE']);
/** Faults after which the client cannot know what the server did: no answer reached it. */
const unknownOutcomeFaults = new Set(['reset', 'close', 'timeout']);
/** More attempts than this of one request, in a row while it fails, is a client that does not give up. */
const maxAttempts = 10;
/** A request sent again later than this after its failure is a new one (the client had given up). */
const sameRequestWindowMs = 10 * 60_000;
const maxPending = 20;

export function createResilienceState(): ResilienceState {
  return {
    pending: [],
    failures: 0,
    idempotentFailures: 0,
    retries: 0,
    comparedWaits: 0,
    shrinkingWaits: 0,
    waitSamples: [],
    unknownOutcomes: 0,
    keyedResends: 0,
    blindResends: 0,
    resendSamples: [],
    longestRun: 0,
    longestRunRequest: null,
    longestRunAtMs: 0,
  };
}

/** What failed about an answer (`500`, `reset`, `timeout`), or null when it did not fail. */
function failureOf(observation: Pick<LabObservation, 'status' | 'fault'>): string | null {
  if (observation.fault !== undefined && unknownOutcomeFaults.has(observation.fault)) return observation.fault;
  return observation.status >= 500 ? String(observation.status) : null;
}

/** Folds one request into the state, in place. Observations come in time order; `other` ones are ignored. */
export function observeResilience(state: ResilienceState, observation: LabObservation): ResilienceState {
  if (observation.outcome === 'other') return state;
  const failure = failureOf(observation);
  // The common case, on every request of the mock: nothing failed and nothing is being retried.
  if (failure === null && state.pending.length === 0) return state;
  const now = observation.atMs;
  const request = `${observation.method} ${observation.path}`;
  const index = state.pending.findIndex((entry) => entry.request === request);
  let pending = index === -1 ? undefined : state.pending[index];
  if (pending !== undefined && now - pending.atMs > sameRequestWindowMs) {
    state.pending.splice(index, 1);
    pending = undefined;
  }
  if (pending !== undefined) {
    const waitMs = now - pending.atMs;
    judgeAttempt(state, pending, observation, waitMs);
    pending.attempts += 1;
    if (pending.attempts > state.longestRun) {
      state.longestRun = pending.attempts;
      state.longestRunRequest = request;
      state.longestRunAtMs = now;
    }
    if (failure === null) state.pending.splice(state.pending.indexOf(pending), 1);
    else {
      pending.atMs = now;
      pending.failure = failure;
      pending.unknownOutcome = unknownOutcomeFaults.has(failure);
      pending.previousWaitMs = waitMs;
    }
  } else if (failure !== null) {
    const idempotent = idempotentMethods.has(observation.method.toUpperCase());
    const unknownOutcome = unknownOutcomeFaults.has(failure);
    if (idempotent) state.idempotentFailures += 1;
    else if (unknownOutcome) state.unknownOutcomes += 1;
    if (state.pending.length >= maxPending) state.pending.shift();
    state.pending.push({
      request,
      idempotent,
      atMs: now,
      failure,
      unknownOutcome,
      attempts: 1,
      previousWaitMs: null,
      idempotencyKey: observation.idempotencyKey ?? null,
    });
    if (state.longestRun === 0) {
      state.longestRun = 1;
      state.longestRunRequest = request;
      state.longestRunAtMs = now;
    }
  }
  if (failure !== null) state.failures += 1;
  return state;
}

/** A failed request sent again: its wait against the previous one (idempotent), or its key (the others). */
function judgeAttempt(state: ResilienceState, pending: PendingRequest, observation: LabObservation, waitMs: number) {
  const failedAt = isoOf(pending.atMs);
  if (pending.idempotent) {
    state.retries += 1;
    const comparison = compareWait(pending.previousWaitMs, waitMs);
    if (comparison === 'first') return;
    state.comparedWaits += 1;
    if (comparison === 'grew') return;
    state.shrinkingWaits += 1;
    keepSample(state.waitSamples, () => ({
      request: pending.request,
      failedAt,
      failure: pending.failure,
      ...waitPair(pending.previousWaitMs!, waitMs),
    }));
    return;
  }
  // A resend after an answered 5xx: the server said what happened; only an unknown outcome is judged.
  if (!pending.unknownOutcome) return;
  const key = observation.idempotencyKey ?? null;
  if (key !== null && key === pending.idempotencyKey) {
    state.keyedResends += 1;
    return;
  }
  state.blindResends += 1;
  keepSample(state.resendSamples, () => ({
    request: pending.request,
    failedAt,
    failure: pending.failure,
    resentAt: isoOf(observation.atMs),
    problem: key === null ? 'no Idempotency-Key' : 'another Idempotency-Key than the first attempt’s',
  }));
}

/** The three verdicts, in a fixed order. */
export function resilienceVerdicts(state: ResilienceState): Verdict[] {
  return [retriesVerdict(state), resendVerdict(state), attemptsVerdict(state)];
}

function retriesVerdict(state: ResilienceState): Verdict {
  const rule = 'retries-idempotent';
  const common = {
    failures: state.idempotentFailures,
    retries: state.retries,
    comparedWaits: state.comparedWaits,
    shrinkingOrEqual: state.shrinkingWaits,
  };
  if (state.idempotentFailures === 0)
    return verdict(rule, 'not-exercised', 'no idempotent request met a 5xx, a reset or a timeout', {
      ...common,
      samples: [],
    });
  if (state.shrinkingWaits > 0) {
    const first = state.waitSamples[0]!;
    return verdict(
      rule,
      'fail',
      `${state.shrinkingWaits} of ${state.comparedWaits} waits between attempts of a failing request did not grow; first: ${first.request} waited ${first.previousWaitSeconds} s then ${first.waitSeconds} s (${first.failure} at ${first.failedAt})`,
      { ...common, samples: state.waitSamples },
    );
  }
  if (state.retries > 0)
    return verdict(
      rule,
      'pass',
      `sent ${state.retries} attempt${state.retries === 1 ? '' : 's'} again after ${state.idempotentFailures} failure${state.idempotentFailures === 1 ? '' : 's'} of idempotent requests${state.comparedWaits > 0 ? `, every wait longer than the one before (${state.comparedWaits} compared)` : ''}`,
      { ...common, samples: [] },
    );
  return verdict(
    rule,
    'info',
    `${state.idempotentFailures} idempotent request${state.idempotentFailures === 1 ? '' : 's'} failed and none was sent again: the client shows the failure rather than retrying`,
    { ...common, samples: [] },
  );
}

function resendVerdict(state: ResilienceState): Verdict {
  const rule = 'no-blind-resend';
  const common = {
    unknownOutcomes: state.unknownOutcomes,
    resentWithKey: state.keyedResends,
    resentBlindly: state.blindResends,
  };
  if (state.unknownOutcomes === 0)
    return verdict(
      rule,
      'not-exercised',
      'no non-idempotent request (POST, PATCH) met a reset, a closed connection or a timeout',
      { ...common, samples: [] },
    );
  if (state.blindResends > 0) {
    const first = state.resendSamples[0]!;
    return verdict(
      rule,
      'fail',
      `${state.blindResends} resend${state.blindResends === 1 ? '' : 's'} of a request whose outcome was unknown, without the Idempotency-Key of its first attempt (the server may act twice); first: ${first.request} after a ${first.failure} at ${first.failedAt}, resent at ${first.resentAt} with ${first.problem}`,
      { ...common, samples: state.resendSamples },
    );
  }
  const summary =
    state.keyedResends > 0
      ? `resent ${state.keyedResends} time${state.keyedResends === 1 ? '' : 's'} after an unknown outcome, each with the Idempotency-Key of the first attempt`
      : `never resent the ${state.unknownOutcomes} non-idempotent request${state.unknownOutcomes === 1 ? '' : 's'} whose outcome was unknown`;
  return verdict(rule, 'pass', summary, { ...common, samples: [] });
}

function attemptsVerdict(state: ResilienceState): Verdict {
  const rule = 'bounded-attempts';
  const common = {
    tolerated: maxAttempts,
    longestRun: state.longestRun,
    request: state.longestRunRequest,
    at: state.longestRun > 0 ? isoOf(state.longestRunAtMs) : null,
  };
  if (state.failures === 0) return verdict(rule, 'not-exercised', 'no request met a 5xx, a reset or a timeout', common);
  if (state.longestRun > maxAttempts)
    return verdict(
      rule,
      'fail',
      `sent ${state.longestRunRequest} ${state.longestRun} times in a row while it failed, up to ${isoOf(state.longestRunAtMs)} (tolerated: ${maxAttempts} attempts)`,
      common,
    );
  return verdict(
    rule,
    'pass',
    `at most ${state.longestRun} attempt${state.longestRun === 1 ? '' : 's'} of one failing request (tolerated: ${maxAttempts})`,
    common,
  );
}

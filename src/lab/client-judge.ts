import { type ClientJudgeState, retryAfterToleranceMs } from './client-judge-state.js';
import { compareWait, keepSample, seconds, waitPair } from './judge-evidence.js';
import { isoOf, type LabObservation } from './lab-types.js';
import { observeResilience } from './resilience-judge.js';

// The judge of one client is three files: its state (client-judge-state.ts), how a request changes
// it (here, one stage a rule) and the verdicts read from it (client-verdicts.ts).
export {
  type BackoffSample,
  type ClientJudgeState,
  createClientJudgeState,
  type RetrySample,
  retryAfterToleranceMs,
} from './client-judge-state.js';
export { clientVerdicts } from './client-verdicts.js';
export { maxSamples } from './judge-evidence.js';

/** Waits shown for the longest run of 429s. */
const maxStreakWaits = 8;
const maxDeprecatedOperations = 10;

/**
 * Folds one request into the client's state, in place, and returns it. Requests the rate limiter did
 * not count (`outcome: 'other'`) are ignored. Observations must come in time order.
 */
export function observeClient(state: ClientJudgeState, observation: LabObservation): ClientJudgeState {
  if (observation.outcome === 'other') return state;
  const now = observation.atMs;
  // An organic refusal is a 429 the rate limiter gave; a 429 forced with Prefer is the test's choice,
  // not the client's doing, so it is counted and never starts a wait, a run of 429s or a strike.
  const refused = observation.outcome === 'limited' || observation.outcome === 'banned';
  countRequest(state, observation, refused);
  const retryAfterSeconds = Math.max(0, observation.retryAfterSeconds ?? 0);
  observeRetryAfter(state, now, refused, retryAfterSeconds);
  observeBackoff(state, now, refused, retryAfterSeconds);
  observeHammering(state, observation, refused, retryAfterSeconds);
  if (observation.deprecated) observeDeprecated(state, observation);
  observeResilience(state.resilience, observation);
  return state;
}

/** The client's totals: its plan and limits as last seen, requests by status, 429s organic or forced. */
function countRequest(state: ClientJudgeState, observation: LabObservation, refused: boolean): void {
  state.lastAtMs = Math.max(state.lastAtMs, observation.atMs);
  state.plan = observation.plan;
  if (state.limits.perMinute !== observation.limits.perMinute || state.limits.perDay !== observation.limits.perDay)
    state.limits = { perMinute: observation.limits.perMinute, perDay: observation.limits.perDay };
  state.total += 1;
  // The status as a number key: an element access, no number-to-string conversion (the same "429" key).
  const status = observation.status;
  state.byStatus[status] = (state.byStatus[status] ?? 0) + 1;
  if (observation.status === 429) {
    state.refused429 += 1;
    if (!refused) state.forced429 += 1;
  }
}

/** retry-after-honoured: every request is judged against the moment the last organic 429 named. */
function observeRetryAfter(state: ClientJudgeState, now: number, refused: boolean, retryAfterSeconds: number): void {
  if (state.deadlineMs !== null) {
    const earlyByMs = Math.max(0, state.deadlineMs - now);
    // Built only when kept: a hammering client meets this on every request.
    const sample = () => ({
      refusedAt: isoOf(state.deadlineSetAtMs),
      retryAfterSeconds: state.deadlineRetryAfterSeconds,
      retriedAt: isoOf(now),
      waitSeconds: seconds(now - state.deadlineSetAtMs),
      earlyBySeconds: seconds(earlyByMs),
    });
    state.retryChecks += 1;
    if (earlyByMs >= retryAfterToleranceMs) {
      state.retryViolations += 1;
      keepSample(state.retrySamples, sample);
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
}

/** backoff-growing: the wait after each 429 of a run must be longer than the wait after the one before. */
function observeBackoff(state: ClientJudgeState, now: number, refused: boolean, retryAfterSeconds: number): void {
  if (state.streakRefusalAtMs !== null) {
    const refusedAtMs = state.streakRefusalAtMs;
    const previousWaitMs = state.streakPreviousWaitMs;
    const waitMs = now - refusedAtMs;
    const comparison = compareWait(previousWaitMs, waitMs);
    if (comparison !== 'first') state.backoffPairs += 1;
    if (comparison === 'not-grown') {
      state.backoffViolations += 1;
      keepSample(state.backoffSamples, () => ({
        refusedAt: isoOf(refusedAtMs),
        retryAfterSeconds: state.streakRetryAfterSeconds,
        ...waitPair(previousWaitMs!, waitMs),
      }));
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
}

/** no-hammering: requests in a row answered 429 by the limiter (a ban included), and bans. */
function observeHammering(
  state: ClientJudgeState,
  observation: LabObservation,
  refused: boolean,
  retryAfterSeconds: number,
): void {
  if (!refused) {
    state.consecutiveRefusals = 0;
    return;
  }
  const now = observation.atMs;
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
}

/** deprecated-operation: which deprecated operations the client called, how often, and their sunset. */
function observeDeprecated(state: ClientJudgeState, observation: LabObservation): void {
  const now = observation.atMs;
  state.deprecatedCalls += 1;
  state.deprecatedSunset = observation.deprecated?.sunset ?? state.deprecatedSunset;
  state.deprecatedFirstAtMs ??= now;
  state.deprecatedLastAtMs = now;
  const name = observation.operationId ?? `${observation.method} ${observation.path}`;
  if (!state.deprecatedOperations.includes(name) && state.deprecatedOperations.length < maxDeprecatedOperations)
    state.deprecatedOperations.push(name);
}

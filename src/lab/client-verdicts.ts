import { type ClientJudgeState, retryAfterToleranceMs } from './client-judge-state.js';
import { verdict } from './judge-evidence.js';
import { isoOf, type LabBanPolicy, type Verdict } from './lab-types.js';
import { resilienceVerdicts } from './resilience-judge.js';

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
  const figures = {
    toleranceSeconds: retryAfterToleranceMs / 1000,
    judged: state.retryChecks,
    early: state.retryViolations,
    forced429Ignored: state.forced429,
  };
  if (state.retryViolations > 0) {
    const first = state.retrySamples[0]!;
    return verdict(
      'retry-after-honoured',
      'fail',
      `${state.retryViolations} of ${state.retryChecks} requests after a 429 came early; first: ${first.waitSeconds} s after a 429 at ${first.refusedAt} that said Retry-After: ${first.retryAfterSeconds}`,
      { ...figures, samples: state.retrySamples },
    );
  }
  if (state.retryChecks > 0) {
    const last = state.lastHonoured;
    return verdict(
      'retry-after-honoured',
      'pass',
      `waited as told after all ${state.retryChecks} 429s${last ? `; last: ${last.waitSeconds} s after Retry-After: ${last.retryAfterSeconds}` : ''}`,
      { ...figures, samples: last ? [last] : [] },
    );
  }
  const summary =
    state.organicRefusals > 0
      ? 'got a 429 but sent nothing after it'
      : `never refused by the rate limiter${state.forced429 > 0 ? ` (${state.forced429} 429s forced with Prefer are not judged)` : ''}`;
  return verdict('retry-after-honoured', 'not-exercised', summary, { ...figures, samples: [] });
}

function backoffVerdict(state: ClientJudgeState): Verdict {
  const figures = {
    comparedWaits: state.backoffPairs,
    shrinkingOrEqual: state.backoffViolations,
    longestRunWaitsSeconds: state.longestStreakWaitsSeconds,
  };
  if (state.backoffViolations > 0) {
    const first = state.backoffSamples[0]!;
    return verdict(
      'backoff-growing',
      'fail',
      `${state.backoffViolations} of ${state.backoffPairs} waits after consecutive 429s did not grow; first: ${first.previousWaitSeconds} s then ${first.waitSeconds} s (429 at ${first.refusedAt})`,
      { ...figures, samples: state.backoffSamples },
    );
  }
  if (state.backoffPairs > 0)
    return verdict(
      'backoff-growing',
      'pass',
      `every wait grew across consecutive 429s (${state.backoffPairs} compared; longest run: ${state.longestStreakWaitsSeconds.join(' s, ')} s)`,
      { ...figures, samples: [] },
    );
  return verdict(
    'backoff-growing',
    'not-exercised',
    'never waited twice across consecutive 429s (needs a second 429 in a row and a request after it)',
    { ...figures, samples: [] },
  );
}

function hammeringVerdict(state: ClientJudgeState, ban: LabBanPolicy): Verdict {
  const figures = {
    tolerated: ban.threshold,
    banEnabled: ban.enabled,
    maxRequestsInARowWhileLimited: state.maxConsecutiveRefusals,
    refusedByLimiter: state.organicRefusals,
    bans: state.bans,
    firstBanAt: state.firstBanAtMs === null ? null : isoOf(state.firstBanAtMs),
  };
  if (state.bans > 0)
    return verdict(
      'no-hammering',
      'fail',
      `banned ${state.bans} time${state.bans === 1 ? '' : 's'}, first at ${isoOf(state.firstBanAtMs!)}; up to ${state.maxConsecutiveRefusals} requests in a row while limited (the ban policy tolerates ${ban.threshold})`,
      figures,
    );
  if (state.maxConsecutiveRefusals > ban.threshold)
    return verdict(
      'no-hammering',
      'fail',
      `${state.maxConsecutiveRefusals} requests in a row while limited, up to ${isoOf(state.maxConsecutiveAtMs)} (the ban policy tolerates ${ban.threshold}${ban.enabled ? '' : '; bans are off, so it was not banned'})`,
      figures,
    );
  if (state.organicRefusals > 0)
    return verdict(
      'no-hammering',
      'pass',
      `never banned; at most ${state.maxConsecutiveRefusals} requests in a row while limited (tolerated: ${ban.threshold})`,
      figures,
    );
  return verdict('no-hammering', 'not-exercised', 'never refused by the rate limiter', figures);
}

function deprecatedVerdict(state: ClientJudgeState): Verdict {
  if (state.deprecatedCalls === 0)
    return verdict('deprecated-operation', 'not-exercised', 'never called a deprecated operation', {
      calls: 0,
      sunset: null,
      operations: [],
    });
  return verdict(
    'deprecated-operation',
    'info',
    `called ${state.deprecatedOperations.join(', ')} ${state.deprecatedCalls} time${state.deprecatedCalls === 1 ? '' : 's'}${state.deprecatedSunset ? `; sunset ${state.deprecatedSunset}` : ''}`,
    {
      calls: state.deprecatedCalls,
      sunset: state.deprecatedSunset,
      operations: state.deprecatedOperations,
      firstAt: isoOf(state.deprecatedFirstAtMs!),
      lastAt: isoOf(state.deprecatedLastAtMs!),
    },
  );
}

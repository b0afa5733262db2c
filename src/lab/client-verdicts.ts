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
  const rule = 'retry-after-honoured';
  const common = {
    toleranceSeconds: retryAfterToleranceMs / 1000,
    judged: state.retryChecks,
    early: state.retryViolations,
    forced429Ignored: state.forced429,
  };
  if (state.retryViolations > 0) {
    const first = state.retrySamples[0]!;
    return verdict(
      rule,
      'fail',
      `${state.retryViolations} of ${state.retryChecks} requests after a 429 came early; first: ${first.waitSeconds} s after a 429 at ${first.refusedAt} that said Retry-After: ${first.retryAfterSeconds}`,
      { ...common, samples: state.retrySamples },
    );
  }
  if (state.retryChecks > 0) {
    const last = state.lastHonoured;
    return verdict(
      rule,
      'pass',
      `waited as told after all ${state.retryChecks} 429s${last ? `; last: ${last.waitSeconds} s after Retry-After: ${last.retryAfterSeconds}` : ''}`,
      { ...common, samples: last ? [last] : [] },
    );
  }
  const summary =
    state.organicRefusals > 0
      ? 'got a 429 but sent nothing after it'
      : `never refused by the rate limiter${state.forced429 > 0 ? ` (${state.forced429} 429s forced with Prefer are not judged)` : ''}`;
  return verdict(rule, 'not-exercised', summary, { ...common, samples: [] });
}

function backoffVerdict(state: ClientJudgeState): Verdict {
  const rule = 'backoff-growing';
  const common = {
    comparedWaits: state.backoffPairs,
    shrinkingOrEqual: state.backoffViolations,
    longestRunWaitsSeconds: state.longestStreakWaitsSeconds,
  };
  if (state.backoffViolations > 0) {
    const first = state.backoffSamples[0]!;
    return verdict(
      rule,
      'fail',
      `${state.backoffViolations} of ${state.backoffPairs} waits after consecutive 429s did not grow; first: ${first.previousWaitSeconds} s then ${first.waitSeconds} s (429 at ${first.refusedAt})`,
      { ...common, samples: state.backoffSamples },
    );
  }
  if (state.backoffPairs > 0)
    return verdict(
      rule,
      'pass',
      `every wait grew across consecutive 429s (${state.backoffPairs} compared; longest run: ${state.longestStreakWaitsSeconds.join(' s, ')} s)`,
      { ...common, samples: [] },
    );
  return verdict(
    rule,
    'not-exercised',
    'never waited twice across consecutive 429s (needs a second 429 in a row and a request after it)',
    { ...common, samples: [] },
  );
}

function hammeringVerdict(state: ClientJudgeState, ban: LabBanPolicy): Verdict {
  const rule = 'no-hammering';
  const common = {
    tolerated: ban.threshold,
    banEnabled: ban.enabled,
    maxRequestsInARowWhileLimited: state.maxConsecutiveRefusals,
    refusedByLimiter: state.organicRefusals,
    bans: state.bans,
    firstBanAt: state.firstBanAtMs === null ? null : isoOf(state.firstBanAtMs),
  };
  if (state.bans > 0)
    return verdict(
      rule,
      'fail',
      `banned ${state.bans} time${state.bans === 1 ? '' : 's'}, first at ${isoOf(state.firstBanAtMs!)}; up to ${state.maxConsecutiveRefusals} requests in a row while limited (the ban policy tolerates ${ban.threshold})`,
      common,
    );
  if (state.maxConsecutiveRefusals > ban.threshold)
    return verdict(
      rule,
      'fail',
      `${state.maxConsecutiveRefusals} requests in a row while limited, up to ${isoOf(state.maxConsecutiveAtMs)} (the ban policy tolerates ${ban.threshold}${ban.enabled ? '' : '; bans are off, so it was not banned'})`,
      common,
    );
  if (state.organicRefusals > 0)
    return verdict(
      rule,
      'pass',
      `never banned; at most ${state.maxConsecutiveRefusals} requests in a row while limited (tolerated: ${ban.threshold})`,
      common,
    );
  return verdict(rule, 'not-exercised', 'never refused by the rate limiter', common);
}

function deprecatedVerdict(state: ClientJudgeState): Verdict {
  const rule = 'deprecated-operation';
  if (state.deprecatedCalls === 0)
    return verdict(rule, 'not-exercised', 'never called a deprecated operation', {
      calls: 0,
      sunset: null,
      operations: [],
    });
  return verdict(
    rule,
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

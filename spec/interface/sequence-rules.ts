import { judgeBans, type KeyHistory } from './ban-rules.js';
import {
  limitedWithBudgetLeft,
  remainingStepProblem,
  retryAfterInThePast,
  retryAfterVersusReset,
} from './key-rules.js';
import type { ObservedExchange, RuleViolation } from './observed.js';
import { isoTime, newWindowBetween, readBudget, serverClock } from './rate-limit-headers.js';

/**
 * The sequence rules of the catalogue: rules of interface section 8 that hold across the answers of
 * one key, judged on each answer with the one before it. The kit (every exchange of a run, whatever
 * check sent it) and the judging proxy (every answer of real traffic) feed them through
 * `KeySequences` (key-sequences.ts) and report them under these ids.
 *
 * A pair rule judges only what a pair can show fairly: the two answers were sent one after the
 * other with nothing else of the key in flight (`sequential`), and neither refused the credentials
 * (a 401 or a 403 is not drawn from the key's budget). A pair across a new window (read from the headers: Reset moved later, or the Limit
 * changed) is not a pair of one window. What the interface leaves open is a note, never a failure.
 */
export interface SequenceRule {
  id: string;
  rule: string;
  title: string;
  /** Plural noun phrase for a summary: "3 of 40 <what>". */
  what: string;
}

export const sequenceRules = [
  {
    id: 'rate.remaining-exact',
    rule: '§8',
    title:
      'each request of a key, sent when none of its others is in flight, lowers X-RateLimit-Remaining by exactly one within a window',
    what: 'steps of one request that did not lower Remaining by exactly one',
  },
  {
    id: 'rate.reset-steady',
    rule: '§8',
    title: 'X-RateLimit-Reset never moves earlier between sequential requests of one key in one window',
    what: 'steps within a window where Reset moved earlier',
  },
  {
    id: 'rate.reset-moves-at-rollover',
    rule: '§8',
    title:
      'when the budget of a key comes back (Remaining rises between sequential answers of one Limit), X-RateLimit-Reset has moved later',
    what: 'renewed budgets announced without a later Reset',
  },
  {
    id: 'rate.429-only-when-exhausted',
    rule: '§8.1',
    title:
      'a 429 comes only when the budget says none is left (the answer before it, and the 429 itself, say Remaining 0)',
    what: '429s that came while the budget said requests were left',
  },
  {
    id: 'rate.retry-after-matches-reset',
    rule: '§8.2',
    title:
      "a key's first 429 after a served answer: Retry-After points no later than the X-RateLimit-Reset it reports (server Date, ± 2 s)",
    what: '429s whose Retry-After points past their Reset',
  },
  {
    id: 'rate.retry-after-future',
    rule: '§8.2',
    title: 'a Retry-After given as an HTTP-date is not in the past',
    what: '429s whose Retry-After date is in the past',
  },
  // A ban's start, announcement and end (ban-rules.ts).
  {
    id: 'rate.first-429-no-ban',
    rule: '§8.3',
    title:
      'the first 429 sends the key away no longer than the window it was promised: Retry-After ends by the X-RateLimit-Reset of the answers before it (a ban is only for keys that keep sending)',
    what: 'first 429s that sent the key away past the window it was promised',
  },
  {
    id: 'rate.ban-announced',
    rule: '§8.3',
    title:
      'a key that keeps sending after a 429 is refused with 429 and Retry-After (a ban, if one starts, is announced so), never told its valid key is invalid (401) or forbidden (403)',
    what: 'requests sent after a 429, before its Retry-After, answered with another refusal than 429',
  },
  {
    id: 'rate.ban-temporary',
    rule: '§8.3',
    title:
      'a key that keeps sending after a 429 may be banned; every 429 says when to come back (Retry-After), and after waiting that long the key is served again',
    what: 'requests sent once the Retry-After of the 429 before them had passed, refused again with 429',
  },
] as const satisfies readonly SequenceRule[];

export type SequenceRuleId = (typeof sequenceRules)[number]['id'];

/** A violation that names which of the two answers shows it. */
interface SequenceViolation extends RuleViolation {
  which: 'before' | 'after';
}

/** What the sequence rules found on one answer: each rule that judged it, with its violations (empty when held). */
export interface SequenceFindings {
  verdicts: { id: SequenceRuleId; violations: SequenceViolation[] }[];
  /** What the interface leaves open, as the server chose it, by the rule that saw it. */
  notes: { id: SequenceRuleId; text: string }[];
}

/** One answer and the key's answer before it (undefined for its first), and whether the two were sent one after the other. */
export interface AnswerInSequence {
  before: ObservedExchange | undefined;
  after: ObservedExchange;
  sequential: boolean;
  /**
   * Whether `before`'s request was alone in flight of its key (default true). When it was not, the
   * server may have counted it before a request answered earlier, so `before` need not carry the
   * key's latest count: Remaining may fall by more than one to `after`, never less (seen under load:
   * 66, then 64, on a conforming server).
   */
  beforeAlone?: boolean;
  /** The key's history besides `before` (key-sequences.ts); without it, the ban rules judge as if nothing else was around. */
  history?: KeyHistory;
}

const status = (exchange: ObservedExchange) => exchange.response.status;
/** The credentials were refused (401, or 403 as some servers answer it): the answer's budget is not the key's. */
const refused = (exchange: ObservedExchange) => status(exchange) === 401 || status(exchange) === 403;
const budget = (exchange: ObservedExchange) => readBudget(exchange.response.headers, exchange.receivedAtMs);

/**
 * Judges one answer of a key by every sequence rule that can judge it.
 *
 * @example judgeInSequence({ before: saying10Left, after: saying8Left, sequential: true }).verdicts[0]
 * // { id: 'rate.remaining-exact', violations: [{ which: 'after', detail: 'X-RateLimit-Remaining went from 10 to 8 ...' }] }
 */
export function judgeInSequence(pair: AnswerInSequence): SequenceFindings {
  const findings: SequenceFindings = { verdicts: [], notes: [] };
  const { before, after, sequential } = pair;
  const history = pair.history ?? { refusedInRow: 0, servedOnce: false, othersAround: sequential ? 0 : Infinity };
  const bans = judgeBans(before, after, sequential, history);
  findings.verdicts.push(...bans.verdicts);
  findings.notes.push(...bans.notes);
  if (status(after) === 429) {
    const past = retryAfterInThePast(after);
    findings.verdicts.push({
      id: 'rate.retry-after-future',
      violations: past === undefined ? [] : [{ which: 'after', detail: past, header: 'Retry-After' }],
    });
  }
  if (refused(after) || (before !== undefined && refused(before))) return findings;
  // The key's first 429, or its first after a served answer: a ban is only for keys that keep sending after a 429.
  if (status(after) === 429 && (before === undefined || status(before) !== 429))
    judgeFirst429(before, after, sequential, findings);
  if (before !== undefined && sequential) judgeWindowSteps(before, after, pair.beforeAlone ?? true, findings);
  return findings;
}

/** Remaining and Reset between two sequential served answers. */
function judgeWindowSteps(
  before: ObservedExchange,
  after: ObservedExchange,
  beforeAlone: boolean,
  findings: SequenceFindings,
): void {
  if (status(before) === 429 || status(after) === 429) return;
  const promised = budget(before);
  const reported = budget(after);
  if (promised.remaining === undefined || reported.remaining === undefined) return;
  const problem = remainingStepProblem(before, after);
  // Falling by more than one is a fault only when `before` carried the key's latest count.
  const step = problem !== undefined && (beforeAlone || problem.next >= problem.previous) ? problem : undefined;
  const newWindow = newWindowBetween(promised, reported);
  if (!newWindow)
    findings.verdicts.push({
      id: 'rate.remaining-exact',
      violations:
        step === undefined
          ? []
          : [
              {
                which: 'after',
                detail: `X-RateLimit-Remaining went from ${step.previous} to ${step.next} over one request of the key; one request spends exactly one, expected ${step.previous - 1}`,
                header: 'X-RateLimit-Remaining',
              },
            ],
    });
  if (promised.resetSeconds === undefined || reported.resetSeconds === undefined) return;
  if (promised.limit === undefined || promised.limit !== reported.limit) return;
  if (!newWindow)
    findings.verdicts.push({
      id: 'rate.reset-steady',
      // Fixed windows keep their Reset, sliding ones move it later; earlier (beyond 1 s of rounding) is neither.
      violations:
        reported.resetSeconds < promised.resetSeconds - 1
          ? [
              {
                which: 'after',
                detail: `X-RateLimit-Reset moved earlier, from ${promised.resetSeconds} to ${reported.resetSeconds}, between two sequential requests in one window`,
                header: 'X-RateLimit-Reset',
              },
            ]
          : [],
    });
  if (reported.remaining > promised.remaining) judgeRenewal(before, after, findings);
}

/** The budget came back: the window rolled over, so the Reset the key is told must have moved on. */
function judgeRenewal(before: ObservedExchange, after: ObservedExchange, findings: SequenceFindings): void {
  const promised = budget(before);
  const reported = budget(after);
  // Any later Reset: a one-second window rolls over by exactly one second (newWindowBetween).
  const moved = reported.resetSeconds! > promised.resetSeconds!;
  const clock = serverClock(after.response.headers, after.receivedAtMs);
  const slackMs = clock.source === 'Date header' ? 2_000 : 60_000;
  if (clock.nowMs < promised.resetSeconds! * 1000 - slackMs)
    findings.notes.push({
      id: 'rate.reset-moves-at-rollover',
      text: `Remaining rose from ${promised.remaining} to ${reported.remaining} before the announced X-RateLimit-Reset ${promised.resetSeconds} (by the ${clock.source}): a sliding window, which the interface leaves open`,
    });
  findings.verdicts.push({
    id: 'rate.reset-moves-at-rollover',
    violations: moved
      ? []
      : [
          {
            which: 'after',
            detail: `X-RateLimit-Remaining rose from ${promised.remaining} to ${reported.remaining} (a new window) but X-RateLimit-Reset stayed at ${reported.resetSeconds} (was ${promised.resetSeconds}): the new window's reset is not announced`,
            header: 'X-RateLimit-Reset',
          },
        ],
  });
}

function judgeFirst429(
  before: ObservedExchange | undefined,
  limited: ObservedExchange,
  sequential: boolean,
  findings: SequenceFindings,
): void {
  // The 429's own Remaining is judged on every first 429; what the answer before it promised, only when
  // nothing else of the key was in flight (in a parallel burst the order of the answers is not the order of counting).
  findings.verdicts.push({
    id: 'rate.429-only-when-exhausted',
    violations: limitedWithBudgetLeft(sequential ? before : undefined, limited).map((problem) => ({
      which: problem.which,
      detail: problem.detail,
      header: 'X-RateLimit-Remaining',
    })),
  });
  const verdict = retryAfterVersusReset(limited);
  if (verdict.kind === 'unjudged') return;
  if (verdict.kind === 'earlier')
    findings.notes.push({
      id: 'rate.retry-after-matches-reset',
      text: `Retry-After points ${Math.round((verdict.resetMs - verdict.retryAtMs) / 1000)} s before X-RateLimit-Reset; the interface does not say how windows move (a sliding window may free a request earlier)`,
    });
  findings.verdicts.push({
    id: 'rate.retry-after-matches-reset',
    violations:
      verdict.kind === 'later'
        ? [
            {
              which: 'after',
              detail: `Retry-After ${limited.response.headers['retry-after']} points to ${isoTime(verdict.retryAtMs)}, ${Math.round((verdict.retryAtMs - verdict.resetMs) / 1000)} s after the reset the same 429 reports (${isoTime(verdict.resetMs)}), judged by the ${verdict.clockSource}`,
              header: 'Retry-After',
            },
          ]
        : [],
  });
}

import type { ObservedExchange, RuleViolation } from './observed.js';
import { isoTime, parseRetryAfter, readBudget, serverClock } from './rate-limit-headers.js';

/**
 * Interface section 8, rules 2 and 3, across the answers of one key: a ban's start, its
 * announcement and its end. What the interface states: a 429 tells the client how long to wait
 * (Retry-After, rule 2); a key "may be temporarily banned" only "when a client keeps sending
 * requests after receiving 429" (rule 3), so a ban is temporary and is for keys that kept sending.
 * What it leaves open (whether a ban comes at all, after how many refusals, for how long, what
 * X-RateLimit-Reset and -Remaining say meanwhile) is a note naming the server's choice.
 */
type BanRuleId = 'rate.first-429-no-ban' | 'rate.ban-announced' | 'rate.ban-temporary';

/** Where one answer stands in its key's history, besides the answer before it. */
export interface KeyHistory {
  /** 429s the key received in a row just before this answer (0: its last answer was served). */
  refusedInRow: number;
  /** The key was served at least once (a 2xx): the server knows it as a valid key. */
  servedOnce: boolean;
  /** Other requests of the key in flight while this one was (sent before it and unanswered, or sent after it). */
  othersAround: number;
}

export interface BanFindings {
  verdicts: { id: BanRuleId; violations: (RuleViolation & { which: 'before' | 'after' })[] }[];
  notes: { id: BanRuleId; text: string }[];
}

/** Slack for whole-second rounding of Date, Reset and Retry-After, judged on the server's Date. */
const dateSlackMs = 2_000;

const status = (exchange: ObservedExchange) => exchange.response.status;

/**
 * When the answer's Retry-After lets the key come back, on the observer's clock (the delay read
 * against the server's own Date for an HTTP-date), or undefined without a usable one.
 *
 * @example retryAtMs(a429SayingRetryAfter30ReceivedAt1000) // 31000
 */
export function retryAtMs(exchange: ObservedExchange): number | undefined {
  const headers = exchange.response.headers;
  const retry = parseRetryAfter(headers['retry-after'], serverClock(headers, exchange.receivedAtMs).nowMs);
  return retry.ok ? exchange.receivedAtMs + retry.delayMs : undefined;
}

/**
 * The ban rules on one answer of a key and the key's answer before it. `sequential`: nothing else
 * of the key left between the two.
 */
export function judgeBans(
  before: ObservedExchange | undefined,
  after: ObservedExchange,
  sequential: boolean,
  history: KeyHistory,
): BanFindings {
  const findings: BanFindings = { verdicts: [], notes: [] };
  if (before === undefined) return findings;
  if (status(before) !== 429) {
    if (status(after) === 429) judgeBanStart(before, after, history, findings);
    return findings;
  }
  const comeBackAt = retryAtMs(before);
  if (comeBackAt === undefined || after.sentAtMs === undefined || !sequential) return findings;
  if (after.sentAtMs >= comeBackAt) judgeBanEnd(before, after, comeBackAt, findings);
  else judgeKeptSending(after, comeBackAt, history, findings);
  return findings;
}

/**
 * A 429 after a served answer: the key had not kept sending after a 429, so it is sent away no
 * longer than the window that answer announced. Judged when no request around it could have been
 * refused first (at most as many others in flight as the answer before said were left), and the
 * 429 came within that window.
 */
function judgeBanStart(
  served: ObservedExchange,
  limited: ObservedExchange,
  history: KeyHistory,
  findings: BanFindings,
): void {
  if (status(served) === 401 || status(served) === 403) return;
  const promised = readBudget(served.response.headers, served.receivedAtMs);
  const retryAt = retryAtMs(limited);
  if (promised.resetSeconds === undefined || promised.remaining === undefined || retryAt === undefined) return;
  if (history.othersAround > promised.remaining) return;
  const clock = serverClock(served.response.headers, served.receivedAtMs);
  const promisedAt = served.receivedAtMs + (promised.resetSeconds * 1000 - clock.nowMs);
  const slackMs = clock.source === 'Date header' ? dateSlackMs : 60_000;
  // A 429 after the announced window ended belongs to a later window: not this rule's to judge. A Reset already
  // past on the answer that announced it announces no window: the 429 is judged against it.
  const announcedAhead = promisedAt >= served.receivedAtMs - slackMs;
  if (announcedAhead && limited.receivedAtMs > promisedAt + slackMs) return;
  const late = retryAt > promisedAt + slackMs;
  findings.verdicts.push({
    id: 'rate.first-429-no-ban',
    violations: late
      ? [
          {
            which: 'after',
            detail: `the key's first 429 says to retry in ${Math.round((retryAt - limited.receivedAtMs) / 1000)} s, ${Math.round((retryAt - promisedAt) / 1000)} s after the window it was promised ends (X-RateLimit-Reset ${promised.resetSeconds} on the answer just before): the key was sent away for longer than its window, though it had not kept sending after a 429`,
            header: 'Retry-After',
          },
        ]
      : [],
  });
}

/** The key waited what its last 429 said: it is served again, a ban included (a ban is temporary, and its 429 says when it ends). */
function judgeBanEnd(
  limited: ObservedExchange,
  after: ObservedExchange,
  comeBackAt: number,
  findings: BanFindings,
): void {
  if (status(after) === 401 || status(after) === 403) return;
  const waited = Math.round((comeBackAt - limited.receivedAtMs) / 1000);
  findings.verdicts.push({
    id: 'rate.ban-temporary',
    violations:
      status(after) === 429
        ? [
            {
              which: 'after',
              detail: `the key's 429 said Retry-After ${limited.response.headers['retry-after']} (${waited} s); it waited that long (sent at ${isoTime(after.sentAtMs!)}) and was refused again with 429 (Retry-After ${after.response.headers['retry-after'] ?? 'missing'}): a 429 must say when the key may come back, a ban included`,
              header: 'Retry-After',
            },
          ]
        : [],
  });
}

/** The key kept sending before its last 429's Retry-After: refused with 429 (a ban may start), never told its valid key is invalid. */
function judgeKeptSending(
  after: ObservedExchange,
  comeBackAt: number,
  history: KeyHistory,
  findings: BanFindings,
): void {
  const answered = status(after);
  const wrongStatus = (answered === 401 || answered === 403) && history.servedOnce;
  findings.verdicts.push({
    id: 'rate.ban-announced',
    violations: wrongStatus
      ? [
          {
            which: 'after',
            detail: `the key kept sending after a 429 (request ${history.refusedInRow + 1} before its Retry-After) and was answered ${answered}, not 429: a key that keeps sending "may be temporarily banned" (§8.3), and a limit or ban is announced with 429 and Retry-After (§7, §8.2); ${answered} tells the client its valid key is ${answered === 401 ? 'missing or invalid' : 'forbidden'}`,
          },
        ]
      : [],
  });
  if (answered !== 429) return;
  const retryAt = retryAtMs(after);
  if (retryAt !== undefined && retryAt > comeBackAt + dateSlackMs)
    findings.notes.push({
      id: 'rate.ban-announced',
      text: banNote(after, retryAt, comeBackAt, history.refusedInRow + 1),
    });
}

/** What the server chose for a ban, as it announced it (the interface leaves all of it open). */
function banNote(limited: ObservedExchange, retryAt: number, windowEnd: number, inRow: number): string {
  const headers = limited.response.headers;
  const budget = readBudget(headers, limited.receivedAtMs);
  const clock = serverClock(headers, limited.receivedAtMs);
  const resetAt =
    budget.resetSeconds === undefined ? undefined : limited.receivedAtMs + (budget.resetSeconds * 1000 - clock.nowMs);
  const reset =
    resetAt === undefined
      ? 'no readable X-RateLimit-Reset'
      : Math.abs(resetAt - retryAt) <= dateSlackMs
        ? "X-RateLimit-Reset at the ban's end"
        : `X-RateLimit-Reset ${Math.round((resetAt - limited.receivedAtMs) / 1000)} s ahead`;
  const code = (limited.response.json as { code?: unknown } | undefined)?.code;
  return `a ban: after ${inRow} requests refused in a row, the key was told to wait ${Math.round((retryAt - limited.receivedAtMs) / 1000)} s (Retry-After ${headers['retry-after']}), ${Math.round((retryAt - windowEnd) / 1000)} s past the end of the window it was refused in; ${reset}, X-RateLimit-Remaining ${headers['x-ratelimit-remaining'] ?? 'missing'}${typeof code === 'string' ? `, code ${code}` : ''} (§8.3 leaves whether, when and how long open)`;
}

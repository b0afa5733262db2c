import type { WaitNotice } from '../lib/rate-budget.js';

/**
 * How a run says it is waiting, in words that stay the same from release to release (CI logs are
 * searched for them): one line per wait in logs and reports, a countdown on a terminal.
 */

/**
 * The line a wait prints as it starts.
 *
 * @example waitLine({ waitingFor: 'X-RateLimit-Reset of the main key (Remaining 2, reserve 2)', ms: 36_200, untilMs: Date.parse('2026-11-25T12:00:05Z') })
 * // 'petstore-contract: waiting 37 s for X-RateLimit-Reset of the main key (Remaining 2, reserve 2), until 12:00:05 UTC'
 */
export function waitLine(notice: WaitNotice): string {
  return `petstore-contract: waiting ${Math.ceil(notice.ms / 1000)} s for ${notice.waitingFor}, until ${clockTime(notice.untilMs)} UTC`;
}

/**
 * The terminal's single updating line while waits are under way: the wait that ends last, the
 * seconds left of it, and how many others run beside it.
 *
 * @example waitStatus([{ waitingFor: 'Retry-After of the main key (answered 429)', ms: 30_000, untilMs: now + 12_000 }], now)
 * // 'petstore-contract: 12 s left of a 30 s wait for Retry-After of the main key (answered 429)'
 */
export function waitStatus(waits: readonly WaitNotice[], nowMs: number): string {
  const longest = waits.reduce((latest, wait) => (wait.untilMs > latest.untilMs ? wait : latest));
  const left = Math.max(0, Math.ceil((longest.untilMs - nowMs) / 1000));
  const others = waits.length - 1;
  // The seconds first: a narrow terminal cuts the end of the line, never the countdown.
  return `petstore-contract: ${left} s left of a ${Math.ceil(longest.ms / 1000)} s wait for ${longest.waitingFor}${others > 0 ? ` (and ${others} more ${others === 1 ? 'wait' : 'waits'})` : ''}`;
}

function clockTime(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}

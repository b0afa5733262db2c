import type { CheckRun } from '../lib/check.js';

/** Requests of the address's window kept for other checks (the pacing reserve of lib/http-client.ts). */
const reserve = 2;

/**
 * Can a request without a valid key be sent without waiting? Such requests draw on the budget of
 * the client's address, which is small (60 a minute on our mock) and mostly spent by the
 * authentication checks; a default run spends no time, so the generators send what that budget
 * still holds and leave the rest to --thorough, which waits the window out.
 *
 * @example if (!affordableWithoutKey(run)) unsent.push(label);
 */
export function affordableWithoutKey(run: Pick<CheckRun, 'target' | 'state'>): boolean {
  if (run.target.thorough) return true;
  const latest = run.state.exchanges.findLast((exchange) => exchange.identity === 'anonymous' && exchange.response);
  const remaining = Number(latest?.response?.headers['x-ratelimit-remaining'] ?? Number.NaN);
  return Number.isNaN(remaining) || remaining > reserve;
}

/**
 * The message of a check that could not send part of its requests in a default run: the cell is
 * INCONCLUSIVE (over budget) and names the flag that would check it.
 */
export function unsentMessage(unsent: readonly string[]): string {
  return `${unsent.length} requests without a valid key did not fit the address's rate budget (the authentication checks spend most of it; a default run does not wait): ${unsent.slice(0, 6).join(', ')}${unsent.length > 6 ? ', ...' : ''}; --thorough waits the window out and sends them`;
}

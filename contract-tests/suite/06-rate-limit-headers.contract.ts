import { defineArea } from '../lib/check.js';
import { CheckFailure } from '../lib/check-errors.js';
import { evidenceOf, type Exchange } from '../lib/exchange.js';
import { responseOf } from '../lib/expect-response.js';
import { parseNonNegativeInteger } from '../lib/rate-limit-headers.js';
import { callOf, listCategories } from './operations.js';

/**
 * Interface section 8: X-RateLimit-Remaining is what is left "in the current window", so each
 * request of a key lowers it until the window resets. (Presence and form of the headers on every
 * response are judged at the end, over every exchange of the run.)
 */
export default defineArea('Rate limits (§8)', 'sequential', (check) => {
  check({ id: 'rate.remaining-decreases', rule: '§8', title: 'X-RateLimit-Remaining decreases across 3 sequential requests of one key', operation: listCategories.label, operationId: listCategories.operationId }, async (run) => {
    const exchanges: Exchange[] = [];
    for (let index = 0; index < 3; index += 1) {
      exchanges.push(await run.send({ ...callOf(listCategories), authorization: run.bearer(), identity: 'main' }));
    }
    let compared = 0;
    for (let index = 1; index < exchanges.length; index += 1) {
      const before = exchanges[index - 1]!;
      const after = exchanges[index]!;
      const previous = readBudget(before);
      const next = readBudget(after);
      if (previous.remaining === undefined || next.remaining === undefined) {
        return run.skip('X-RateLimit-Remaining is missing or not an integer, so its course cannot be followed (see the §8 header checks)');
      }
      if (previous.limit !== next.limit) continue; // the server switched to reporting another window
      if (previous.resetMs !== undefined && after.sentAtMs >= previous.resetMs - 1_000) continue; // the window may have reset in between
      compared += 1;
      if (next.remaining >= previous.remaining) {
        throw new CheckFailure(`X-RateLimit-Remaining went from ${previous.remaining} to ${next.remaining} between two sequential requests in one window`, [
          evidenceOf(before, `X-RateLimit-Remaining ${previous.remaining}`, { header: 'X-RateLimit-Remaining' }),
          evidenceOf(after, `X-RateLimit-Remaining ${next.remaining}, expected less than ${previous.remaining}`, { header: 'X-RateLimit-Remaining' }),
        ]);
      }
    }
    if (compared === 0) return run.inconclusive('inconclusive: every pair of requests straddled a window reset');
    run.note(`Remaining ${exchanges.map((exchange) => readBudget(exchange).remaining).join(' -> ')}`);
  });
});

function readBudget(exchange: Exchange): { remaining: number | undefined; limit: number | undefined; resetMs: number | undefined } {
  const headers = responseOf(exchange).headers;
  const reset = parseNonNegativeInteger(headers['x-ratelimit-reset']);
  // Only a believable Unix timestamp in seconds can tell when the window ends; the header checks judge the rest.
  const resetMs = reset !== undefined && Math.abs(reset * 1000 - exchange.receivedAtMs) < 2 * 86_400_000 ? reset * 1000 : undefined;
  return { remaining: parseNonNegativeInteger(headers['x-ratelimit-remaining']), limit: parseNonNegativeInteger(headers['x-ratelimit-limit']), resetMs };
}

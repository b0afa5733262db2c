import { defineArea } from '../lib/check.js';
import { CheckFailure } from '../lib/check-errors.js';
import { evidenceOf, type Exchange } from '../lib/exchange.js';
import { responseOf } from '../lib/expect-response.js';
import { parseNonNegativeInteger } from '../lib/rate-limit-headers.js';
import type { ApiRequest } from '../lib/http-client.js';
import { callOf, createCategory, listCategories } from './operations.js';

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

  check({ id: 'rate.reset-steady', rule: '§8', title: 'X-RateLimit-Reset never moves earlier between sequential requests of one key in one window', operation: listCategories.label, operationId: listCategories.operationId }, async (run) => {
    const exchanges: Exchange[] = [];
    for (let index = 0; index < 4; index += 1) exchanges.push(await run.send({ ...callOf(listCategories), authorization: run.bearer(), identity: 'main' }));
    let compared = 0;
    for (let index = 1; index < exchanges.length; index += 1) {
      const previous = readBudget(exchanges[index - 1]!);
      const next = readBudget(exchanges[index]!);
      if (previous.resetMs === undefined || next.resetMs === undefined) return run.skip('X-RateLimit-Reset is missing or not a Unix timestamp in seconds (see the §8 header checks)');
      // Another Limit is another window (the minute and the day); a reset already passed starts a new one.
      if (previous.limit !== next.limit || exchanges[index]!.sentAtMs >= previous.resetMs - 1_000) continue;
      compared += 1;
      // Fixed windows keep their Reset, sliding ones move it later; earlier (beyond 1 s of rounding) is neither.
      if (next.resetMs < previous.resetMs - 1_000) {
        throw new CheckFailure(`X-RateLimit-Reset moved earlier, from ${previous.resetMs / 1000} to ${next.resetMs / 1000}, between two sequential requests in one window: the reset the key was promised is not the one it gets`, [
          evidenceOf(exchanges[index - 1]!, `X-RateLimit-Reset ${previous.resetMs / 1000}`, { header: 'X-RateLimit-Reset' }),
          evidenceOf(exchanges[index]!, `X-RateLimit-Reset ${next.resetMs / 1000}, earlier than ${previous.resetMs / 1000}`, { header: 'X-RateLimit-Reset' }),
        ]);
      }
    }
    if (compared === 0) return run.inconclusive('inconclusive: every pair of requests straddled a window reset');
    run.note(`Reset ${[...new Set(exchanges.map((exchange) => (readBudget(exchange).resetMs ?? 0) / 1000))].join(' -> ')}`);
  });

  check({ id: 'rate.every-request-counts', rule: '§8', title: 'every request spends the budget, whatever its method or outcome (GET, POST 201, POST 400, 404, 405), one request each', operation: '(all of one key)', maxCreates: () => 2 }, async (run) => {
    const steps: { what: string; request: ApiRequest }[] = [
      { what: 'GET /categories (200)', request: { ...callOf(listCategories), authorization: run.bearer(), identity: 'main' } },
      ...(run.target.readOnly
        ? []
        : [
            { what: 'POST /categories with a valid body (201)', request: { ...callOf(createCategory), authorization: run.bearer(), identity: 'main' as const, json: { name: run.categoryName('budget-count') } } },
            { what: 'POST /categories without name (400)', request: { ...callOf(createCategory), authorization: run.bearer(), identity: 'main' as const, json: { description: 'no name' } } },
          ]),
      { what: 'GET of an unknown path (404)', request: { operationId: 'unknownPath', method: 'GET', path: `/${run.target.namePrefix}-no-such-resource`, authorization: run.bearer(), identity: 'main' } },
      { what: 'PATCH /categories without a body (405)', request: { operationId: 'methodNotAllowed', method: 'PATCH', path: '/categories', authorization: run.bearer(), identity: 'main' } },
      { what: 'GET /categories (200)', request: { ...callOf(listCategories), authorization: run.bearer(), identity: 'main' } },
    ];
    const exchanges: Exchange[] = [];
    for (const step of steps) exchanges.push(await run.send(step.request));
    run.cases(steps.length);
    let compared = 0;
    const trail: string[] = [];
    for (let index = 1; index < exchanges.length; index += 1) {
      const before = exchanges[index - 1]!;
      const after = exchanges[index]!;
      const previous = readBudget(before);
      const next = readBudget(after);
      trail.push(String(previous.remaining));
      if (previous.remaining === undefined || next.remaining === undefined) return run.skip('X-RateLimit-Remaining is missing or not an integer on some of these responses (see the §8 header checks)');
      if (previous.limit !== next.limit || (previous.resetMs !== undefined && after.sentAtMs >= previous.resetMs - 1_000)) continue;
      compared += 1;
      if (next.remaining >= previous.remaining) {
        throw new CheckFailure(`a request was not counted: X-RateLimit-Remaining was ${previous.remaining} after ${steps[index - 1]!.what} and still ${next.remaining} after ${steps[index]!.what} (requests sent one at a time, one window)`, [
          evidenceOf(before, `${steps[index - 1]!.what}: X-RateLimit-Remaining ${previous.remaining}`, { header: 'X-RateLimit-Remaining' }),
          evidenceOf(after, `next request: X-RateLimit-Remaining ${next.remaining}, expected less than ${previous.remaining}`, { header: 'X-RateLimit-Remaining' }),
        ]);
      }
    }
    if (compared === 0) return run.inconclusive('inconclusive: every pair of requests straddled a window reset');
    trail.push(String(readBudget(exchanges.at(-1)!).remaining));
    run.note(`Remaining ${trail.join(' -> ')}`);
  });
});

function readBudget(exchange: Exchange): { remaining: number | undefined; limit: number | undefined; resetMs: number | undefined } {
  const headers = responseOf(exchange).headers;
  const reset = parseNonNegativeInteger(headers['x-ratelimit-reset']);
  // Only a believable Unix timestamp in seconds can tell when the window ends; the header checks judge the rest.
  const resetMs = reset !== undefined && Math.abs(reset * 1000 - exchange.receivedAtMs) < 2 * 86_400_000 ? reset * 1000 : undefined;
  return { remaining: parseNonNegativeInteger(headers['x-ratelimit-remaining']), limit: parseNonNegativeInteger(headers['x-ratelimit-limit']), resetMs };
}

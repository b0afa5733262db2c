import { type BudgetReading, newWindowBetween, readBudget } from '../../spec/interface/rate-limit-headers.js';
import { type CheckRun, defineArea } from '../lib/check.js';
import { CheckFailure } from '../lib/check-errors.js';
import { type Exchange, evidenceOf } from '../lib/exchange.js';
import { responseOf } from '../lib/expect-response.js';
import type { ApiRequest } from '../lib/http-client.js';
import type { RegisterCheck } from '../lib/register-check.js';
import { callOf, createCategory, listCategories } from './operations.js';

/**
 * Interface section 8: X-RateLimit-Remaining is what is left "in the current window", so each
 * request of a key lowers it until the window resets. (Presence and form of the headers on every
 * response are judged at the end, over every exchange of the run.)
 *
 * A measurement that a new window interrupts (the headers say so: Reset moved on, or the Limit
 * now names the other window) is taken again, up to three times, so a run that happens to start
 * in the last second of a minute is judged like any other.
 */
const attempts = 3;
/** The POSTs of one measurement of rate.every-request-counts (one 201, one 400); each attempt sends them again. */
const postsPerMeasurement = 2;

/** One request of rate.every-request-counts, and how the report names it. */
interface BudgetStep {
  what: string;
  request: ApiRequest;
}

export default defineArea('Rate limits (§8)', 'sequential', (check) => {
  remainingDecreasesCheck(check);
  everyRequestCountsCheck(check);
  parallelDistinctCheck(check);
});

/** Three GETs one after the other: each answer reports less Remaining than the one before. */
function remainingDecreasesCheck(check: RegisterCheck): void {
  check(
    {
      id: 'rate.remaining-decreases',
      rule: '§8',
      title: 'X-RateLimit-Remaining decreases across 3 sequential requests of one key',
      operation: listCategories.label,
      operationId: listCategories.operationId,
    },
    async (run) => {
      const list = (): ApiRequest => ({ ...callOf(listCategories), authorization: run.bearer(), identity: 'main' });
      const measured = await inOneWindow(run, () => sequence(run, [list(), list(), list()]), 'some');
      const uncounted = firstUncounted(run, measured);
      if (uncounted !== undefined) {
        const { before, after, previous, next } = uncounted;
        throw new CheckFailure(
          `X-RateLimit-Remaining went from ${previous} to ${next} between two sequential requests in one window`,
          [
            evidenceOf(before, `X-RateLimit-Remaining ${previous}`, { header: 'X-RateLimit-Remaining' }),
            evidenceOf(after, `X-RateLimit-Remaining ${next}, expected less than ${previous}`, {
              header: 'X-RateLimit-Remaining',
            }),
          ],
        );
      }
      run.note(courseOf(run, measured));
    },
  );
}

/** One request of every method and outcome, one after the other: each one spends the budget. */
function everyRequestCountsCheck(check: RegisterCheck): void {
  check(
    {
      id: 'rate.every-request-counts',
      rule: '§8',
      title:
        'every request spends the budget, whatever its method or outcome (GET, POST 201, POST 400, 404, 405), one request each',
      operation: '(all of one key)',
      maxCreates: () => postsPerMeasurement * attempts,
    },
    async (run) => {
      const steps = budgetSteps(run);
      // Every step must be judged, so a sequence that a new window interrupts anywhere is sent again.
      const measured = await inOneWindow(
        run,
        () =>
          sequence(
            run,
            steps.map((step) => step.request),
          ),
        'all',
      );
      run.cases(steps.length);
      const uncounted = firstUncounted(run, measured);
      if (uncounted !== undefined) {
        const { before, after, previous, next } = uncounted;
        const index = measured.exchanges.indexOf(after);
        throw new CheckFailure(
          `a request was not counted: X-RateLimit-Remaining was ${previous} after ${steps[index - 1]!.what} and still ${next} after ${steps[index]!.what} (requests sent one at a time, one window)`,
          [
            evidenceOf(before, `${steps[index - 1]!.what}: X-RateLimit-Remaining ${previous}`, {
              header: 'X-RateLimit-Remaining',
            }),
            evidenceOf(after, `next request: X-RateLimit-Remaining ${next}, expected less than ${previous}`, {
              header: 'X-RateLimit-Remaining',
            }),
          ],
        );
      }
      run.note(courseOf(run, measured));
    },
  );
}

/** Requests of one key in parallel: no two answers of one window report the same Remaining. */
function parallelDistinctCheck(check: RegisterCheck): void {
  check(
    {
      id: 'rate.parallel-distinct',
      rule: '§8',
      title:
        'requests of one key sent in parallel each spend one request: no two answers in one window report the same X-RateLimit-Remaining',
      operation: listCategories.label,
      operationId: listCategories.operationId,
    },
    async (run) => {
      const count = Math.max(2, Math.min(6, run.target.concurrency * 2));
      const exchanges = await Promise.all(
        Array.from({ length: count }, () =>
          run.send({ ...callOf(listCategories), authorization: run.bearer(), identity: 'main' }),
        ),
      );
      const windows = new Map<string, { remaining: number; exchange: Exchange }[]>();
      for (const exchange of exchanges) {
        const budget = budgetOf(run, exchange);
        const window = `${budget.limit}/${budget.resetSeconds}`;
        windows.set(window, [...(windows.get(window) ?? []), { remaining: budget.remaining!, exchange }]);
      }
      for (const answers of windows.values()) {
        const seen = new Map<number, Exchange>();
        for (const { remaining, exchange } of answers) {
          const twin = seen.get(remaining);
          if (twin !== undefined) {
            throw new CheckFailure(
              `${count} parallel requests of one key: two answers in one window both say X-RateLimit-Remaining ${remaining}, so one request was not counted (a lost update under concurrency) or counted for another`,
              [
                evidenceOf(twin, `X-RateLimit-Remaining ${remaining}`, { header: 'X-RateLimit-Remaining' }),
                evidenceOf(exchange, `X-RateLimit-Remaining ${remaining} again, same X-RateLimit-Reset`, {
                  header: 'X-RateLimit-Remaining',
                }),
              ],
            );
          }
          seen.set(remaining, exchange);
        }
      }
      run.cases(count);
      run.note(
        `Remaining ${exchanges
          .map((exchange) => budgetOf(run, exchange).remaining)
          .sort((a, b) => (b ?? 0) - (a ?? 0))
          .join(', ')} (${count} in parallel, up to --concurrency ${run.target.concurrency} in flight)`,
      );
    },
  );
}

/** What rate.every-request-counts sends, in order: every method and outcome of one key (no POST when read-only). */
function budgetSteps(run: CheckRun): BudgetStep[] {
  return [
    {
      what: 'GET /categories (200)',
      request: { ...callOf(listCategories), authorization: run.bearer(), identity: 'main' },
    },
    ...(run.target.readOnly
      ? []
      : [
          {
            what: 'POST /categories with a valid body (201)',
            request: {
              ...callOf(createCategory),
              authorization: run.bearer(),
              identity: 'main' as const,
              json: { name: run.categoryName('budget-count') },
            },
          },
          {
            what: 'POST /categories without name (400)',
            request: {
              ...callOf(createCategory),
              authorization: run.bearer(),
              identity: 'main' as const,
              json: { description: 'no name' },
            },
          },
        ]),
    {
      what: 'GET of an unknown path (404)',
      request: {
        operationId: 'unknownPath',
        method: 'GET',
        path: `/${run.target.namePrefix}-no-such-resource`,
        authorization: run.bearer(),
        identity: 'main',
      },
    },
    {
      what: 'PATCH /categories without a body (405)',
      request: {
        operationId: 'methodNotAllowed',
        method: 'PATCH',
        path: '/categories',
        authorization: run.bearer(),
        identity: 'main',
      },
    },
    {
      what: 'GET /categories (200)',
      request: { ...callOf(listCategories), authorization: run.bearer(), identity: 'main' },
    },
  ];
}

/** Answers sent one at a time, the consecutive pairs of them that lie in one window, and the attempt that took them. */
interface Measurement {
  exchanges: Exchange[];
  pairs: [Exchange, Exchange][];
  attempt: number;
}

/** Sends the requests one at a time, in order. */
async function sequence(run: CheckRun, requests: ApiRequest[]): Promise<Exchange[]> {
  const exchanges: Exchange[] = [];
  for (const request of requests) exchanges.push(await run.send(request));
  return exchanges;
}

/**
 * Takes a measurement until a new window interrupts `all` of its steps (or, with 'some', not
 * every one of them): the consecutive pairs of answers that lie in one window are returned.
 */
async function inOneWindow(
  run: CheckRun,
  take: () => Promise<Exchange[]>,
  needed: 'all' | 'some',
): Promise<Measurement> {
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    const exchanges = await take();
    const pairs: [Exchange, Exchange][] = [];
    for (let index = 1; index < exchanges.length; index += 1) {
      const before = exchanges[index - 1]!;
      const after = exchanges[index]!;
      // Headers that cannot be read say nothing of windows: the pair stays, and its check judges (or skips) it in order.
      if (!newWindowBetween(readingOf(before), readingOf(after))) pairs.push([before, after]);
    }
    if (needed === 'all' ? pairs.length === exchanges.length - 1 : pairs.length > 0)
      return { exchanges, pairs, attempt };
  }
  return run.inconclusive(
    `inconclusive: a new window started during each of ${attempts} measurements (windows shorter than a few requests?)`,
  );
}

function readingOf(exchange: Exchange): BudgetReading {
  return readBudget(responseOf(exchange).headers, exchange.receivedAtMs);
}

/** The budget a response reports; the check is skipped when Remaining cannot be read (the header checks report why). */
function budgetOf(run: CheckRun, exchange: Exchange): BudgetReading {
  const budget = readBudget(responseOf(exchange).headers, exchange.receivedAtMs);
  if (budget.remaining === undefined)
    return run.skip(
      'X-RateLimit-Remaining is missing or not an integer, so its course cannot be followed (see the §8 header checks)',
    );
  return budget;
}

/**
 * The first pair of a measurement (in order) whose later answer reports no less Remaining than the
 * one before: a request the budget did not count. Skips the check when Remaining cannot be read.
 */
function firstUncounted(
  run: CheckRun,
  measured: Measurement,
): { before: Exchange; after: Exchange; previous: number; next: number } | undefined {
  for (const [before, after] of measured.pairs) {
    const previous = budgetOf(run, before).remaining!;
    const next = budgetOf(run, after).remaining!;
    if (next >= previous) return { before, after, previous, next };
  }
  return undefined;
}

/** The note of a measurement: Remaining answer by answer, and how often a new window made it start again. */
function courseOf(run: CheckRun, measured: Measurement): string {
  return `Remaining ${measured.exchanges.map((exchange) => budgetOf(run, exchange).remaining).join(' -> ')}${retaken(measured.attempt)}`;
}

function retaken(attempt: number): string {
  return attempt === 1
    ? ''
    : ` (measured again: a new window started during ${attempt - 1} earlier measurement${attempt > 2 ? 's' : ''})`;
}

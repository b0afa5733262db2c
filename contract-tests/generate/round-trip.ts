import { type ExactId, idOf } from '../../spec/interface/exact-ids.js';
import { listingProblem } from '../../spec/interface/resource-sequences.js';
import type { CheckRun } from '../lib/check.js';
import { CheckFailure } from '../lib/check-errors.js';
import type { Identity } from '../lib/exchange.js';
import { type Evidence, type Exchange, evidenceOf } from '../lib/exchange.js';
import { expectStatus } from '../lib/expect-response.js';

/** A category a generator created: what its 201 returned (the stored values every later view must show). */
export interface CreatedValue {
  /** What the value is, for the report: `sql: ' OR '1'='1`. */
  label: string;
  exchange: Exchange;
  id: ExactId;
  name: unknown;
  description: unknown;
}

/** The main key's view: the generators list with it at once; the other key's lists are judged at the end (data.round-trip). */
function mainKeyView(run: CheckRun): { identity: Identity; authorization: string; who: string }[] {
  return [{ identity: 'main', authorization: run.bearer(), who: 'the main key' }];
}

/**
 * Interface section 4: a created category is one of "all available categories", for every key.
 * Lists the categories with each of `keys` (default the main key: the rate-limit key's budget is
 * the 429 checks', and data.round-trip judges every list it gets against every 201 at the end)
 * and requires every created value in each list, once, with the name and description its 201
 * returned. Returns the main key's list (for order).
 *
 * @example await expectListedByEveryKey(run, created) // throws CheckFailure naming the value and the key
 */
export async function expectListedByEveryKey(
  run: CheckRun,
  created: readonly CreatedValue[],
  keys = mainKeyView(run),
): Promise<unknown[]> {
  let mainItems: unknown[] = [];
  if (created.length === 0) return mainItems;
  for (const key of keys) {
    const listing = await run.send({
      operationId: 'listCategories',
      method: 'GET',
      path: '/categories',
      authorization: key.authorization,
      identity: key.identity,
    });
    const response = expectStatus(listing, 200, `a list by ${key.who}`);
    const items = Array.isArray(response.json) ? (response.json as unknown[]) : [];
    if (key.identity === 'main') mainItems = items;
    const problems = created.flatMap((value) => listProblem(value, items, listing, key.who));
    if (problems.length > 0) {
      throw new CheckFailure(
        `${problems.length} of ${created.length} created values are not in the list of ${key.who} as their 201 returned them: ${problems
          .slice(0, 3)
          .map((problem) => problem.detail)
          .join('; ')}`,
        problems.slice(0, 4).flatMap((problem) => [problem.created, problem.listed]),
      );
    }
  }
  return mainItems;
}

function listProblem(
  value: CreatedValue,
  items: readonly unknown[],
  listing: Exchange,
  who: string,
): { detail: string; created: Evidence; listed: Evidence }[] {
  const found = items.filter(
    (item): item is { id?: unknown; name?: unknown; description?: unknown } =>
      item !== null && typeof item === 'object' && idOf(item) === value.id,
  );
  const stored = { name: value.name, description: value.description };
  const problem = listingProblem(found, stored);
  if (problem === undefined) return [];
  const detail = `${value.label} (id ${value.id}, 201 ${JSON.stringify(stored)}) ${problem} for ${who}`;
  return [
    {
      detail,
      created: evidenceOf(value.exchange, `201 with id ${value.id}`),
      listed: evidenceOf(listing, `${items.length} items; id ${value.id} ${problem}`, { field: 'id' }),
    },
  ];
}

/**
 * The order a list shows categories created one after the other (the interface does not say:
 * open, INFO): `oldest first`, `newest first`, or `in another order`.
 *
 * @example listOrder([{ id: 3 }, { id: 2 }, { id: 1 }], [1, 2, 3]) // 'newest first'
 */
export function listOrder(items: readonly unknown[], createdInOrder: readonly ExactId[]): string {
  const positions = createdInOrder.map((id) =>
    items.findIndex((item) => item !== null && typeof item === 'object' && idOf(item) === id),
  );
  if (positions.some((position) => position < 0)) return 'without some of them';
  const ascending = positions.every((position, index) => index === 0 || position > positions[index - 1]!);
  const descending = positions.every((position, index) => index === 0 || position < positions[index - 1]!);
  return ascending ? 'oldest first' : descending ? 'newest first' : 'in another order';
}

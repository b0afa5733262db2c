import { type ExactId, idOf } from '../../spec/interface/exact-ids.js';
import { claimId, expectCreated } from '../lib/category-checks.js';
import { type CheckRun, defineArea } from '../lib/check.js';
import { CheckFailure, OverBudget } from '../lib/check-errors.js';
import { bodyExcerpt, type Exchange, evidenceOf } from '../lib/exchange.js';
import { expectStatus } from '../lib/expect-response.js';
import { sendOperation } from './main-key-requests.js';
import { callOf, createCategory, listCategories } from './operations.js';

/** Common page sizes of list endpoints; the list must hold more than the largest one checked (100: --thorough). */
const pageSizesCrossed = [10, 20, 25, 50];
const pageSizesOf = (thorough: boolean) => (thorough ? [...pageSizesCrossed, 100] : pageSizesCrossed);
const targetCountOf = (thorough: boolean) => Math.max(...pageSizesOf(thorough)) + 1;

/**
 * Interface section 4, listCategories: "all available categories" means all. The check creates
 * enough categories for the list to hold more than the common page sizes (10, 20, 25, 50; and 100
 * with --thorough), from what --create-budget has left after the other checks (bulkCreates), then checks that every category
 * the run created is listed, with the name and description it was created with. Runs after the
 * other creating checks, alone.
 */
export default defineArea('listCategories lists all (§4)', 'sequential', (check) => {
  check(
    {
      id: 'list.all',
      rule: '§4 listCategories',
      title: `every created category is listed, past page sizes ${pageSizesCrossed.join(', ')} (ids unique)`,
      operation: listCategories.label,
      operationId: listCategories.operationId,
      writes: true,
      maxCreates: (target) => targetCountOf(target.thorough),
      bulkCreates: true,
    },
    async (run) => {
      const before = await list(run.send.bind(run), run.bearer());
      const listedBefore = Array.isArray(before.json) ? before.json.length : 0;
      const wanted = categoriesWanted(run, listedBefore);
      const bodies = Array.from({ length: wanted }, (_, index) => ({
        name: run.categoryName(`all-${index + 1}`),
        description: `listed-all check ${index + 1} of ${wanted}`,
      }));
      const exchanges = await Promise.all(bodies.map((body) => sendOperation(run, createCategory, { json: body })));
      const sent = claimCreated(run, bodies, exchanges);
      const after = await list(run.send.bind(run), run.bearer());
      const items = Array.isArray(after.json)
        ? (after.json as { id?: unknown; name?: unknown; description?: unknown }[])
        : [];
      const byId = new Map(
        items.filter((item) => item !== null && typeof item === 'object').map((item) => [idOf(item), item]),
      );
      const runCreated = [...run.state.categoryIds.entries()]
        .filter(([, origin]) => origin.startsWith('returned by'))
        .map(([id]) => id);
      expectEveryCreatedListed({ sent, runCreated, items, byId, listing: after.exchange });
      expectListedUnaltered(sent, byId, after.exchange);
      run.note(
        `${wanted} created (budget ${run.target.createBudget}), ${items.length} listed (was ${listedBefore}); all ${runCreated.length} categories of this run listed`,
      );
    },
  );
});

/** A category this check created: what was sent, the id it got, and the exchange that shows it. */
interface SentCategory {
  id: ExactId;
  name: string;
  description: string;
  exchange: Exchange;
}

/** A listed item, as far as this check reads it. */
type ListedItem = { id?: unknown; name?: unknown; description?: unknown };

/**
 * How many categories to create: what is still missing to cross the largest page size, or OverBudget
 * when the run's creation budget leaves this check less.
 */
function categoriesWanted(run: CheckRun, listedBefore: number): number {
  // The categories the server holds are at least those listed and those it answered 201 to this run (a server
  // that lists only a first page shows fewer): only what is still missing to cross the largest page size is created.
  const createdByRun = run.state.exchanges.filter(
    (exchange) => exchange.operationId === createCategory.operationId && exchange.response?.status === 201,
  ).length;
  const held = Math.max(listedBefore, createdByRun);
  const wanted = Math.max(1, targetCountOf(run.target.thorough) - held);
  if (wanted > run.creationsLeft())
    throw new OverBudget(
      `crossing page size ${Math.max(...pageSizesOf(run.target.thorough))} needs ${wanted} more categories (${listedBefore} listed, ${createdByRun} created by this run); the run's creation budget leaves this check ${run.creationsLeft()} (--create-budget ${run.target.createBudget}): a higher --create-budget would check it`,
    );
  return wanted;
}

/** Each creation answered 201 with a new id, echoing its body; the ids are claimed for the run. */
function claimCreated(
  run: CheckRun,
  bodies: readonly { name: string; description: string }[],
  exchanges: readonly Exchange[],
): SentCategory[] {
  return exchanges.map((exchange, index) => {
    const body = bodies[index]!;
    const created = expectCreated(run.spec, exchange, body);
    claimId(run.state.categoryIds, created.id, `list.all #${index + 1}`, exchange);
    return { id: created.id, ...body, exchange };
  });
}

/** Every category this check and the run created is in the list ("all available categories" means all). */
function expectEveryCreatedListed(seen: {
  sent: readonly SentCategory[];
  runCreated: readonly ExactId[];
  items: readonly ListedItem[];
  byId: ReadonlyMap<unknown, ListedItem>;
  listing: Exchange;
}): void {
  const { sent, runCreated, items, byId, listing } = seen;
  const missing = sent.filter((entry) => !byId.has(entry.id));
  const missingOthers = runCreated.filter((id) => !byId.has(id) && !sent.some((entry) => entry.id === id));
  if (missing.length === 0 && missingOthers.length === 0) return;
  const ids = [...missing.map((entry) => entry.id), ...missingOthers];
  throw new CheckFailure(
    `GET /categories lists ${items.length} categories but not ${ids.length} that this run created (ids ${ids.slice(0, 8).join(', ')}${ids.length > 8 ? ', ...' : ''}); "all available categories" means all`,
    [
      ...(missing[0] ? [evidenceOf(missing[0].exchange, `created id ${missing[0].id}`)] : []),
      evidenceOf(listing, `${items.length} items, ${ids.length} created ones missing: ${bodyExcerpt(listing, 100)}`, {
        field: 'id',
      }),
    ],
  );
}

/** Each category this check created is listed with the name and description it was created with. */
function expectListedUnaltered(
  sent: readonly SentCategory[],
  byId: ReadonlyMap<unknown, ListedItem>,
  listing: Exchange,
): void {
  const altered = sent.filter(
    (entry) => byId.get(entry.id)?.name !== entry.name || byId.get(entry.id)?.description !== entry.description,
  );
  if (altered.length === 0) return;
  const first = altered[0]!;
  const item = byId.get(first.id)!;
  throw new CheckFailure(
    `${altered.length} listed categories differ from what was created: id ${first.id} listed as ${JSON.stringify({ name: item.name, description: item.description })}, created as ${JSON.stringify({ name: first.name, description: first.description })}`,
    [
      evidenceOf(
        listing,
        `item ${first.id}: name ${JSON.stringify(item.name)}, description ${JSON.stringify(item.description)}`,
        { field: item.name !== first.name ? 'name' : 'description' },
      ),
    ],
  );
}

async function list(
  send: (request: Parameters<import('../lib/check.js').CheckRun['send']>[0]) => Promise<Exchange>,
  authorization: string,
): Promise<{ exchange: Exchange; json: unknown }> {
  const exchange = await send({ ...callOf(listCategories), authorization, identity: 'main' });
  const response = expectStatus(exchange, 200, 'a valid key');
  if (!Array.isArray(response.json))
    throw new CheckFailure('the body is not a JSON array', [evidenceOf(exchange, `body ${bodyExcerpt(exchange)}`)]);
  return { exchange, json: response.json };
}

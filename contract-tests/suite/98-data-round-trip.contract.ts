import { listingProblem } from '../generate/round-trip.js';
import { defineArea } from '../lib/check.js';
import { CheckFailure } from '../lib/check-errors.js';
import { type Exchange, evidenceOf } from '../lib/exchange.js';
import { expectStatus } from '../lib/expect-response.js';
import { callOf, createCategory, listCategories } from './operations.js';

/**
 * Interface section 4: what was sent, what the 201 returned and what every later list shows are
 * one category. The creating checks compare what they sent with the 201; this one takes every 201
 * the main key received in the run and every list either key (the main key, --rate-limit-key)
 * received after it (one more list is fetched now, after all creation), and requires the category
 * in each: same id, same name,
 * same description (or none), listed once. A server that loses, alters, duplicates or caches
 * away a created category fails here, whichever check created it.
 */
interface Created {
  exchange: Exchange;
  id: number;
  name: unknown;
  description: unknown;
}

export default defineArea('Data round trip (§4)', 'sequential', (check) => {
  check(
    {
      id: 'data.round-trip',
      rule: '§4 listCategories',
      title:
        'every category the run created (201) is in every later list of either key, unchanged and once: same id, name and description',
      operation: listCategories.label,
      operationId: listCategories.operationId,
    },
    async (run) => {
      if (run.target.readOnly) return run.skip('read-only run: nothing was created');
      expectStatus(
        await run.send({ ...callOf(listCategories), authorization: run.bearer(), identity: 'main' }),
        200,
        'a valid key',
      );
      const created: Created[] = run.state.exchanges.flatMap((exchange) => {
        const response = exchange.response;
        if (
          exchange.identity !== 'main' ||
          exchange.operationId !== 'createCategory' ||
          response?.status !== 201 ||
          !response.hasJson
        )
          return [];
        const body = response.json as { id?: unknown; name?: unknown; description?: unknown } | null;
        return body !== null && typeof body === 'object' && typeof body.id === 'number'
          ? [{ exchange, id: body.id, name: body.name, description: body.description }]
          : [];
      });
      // Every key's lists: a category created by the main key is one of "all available categories" for the other key too.
      const lists = run.state.exchanges.filter(
        (exchange) =>
          exchange.identity !== 'anonymous' &&
          exchange.operationId === 'listCategories' &&
          exchange.response?.status === 200 &&
          Array.isArray(exchange.response.json) &&
          exchange.response.truncatedAtBytes === undefined,
      );
      if (created.length === 0) return run.skip('no category was created by the main key in this run');
      let comparisons = 0;
      for (const list of lists) {
        const items = list.response!.json as { id?: unknown; name?: unknown; description?: unknown }[];
        const byId = new Map<unknown, typeof items>();
        for (const item of items)
          if (item !== null && typeof item === 'object') byId.set(item.id, [...(byId.get(item.id) ?? []), item]);
        for (const category of created) {
          if (category.exchange.nextSeqAtAnswer === undefined || list.seq < category.exchange.nextSeqAtAnswer) continue;
          comparisons += 1;
          const found = byId.get(category.id) ?? [];
          const problem = listingProblem(found, category);
          if (problem !== undefined) {
            throw new CheckFailure(
              `category ${category.id}, created as ${JSON.stringify({ name: category.name, description: category.description })}, ${problem} in a list ${list.identity === 'main' ? 'the main key' : 'the other key (--rate-limit-key)'} fetched after its 201 (${items.length} items)`,
              [
                evidenceOf(category.exchange, `201 with id ${category.id}`),
                evidenceOf(list, `${items.length} items; id ${category.id} ${problem}`, { field: 'id' }),
              ],
            );
          }
        }
      }
      run.judged(lists.length);
      run.cases(comparisons);
      run.note(
        `${created.length} created categories checked in ${lists.length} later lists (${comparisons} comparisons)`,
      );
    },
  );

  check(
    {
      id: 'data.refused-not-stored',
      rule: '§4 createCategory.1',
      title:
        'a body refused with a 4xx (invalid, unauthenticated, wrong method) is not stored: no later list holds a category of that name (nothing half-applied)',
      operation: createCategory.label,
      operationId: createCategory.operationId,
    },
    async (run) => {
      if (run.target.readOnly) return run.skip('read-only run: nothing was sent to be refused');
      const refused = run.state.exchanges.flatMap((exchange) => {
        const status = exchange.response?.status ?? 0;
        // Every key's and no key's: a POST refused for its credentials must not be stored either; nor a PATCH refused as a method.
        const writing =
          (exchange.request.method === 'POST' && exchange.operationId === 'createCategory') ||
          exchange.operationId === 'methodNotAllowed';
        if (!writing || status < 400 || status >= 500 || status === 429) return [];
        const name = sentName(exchange.request.body);
        return name === undefined || !name.startsWith(run.target.namePrefix) ? [] : [{ exchange, name }];
      });
      // A name that some request did create (2xx) proves nothing about the refused ones that carried it too.
      const createdNames = new Set(
        run.state.exchanges
          .filter((exchange) => (exchange.response?.status ?? 0) >= 200 && (exchange.response?.status ?? 0) < 300)
          .map((exchange) => sentName(exchange.request.body)),
      );
      const last = [...run.state.exchanges]
        .reverse()
        .find(
          (exchange) =>
            exchange.identity === 'main' &&
            exchange.operationId === 'listCategories' &&
            exchange.response?.status === 200 &&
            Array.isArray(exchange.response.json) &&
            exchange.response.truncatedAtBytes === undefined,
        );
      if (refused.length === 0 || last === undefined)
        return run.skip('no refused body with a name, or no list to look in');
      const listed = new Set((last.response!.json as { name?: unknown }[]).map((item) => item?.name));
      const stored = refused.filter(
        ({ exchange, name }) =>
          listed.has(name) && !createdNames.has(name) && last.seq >= (exchange.nextSeqAtAnswer ?? Infinity),
      );
      run.judged(refused.length);
      if (stored.length > 0) {
        throw new CheckFailure(
          `${stored.length} of ${refused.length} refused bodies were stored anyway: ${stored
            .slice(0, 3)
            .map(({ exchange, name }) => `${JSON.stringify(name)} (refused with ${exchange.response!.status})`)
            .join('; ')}`,
          [
            evidenceOf(stored[0]!.exchange, `refused with ${stored[0]!.exchange.response!.status}`),
            evidenceOf(last, `lists a category named ${JSON.stringify(stored[0]!.name)}`, { field: 'name' }),
          ],
        );
      }
      run.note(`${refused.length} refused bodies, none stored`);
    },
  );
});

/** The `name` of a request body as sent, when it is JSON with a string name (bodies are kept whole up to 2,000 characters). */
function sentName(body: string | undefined): string | undefined {
  if (body === undefined) return undefined;
  try {
    const value = JSON.parse(body) as { name?: unknown } | null;
    return typeof value?.name === 'string' ? value.name : undefined;
  } catch {
    return undefined;
  }
}

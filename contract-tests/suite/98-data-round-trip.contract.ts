import { resourceRules } from '../../spec/interface/resource-sequences.js';
import { type CheckRun, defineArea } from '../lib/check.js';
import { CheckFailure } from '../lib/check-errors.js';
import { type Exchange, evidenceOf } from '../lib/exchange.js';
import { expectStatus } from '../lib/expect-response.js';
import type { RegisterCheck } from '../lib/register-check.js';
import { callOf, createCategory, listCategories } from './operations.js';

/**
 * Interface section 4: what was sent, what the 201 returned and what every later list shows are
 * one category. The creating checks compare what they sent with the 201; the catalogue's resource
 * rule `data.round-trip` (spec/interface/resource-sequences.ts) was fed every exchange of the run
 * as it came (contract-tests/lib/run-judge.ts), whatever check sent it: every 201 of either key,
 * and every later list of either key, the category in each once, with the same id, name and
 * description. Here one more list is fetched, after all creation, and the rule's record reported.
 * A server that loses, alters, duplicates or caches away a created category fails here, whichever
 * check created it and whichever check listed it.
 */
const [roundTrip] = resourceRules;
const maxEvidence = 3;

export default defineArea('Data round trip (§4)', 'sequential', (check) => {
  roundTripCheck(check);
  refusedNotStoredCheck(check);
});

/** One list after all creation, and the record of the catalogue's data.round-trip over the whole run. */
function roundTripCheck(check: RegisterCheck): void {
  check(
    {
      id: roundTrip.id,
      rule: roundTrip.rule,
      title: roundTrip.title,
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
      const record = run.state.judge.recordOf(roundTrip.id);
      if (record.comparisons === 0)
        return run.skip('no category was created by a key, or no list of a key was fetched after one, in this run');
      run.judged(record.judged.length);
      run.cases(record.comparisons);
      if (record.violations.length > 0) {
        const [first] = record.violations;
        throw new CheckFailure(
          `${record.violations.length} of ${record.comparisons} comparisons: ${first!.detail}, fetched by ${whose(first!.exchange)}`,
          record.violations
            .slice(0, maxEvidence)
            .flatMap((violation) => [
              evidenceOf(violation.before!, violation.beforeLabel ?? 'the 201'),
              evidenceOf(violation.exchange, violation.detail, { field: 'id' }),
            ]),
        );
      }
      run.note(
        `every created category checked in ${record.judged.length} later lists (${record.comparisons} comparisons)`,
      );
    },
  );
}

/** Every named body the run saw refused with a 4xx, looked for in the main key's last whole list. */
function refusedNotStoredCheck(check: RegisterCheck): void {
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
      const refused = refusedNamed(run);
      // A name that some request did create (2xx) proves nothing about the refused ones that carried it too.
      const createdNames = new Set(
        run.state.exchanges
          .filter((exchange) => (exchange.response?.status ?? 0) >= 200 && (exchange.response?.status ?? 0) < 300)
          .map((exchange) => sentName(exchange.request.body)),
      );
      const last = lastWholeList(run);
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
}

/** The run's writing requests refused with a 4xx whose body carried a name of this run. */
function refusedNamed(run: CheckRun): { exchange: Exchange; name: string }[] {
  return run.state.exchanges.flatMap((exchange) => {
    const status = exchange.response?.status ?? 0;
    // Every key's and no key's: a POST refused for its credentials must not be stored either; nor a PATCH refused as a method.
    const writing =
      (exchange.request.method === 'POST' && exchange.operationId === 'createCategory') ||
      exchange.operationId === 'methodNotAllowed';
    // A 429 included: a POST refused for the limit (rate.post-over-limit) must not be stored either.
    if (!writing || status < 400 || status >= 500) return [];
    const name = sentName(exchange.request.body);
    return name === undefined || !name.startsWith(run.target.namePrefix) ? [] : [{ exchange, name }];
  });
}

/** The main key's latest 200 list that was read whole. */
function lastWholeList(run: CheckRun): Exchange | undefined {
  return [...run.state.exchanges]
    .reverse()
    .find(
      (exchange) =>
        exchange.identity === 'main' &&
        exchange.operationId === 'listCategories' &&
        exchange.response?.status === 200 &&
        Array.isArray(exchange.response.json) &&
        exchange.response.truncatedAtBytes === undefined,
    );
}

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

/** Which key fetched a list, for the report. */
function whose(list: Exchange): string {
  return list.identity === 'main' ? 'the main key' : 'the other key (--rate-limit-key)';
}

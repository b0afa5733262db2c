import { stringifyJson } from '../../spec/interface/exact-ids.js';
import { OpenChoices, reportOpenChoices } from '../generate/open-choices.js';
import { claimId, expectCreated } from '../lib/category-checks.js';
import { type CheckRun, defineArea } from '../lib/check.js';
import { CheckFailure } from '../lib/check-errors.js';
import { type Evidence, type Exchange, evidenceOf } from '../lib/exchange.js';
import { expectError, expectErrorBody } from '../lib/expect-response.js';
import { callOf, createCategory } from './operations.js';

/**
 * Extra, duplicated and oddly spelled fields (issue 39). The interface's Category `id` is
 * "assigned by the service on creation", so a client-sent `id` must not become the category's id;
 * whether a body with it, or with a property the interface does not name, is refused (400) or
 * the property ignored is not shown (INFO). A body whose `name` is only spelled another way
 * (`Name`, `NAME`, ` name`, `name `) lacks `name`: 400 + Error (createCategory rule 1; JSON names
 * are compared exactly).
 */
const operation = { operation: createCategory.label, operationId: createCategory.operationId, writes: true };

const oddSpellings = ['Name', 'NAME', ' name', 'name '] as const;

function post(run: CheckRun, body: Record<string, unknown>): Promise<Exchange> {
  // An id taken beyond 2^53 is a bigint (spec/interface/exact-ids.ts), sent as its exact digits.
  const sent = Object.values(body).some((value) => typeof value === 'bigint')
    ? { rawBody: stringifyJson(body) }
    : { json: body };
  return run.send({ ...callOf(createCategory), authorization: run.bearer(), identity: 'main', ...sent });
}

/** The answer to a body the server may refuse or take: what the report calls it, and how a 2xx is judged. */
interface OpenAnswer {
  exchange: Exchange;
  what: string;
  created: () => void;
}

/** A 2xx is judged by `created`; a 400 + Error is the server's open choice, recorded. */
function createdOrRefused(run: CheckRun, choices: OpenChoices, { exchange, what, created }: OpenAnswer): void {
  if (exchange.response?.status === 400) {
    expectErrorBody(run.spec, exchange);
    choices.add(what, 'refused with 400');
    return;
  }
  created();
  choices.add(what, 'ignored (201)');
}

export default defineArea('Generated fields (§2, §4)', 'sequential', (check) => {
  check(
    {
      id: 'values.extra-fields',
      rule: '§4 createCategory.2',
      title:
        'a client-sent id never becomes the id (assigned by the service); extra and doubled properties: refused (400) or ignored, information',
      ...operation,
      maxCreates: () => 3,
    },
    async (run) => {
      const choices = new OpenChoices();
      const failures: Evidence[] = [];
      const taken = [...run.state.categoryIds.keys()][0] ?? 1;
      const withId = { name: run.categoryName('with-id'), id: taken };
      const first = await post(run, withId);
      createdOrRefused(run, choices, {
        exchange: first,
        what: 'an id in the body',
        created: () => {
          const created = expectCreated(run.spec, first, withId);
          if (created.id === taken)
            failures.push(evidenceOf(first, `the id sent (${taken}, already taken) became the category's id`));
          else claimId(run.state.categoryIds, created.id, 'values.extra-fields', first);
        },
      });
      const name = run.categoryName('extra');
      // Parsed, so that "__proto__" is a property of its own (a literal would set the prototype instead).
      const extra = JSON.parse(
        `{"name":${JSON.stringify(name)},"contractTestExtra":true,"constructor":"x","__proto__":{"contractTestPolluted":true}}`,
      ) as Record<string, unknown>;
      const second = await post(run, extra);
      createdOrRefused(run, choices, {
        exchange: second,
        what: 'unknown properties',
        created: () => expectCreated(run.spec, second, { name }),
      });
      const doubled = { name: run.categoryName('doubled'), Name: 'contract-test-other-spelling' };
      const third = await post(run, doubled);
      createdOrRefused(run, choices, {
        exchange: third,
        what: 'name next to Name',
        created: () => expectCreated(run.spec, third, { name: doubled.name }),
      });
      run.cases(3);
      if (failures.length > 0)
        throw new CheckFailure('the client chose the id of a created category (§2: assigned by the service)', failures);
      reportOpenChoices(run, choices, 'extra properties');
    },
  );

  check(
    {
      id: 'values.odd-key-spellings',
      rule: '§4 createCategory.1',
      title: 'name only as Name, NAME, " name" or "name " (name absent) -> 400 + Error',
      ...operation,
      maxCreates: () => oddSpellings.length,
    },
    async (run) => {
      for (const spelling of oddSpellings) {
        const exchange = await post(run, { [spelling]: run.categoryName('odd-key') });
        try {
          expectError(run.spec, exchange, 400, `a body with ${JSON.stringify(spelling)} and no name`);
        } catch (error) {
          if (!(error instanceof CheckFailure)) throw error;
          throw new CheckFailure(`${JSON.stringify(spelling)} was read as name: ${error.message}`, error.evidence);
        }
      }
      run.cases(oddSpellings.length);
    },
  );
});

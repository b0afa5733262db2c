import { OpenChoices, reportOpenChoices } from '../generate/open-choices.js';
import { type CreatedValue, expectListedByEveryKey, listOrder } from '../generate/round-trip.js';
import { classSweep, generateValues, sameNamePairs, valueClasses, wholeValuePairs } from '../generate/value-grammar.js';
import { claimId, expectCreatedOrOpen, recordId } from '../lib/category-checks.js';
import { type CheckRun, defineArea } from '../lib/check.js';
import { CheckFailure } from '../lib/check-errors.js';
import type { ContractTarget } from '../lib/contract-target.js';
import { type Exchange, evidenceOf } from '../lib/exchange.js';
import { expectErrorBody } from '../lib/expect-response.js';
import type { RegisterCheck } from '../lib/register-check.js';
import { sendOperation } from './main-key-requests.js';
import { createCategory } from './operations.js';

/**
 * Generated values (issue 39): every class of the value grammar (generate/value-grammar.ts) is
 * sent as a name and a description in every run; the --seed picks the variants. Each value is
 * judged on its 201 (echoed, or changed only as an open choice: trimmed, normalised), then in the
 * list of the key that made it, and at the end (data.round-trip) in every list the other key
 * (--rate-limit-key) received after the 201.
 */
const operation = { operation: createCategory.label, operationId: createCategory.operationId, writes: true };

/** Variants per class: one in a default run, all of them with --thorough. */
function variantsPerClass(target: Pick<ContractTarget, 'thorough'>): number {
  return target.thorough ? Number.MAX_SAFE_INTEGER : 1;
}

/** Creations sent at once by values.parallel-burst: past the default --concurrency, so some wait for a slot. */
const burstSize = 6;

function valuesOf(run: CheckRun) {
  return generateValues(run.categoryName('v'), run.target.seed, variantsPerClass(run.target));
}

function create(run: CheckRun, body: Record<string, unknown>): Promise<Exchange> {
  return sendOperation(run, createCategory, { json: body });
}

/** One value to create, and how the report names it. */
interface ValueToCreate {
  label: string;
  sent: { name: string; description: string };
}

/**
 * Creates each value, one after the other (the list's order is then the order of creation, judged by
 * values.list-order), judges each 201, then finds every created value unchanged in the lists of every
 * key. Answers against the interface fail the check together and open choices are reported, both named
 * by `what`; `origin` names the check in the run's record of ids.
 */
async function createEachAndFindListed(
  run: CheckRun,
  values: readonly ValueToCreate[],
  names: { origin: string; what: string; note?: (created: number) => string },
): Promise<void> {
  const choices = new OpenChoices();
  const created: CreatedValue[] = [];
  const failures: { detail: string; exchange: Exchange }[] = [];
  for (const { label, sent } of values) {
    const exchange = await create(run, sent);
    try {
      const stored = expectCreatedOrOpen(run, exchange, sent, choices);
      if (stored === undefined) continue;
      recordId(run.state.categoryIds, stored.id, `${names.origin} ${label}`);
      const body = exchange.response?.json as { description?: unknown };
      created.push({ label, exchange, id: stored.id, name: stored.name, description: body.description });
    } catch (error) {
      if (!(error instanceof CheckFailure)) throw error;
      failures.push({ detail: `${label}: ${error.message}`, exchange });
    }
  }
  run.cases(created.length + failures.length);
  if (failures.length > 0) {
    throw new CheckFailure(
      `${failures.length} ${names.what} answered against the interface: ${failures
        .slice(0, 4)
        .map((failure) => failure.detail)
        .join('; ')}`,
      failures.slice(0, 6).map((failure) => evidenceOf(failure.exchange, failure.detail)),
    );
  }
  await expectListedByEveryKey(run, created);
  if (names.note !== undefined) run.note(names.note(created.length));
  reportOpenChoices(run, choices, names.what);
}

export default defineArea('Generated values (§4, issue 39)', 'concurrent', (check) => {
  checkValueGrammar(check);
  checkWholeValues(check);
  checkSameNameAgain(check);
  checkParallelBurst(check);
  checkListOrder(check);
});

/** Every class of the value grammar, the seed's pick as the name and the whole class in the description. */
function checkValueGrammar(check: RegisterCheck): void {
  check(
    {
      id: 'values.grammar',
      rule: '§4 createCategory.2',
      title:
        'every class of values that breaks servers (quotes, backslashes, HTML, SQL, whitespace, controls, astral, combining, RTL, keywords, numbers) -> 201 echoing it, then listed unchanged',
      ...operation,
      maxCreates: (target) =>
        valueClasses.reduce((total, entry) => total + Math.min(entry.variants.length, variantsPerClass(target)), 0),
    },
    async (run) => {
      const values = valuesOf(run).map((value) => {
        // The description holds the whole class (when its variants may stand inside a value): all of it every run.
        const prefix = run.categoryName(`v-${value.classId}`);
        return {
          label: `${value.classId}: ${JSON.stringify(value.variant)}`,
          sent: { name: value.value, description: classSweep(prefix, value.classId) ?? `${prefix} ${value.variant}` },
        };
      });
      await createEachAndFindListed(run, values, {
        origin: 'values.grammar',
        what: 'generated values',
        note: (created) => `seed ${run.target.seed}: ${created} values created and listed unchanged`,
      });
    },
  );
}

/** Keywords and numeric-looking strings as a whole name and as a whole description. */
function checkWholeValues(check: RegisterCheck): void {
  check(
    {
      id: 'values.whole-values',
      rule: '§4 createCategory.2',
      title:
        'every keyword and numeric-looking string as a whole name and description (null, true, false, constructor, 007, 1e3, ...) -> 201 echoing it as a string, then listed unchanged',
      ...operation,
      // Each value once as the whole name and once as the whole description, the other field carrying the
      // run's prefix, so that whatever the kit leaves on a shared server is found by its prefix.
      maxCreates: () => wholeValuePairs().length * 2,
    },
    async (run) => {
      const values = wholeValuePairs()
        .flatMap((pair, index) => [
          { classId: pair.classId, name: pair.name, description: run.categoryName(`whole-${index}-name`) },
          {
            classId: pair.classId,
            name: run.categoryName(`whole-${index}-description`),
            description: pair.description,
          },
        ])
        .map(({ classId, name, description }) => ({
          label: `${classId}: ${JSON.stringify(name)} and ${JSON.stringify(description)}`,
          sent: { name, description },
        }));
      await createEachAndFindListed(run, values, {
        origin: 'values.whole-values',
        what: 'whole values',
      });
    },
  );
}

/** A name created twice, or again up to case, accent or a trailing space: a new id each time. */
function checkSameNameAgain(check: RegisterCheck): void {
  check(
    {
      id: 'values.same-name-again',
      rule: '§4 createCategory.2',
      title:
        'a name created again, or again in another letter case, accent or with a trailing space -> 201 with a new id each time (or 400: information), both listed',
      ...operation,
      maxCreates: () => 2 * sameNamePairs('').length,
    },
    async (run) => {
      const choices = new OpenChoices();
      const created: CreatedValue[] = [];
      const refused: string[] = [];
      const pairs = sameNamePairs(run.categoryName('again'));
      for (const [round, field] of [
        [0, 'first'],
        [1, 'second'],
      ] as const) {
        for (const pair of pairs) {
          const sent = { name: pair[field] };
          const exchange = await create(run, sent);
          const label = `${pair.label} (${round === 0 ? 'first' : 'again'}): ${JSON.stringify(sent.name)}`;
          if (round === 1 && exchange.response?.status === 400) {
            // Whether a name the store holds (or one equal to it up to case or accents) is an invalid value is not shown.
            expectErrorBody(run.spec, exchange);
            refused.push(pair.label);
            continue;
          }
          const stored = expectCreatedOrOpen(run, exchange, sent, choices);
          if (stored === undefined) continue;
          claimId(run.state.categoryIds, stored.id, `values.same-name-again ${label}`, exchange);
          created.push({ label, exchange, id: stored.id, name: stored.name, description: undefined });
        }
      }
      run.cases(2 * pairs.length);
      await expectListedByEveryKey(run, created);
      if (refused.length > 0)
        run.info(
          `the server refuses (400) a name it already holds, for: ${refused.join(', ')} (the interface does not say)`,
        );
      reportOpenChoices(run, choices, 'names created again');
    },
  );
}

/** Generated values created at once: each its own id, each listed once. */
function checkParallelBurst(check: RegisterCheck): void {
  check(
    {
      id: 'values.parallel-burst',
      rule: '§4 createCategory.2',
      title: `${burstSize} generated values created at once (bounded by --concurrency): each 201 with its own id, each listed once`,
      ...operation,
      maxCreates: () => burstSize,
    },
    async (run) => {
      // Values of other classes than values.grammar's picks (the seed shifted), all sent together.
      const values = generateValues(run.categoryName('burst'), run.target.seed + 1, 1).slice(0, burstSize);
      // The description carries the run's prefix: a value placed around or instead of it is still found.
      const sent = values.map((value, index) => ({
        name: value.value,
        description: run.categoryName(`burst-${index}`),
      }));
      const exchanges = await Promise.all(sent.map((body) => create(run, body)));
      const choices = new OpenChoices();
      const created: CreatedValue[] = [];
      for (const [index, exchange] of exchanges.entries()) {
        const stored = expectCreatedOrOpen(run, exchange, sent[index]!, choices);
        if (stored === undefined) continue;
        claimId(run.state.categoryIds, stored.id, `values.parallel-burst #${index + 1}`, exchange);
        const description = (exchange.response?.json as { description?: unknown } | undefined)?.description;
        created.push({ label: values[index]!.classId, exchange, id: stored.id, name: stored.name, description });
      }
      run.cases(exchanges.length);
      await expectListedByEveryKey(run, created);
      reportOpenChoices(run, choices, 'values sent at once');
    },
  );
}

/** The order of the list: not shown by the interface, so information. */
function checkListOrder(check: RegisterCheck): void {
  check(
    {
      id: 'values.list-order',
      rule: '§4 listCategories',
      title: 'the order of the list (not shown by the interface: information)',
      ...operation,
      maxCreates: () => 3,
    },
    async (run) => {
      const created: CreatedValue[] = [];
      for (const index of [1, 2, 3]) {
        const sent = { name: run.categoryName(`order-${index}`) };
        const exchange = await create(run, sent);
        const stored = expectCreatedOrOpen(run, exchange, sent, new OpenChoices());
        if (stored === undefined) return run.skip(`the server refused ${JSON.stringify(sent.name)}: no order to see`);
        created.push({ label: sent.name, exchange, id: stored.id, name: stored.name, description: undefined });
      }
      const items = await expectListedByEveryKey(run, created);
      const order = listOrder(
        items,
        created.map((value) => value.id),
      );
      run.info(`the interface does not say in which order categories are listed; this server lists them ${order}`);
    },
  );
}

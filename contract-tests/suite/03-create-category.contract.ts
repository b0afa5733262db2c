import fc from 'fast-check';
import { idOf } from '../../spec/interface/exact-ids.js';
import { OpenChoices, reportOpenChoices } from '../generate/open-choices.js';
import { claimId, expectCreated, expectCreatedOrOpen, recordId } from '../lib/category-checks.js';
import { type CheckRun, defineArea } from '../lib/check.js';
import { CheckFailure } from '../lib/check-errors.js';
import { bodyExcerpt, type Exchange, evidenceOf } from '../lib/exchange.js';
import { expectStatus } from '../lib/expect-response.js';
import { assertProperty } from '../lib/property-check.js';
import type { RegisterCheck } from '../lib/register-check.js';
import { sendOperation } from './main-key-requests.js';
import { createCategory, listCategories } from './operations.js';

/**
 * Interface section 4, createCategory rule 2: a valid NewCategory is answered 201 with the created
 * Category and a unique id. Every name starts with `contract-test-<runId>` because the interface
 * has no delete: whoever runs this against a shared server can find what it left behind.
 */
const operation = { operation: createCategory.label, operationId: createCategory.operationId, writes: true };

/** A third of the property runs: every generated body is created, and creations are what staging servers keep. */
function propertyBodies(propertyRuns: number): number {
  return Math.max(1, Math.ceil(propertyRuns / 3));
}

function create(run: CheckRun, body: { name: string; description?: string }): Promise<Exchange> {
  return sendOperation(run, createCategory, { json: body });
}

export default defineArea('createCategory (§4)', 'concurrent', (check) => {
  checkSingleCreations(check);
  checkUniqueIds(check);
  checkCreatedIsListed(check);
  checkGeneratedBodies(check);
});

/** One creation with a description and one without: 201 echoing what was sent. */
function checkSingleCreations(check: RegisterCheck): void {
  const creations = [
    {
      id: 'create.ok',
      title: '201 + Category echoing name and description, integer id',
      body: (run: CheckRun) => ({
        name: run.categoryName('full'),
        description: `Created by petstore-contract run ${run.target.runId}`,
      }),
    },
    {
      id: 'create.name-only',
      title: 'name only (description is optional) -> 201 + Category',
      body: (run: CheckRun) => ({ name: run.categoryName('name-only') }),
    },
  ];
  for (const creation of creations) {
    check(
      { id: creation.id, rule: '§4 createCategory.2', title: creation.title, ...operation, maxCreates: () => 1 },
      async (run) => {
        const sent = creation.body(run);
        const exchange = await create(run, sent);
        const created = expectCreated(run.spec, exchange, sent);
        recordId(run.state.categoryIds, created.id, creation.id);
      },
    );
  }
}

/** Ids unique across creations sent one after the other and at once. */
function checkUniqueIds(check: RegisterCheck): void {
  check(
    {
      id: 'create.unique-ids-sequential',
      rule: '§4 createCategory.2',
      title: 'ids unique across 3 sequential creations',
      ...operation,
      maxCreates: () => 3,
    },
    async (run) => {
      for (let index = 1; index <= 3; index += 1) {
        const sent = { name: run.categoryName(`sequential-${index}`) };
        const exchange = await create(run, sent);
        const created = expectCreated(run.spec, exchange, sent, { echo: false });
        claimId(run.state.categoryIds, created.id, `create.unique-ids-sequential #${index}`, exchange);
      }
    },
  );

  check(
    {
      id: 'create.unique-ids-parallel',
      rule: '§4 createCategory.2',
      title: 'ids unique across 3 parallel creations',
      ...operation,
      maxCreates: () => 3,
    },
    async (run) => {
      const bodies = [1, 2, 3].map((index) => ({ name: run.categoryName(`parallel-${index}`) }));
      const exchanges = await Promise.all(bodies.map((body) => create(run, body)));
      exchanges.forEach((exchange, index) => {
        const created = expectCreated(run.spec, exchange, bodies[index]!, { echo: false });
        claimId(run.state.categoryIds, created.id, `create.unique-ids-parallel #${index + 1}`, exchange);
      });
    },
  );
}

/** A created category is in the list, under the name it was created with. */
function checkCreatedIsListed(check: RegisterCheck): void {
  check(
    {
      id: 'create.listed',
      rule: '§4 listCategories',
      title: 'a created category appears in the list',
      ...operation,
      maxCreates: () => 1,
    },
    async (run) => {
      const sent = { name: run.categoryName('listed'), description: 'Must appear in GET /categories' };
      const creation = await create(run, sent);
      const created = expectCreated(run.spec, creation, sent, { echo: false });
      recordId(run.state.categoryIds, created.id, 'create.listed');
      const listing = await sendOperation(run, listCategories);
      const response = expectStatus(listing, 200, 'a valid key');
      const items = Array.isArray(response.json) ? (response.json as { id?: unknown; name?: unknown }[]) : [];
      const found = items.find((item) => item !== null && typeof item === 'object' && idOf(item) === created.id);
      if (found === undefined) {
        throw new CheckFailure(
          `category ${created.id} (${sent.name}) was created but GET /categories does not list it`,
          [
            evidenceOf(creation, `created id ${created.id}`),
            evidenceOf(listing, `${items.length} items, none with id ${created.id}: ${bodyExcerpt(listing)}`, {
              field: 'id',
            }),
          ],
        );
      }
      if (found.name !== sent.name) {
        throw new CheckFailure(
          `category ${created.id} is listed with name ${JSON.stringify(found.name)}, created as ${JSON.stringify(sent.name)}`,
          [evidenceOf(listing, `item ${created.id} has name ${JSON.stringify(found.name)}`, { field: 'name' })],
        );
      }
    },
  );
}

/** Generated valid bodies (fast-check, seeded) are created and echoed, or changed only as an open choice. */
function checkGeneratedBodies(check: RegisterCheck): void {
  check(
    {
      id: 'create.property',
      rule: '§4 createCategory.2',
      title: 'generated valid NewCategory bodies -> 201 echoing them (fast-check)',
      ...operation,
      maxCreates: (target) => propertyBodies(target.propertyRuns),
    },
    async (run) => {
      // Names and descriptions with any unicode, bounded in size: the interface shows no length limits.
      const bodies = fc.record(
        {
          suffix: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 24 }),
          description: fc.string({ unit: 'grapheme', maxLength: 60 }),
        },
        { requiredKeys: ['suffix'] },
      );
      const runs = propertyBodies(run.target.propertyRuns);
      const choices = new OpenChoices();
      let index = 0;
      await assertProperty(run, bodies, runs, async ({ suffix, description }) => {
        index += 1;
        const sent = {
          name: `${run.categoryName(`generated-${index}`)}-${suffix}`,
          ...(description === undefined ? {} : { description }),
        };
        const exchange = await create(run, sent);
        const created = expectCreatedOrOpen(run, exchange, sent, choices);
        if (created !== undefined) recordId(run.state.categoryIds, created.id, `create.property #${index}`);
      });
      run.note(`seed ${run.target.seed}, ${runs} runs`);
      reportOpenChoices(run, choices, 'generated names and descriptions');
    },
  );
}

import { defineArea } from '../lib/check.js';
import { CheckFailure } from '../lib/check-errors.js';
import { expectError } from '../lib/expect-response.js';
import { invalidNewCategories } from '../lib/invalid-bodies.js';
import { assertProperty } from '../lib/property-check.js';
import { callOf, createCategory } from './operations.js';

/**
 * Interface section 4, createCategory rule 1: a missing body, a body without `name`, or one with
 * invalid values is answered 400 with an Error body. Bodies that a broken server might accept
 * still carry a `contract-test-<runId>` name where they have one.
 */
const operation = { operation: createCategory.label, operationId: createCategory.operationId, writes: true };

export default defineArea('Validation (§4 createCategory.1)', 'concurrent', (check) => {
  check(
    {
      id: 'validation.missing-body',
      rule: '§4 createCategory.1',
      title: 'missing body -> 400 + Error',
      ...operation,
      maxCreates: () => 1,
    },
    async (run) => {
      const exchange = await run.send({
        ...callOf(createCategory),
        authorization: run.bearer(),
        identity: 'main',
        contentType: 'application/json',
      });
      expectError(run.spec, exchange, 400, 'a POST without a body');
    },
  );

  check(
    {
      id: 'validation.malformed-json',
      rule: '§4 createCategory.1',
      title: 'malformed JSON -> 400 + Error',
      ...operation,
      maxCreates: () => 1,
    },
    async (run) => {
      // Prism's proxy cannot forward a body it cannot parse (it answers itself), so this one goes straight to the server.
      const exchange = await run.send({
        ...callOf(createCategory),
        authorization: run.bearer(),
        identity: 'main',
        rawBody: `{"name": "${run.categoryName('malformed')}",`,
        bypassPrism: true,
      });
      expectError(run.spec, exchange, 400, 'a body that is not valid JSON');
    },
  );

  check(
    {
      id: 'validation.missing-name',
      rule: '§4 createCategory.1',
      title: 'missing name -> 400 + Error',
      ...operation,
      maxCreates: () => 1,
    },
    async (run) => {
      const exchange = await run.send({
        ...callOf(createCategory),
        authorization: run.bearer(),
        identity: 'main',
        json: { description: 'A NewCategory without a name' },
      });
      expectError(run.spec, exchange, 400, 'a body without name');
    },
  );

  check(
    {
      id: 'validation.wrong-types',
      rule: '§4 createCategory.1',
      title: 'values of the wrong type -> 400 + Error (fast-check)',
      ...operation,
      maxCreates: (target) => target.propertyRuns,
    },
    async (run) => {
      await assertProperty(
        run,
        invalidNewCategories(run.categoryName('wrong-types')),
        run.target.propertyRuns,
        async ({ body, why }) => {
          const exchange = await run.send({
            ...callOf(createCategory),
            authorization: run.bearer(),
            identity: 'main',
            json: body,
          });
          try {
            expectError(run.spec, exchange, 400, why);
          } catch (error) {
            if (error instanceof CheckFailure) throw new CheckFailure(`${why}: ${error.message}`, error.evidence);
            throw error;
          }
        },
      );
      run.note(`seed ${run.target.seed}, ${run.target.propertyRuns} runs`);
    },
  );
});

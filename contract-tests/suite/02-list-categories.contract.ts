import { type ExactId, idOf } from '../../spec/interface/exact-ids.js';
import { describeIssues } from '../../spec/interface/spec-model.js';
import { defineArea } from '../lib/check.js';
import { CheckFailure } from '../lib/check-errors.js';
import { bodyExcerpt, evidenceOf } from '../lib/exchange.js';
import { expectStatus } from '../lib/expect-response.js';
import { callOf, listCategories } from './operations.js';

/** Interface section 4, listCategories: 200 with a JSON array of Category objects. */
export default defineArea('listCategories (§4)', 'concurrent', (check) => {
  check(
    {
      id: 'list.ok',
      rule: '§4 listCategories',
      title: '200 + JSON array of valid Category',
      operation: listCategories.label,
      operationId: listCategories.operationId,
    },
    async (run) => {
      const exchange = await run.send({ ...callOf(listCategories), authorization: run.bearer(), identity: 'main' });
      const response = expectStatus(exchange, 200, 'a valid key');
      if (!response.hasJson || !Array.isArray(response.json)) {
        throw new CheckFailure('the body is not a JSON array', [evidenceOf(exchange, `body ${bodyExcerpt(exchange)}`)]);
      }
      const validator = run.spec.operations.get(listCategories.operationId)?.responses.get('200')?.validator;
      if (validator === undefined) throw new CheckFailure('the spec declares no 200 body schema for listCategories');
      const result = validator.safeParse(response.json);
      if (!result.success) {
        const issues = describeIssues(result.error.issues);
        throw new CheckFailure(`not every item is a valid Category: ${issues.join('; ')}`, [
          evidenceOf(exchange, issues.join('; '), { field: result.error.issues[0]?.path.join('.') ?? '(body)' }),
        ]);
      }
      for (const item of response.json as { id: number }[]) {
        const id = idOf(item) as ExactId;
        if (!run.state.categoryIds.has(id)) run.state.categoryIds.set(id, 'listed before this run created anything');
      }
      run.note(`${response.json.length} categories listed`);
    },
  );
});

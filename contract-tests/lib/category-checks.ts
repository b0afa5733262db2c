import { describeIssues, type SpecModel } from '../../spec/interface/spec-model.js';
import { CheckFailure } from './check-errors.js';
import { bodyExcerpt, type Exchange, evidenceOf } from './exchange.js';
import { expectStatus } from './expect-response.js';

/**
 * A created category as the interface promises it: 201, a body valid against the spec's 201
 * schema (a Category with an integer id) and, unless `echo` is false, `name` and `description`
 * echoed as sent. (Checks about something else, such as unique ids, pass `echo: false` so that
 * each failure is reported once, by the check whose rule it breaks.)
 *
 * @example const created = expectCreated(run.spec, exchange, { name: 'contract-test-ab12-dog' });
 */
export function expectCreated(
  spec: SpecModel,
  exchange: Exchange,
  sent: { name: string; description?: string },
  options: { echo?: boolean } = {},
): { id: number; name: string } {
  const response = expectStatus(exchange, 201, 'a valid NewCategory');
  const validator = spec.operations.get('createCategory')?.responses.get('201')?.validator;
  if (validator === undefined) throw new CheckFailure('the spec declares no 201 body schema for createCategory');
  if (!response.hasJson)
    throw new CheckFailure('the 201 body is not JSON', [evidenceOf(exchange, `body ${bodyExcerpt(exchange)}`)]);
  const result = validator.safeParse(response.json);
  if (!result.success) {
    const issues = describeIssues(result.error.issues);
    throw new CheckFailure(`the 201 body is not a valid Category: ${issues.join('; ')}`, [
      evidenceOf(exchange, `${issues.join('; ')}; body ${bodyExcerpt(exchange)}`, {
        field: String(result.error.issues[0]?.path.join('.') || '(body)'),
      }),
    ]);
  }
  const body = response.json as { id: number; name: string; description?: unknown };
  if (options.echo === false) return { id: body.id, name: body.name };
  if (body.name !== sent.name) {
    throw new CheckFailure(`name not echoed: sent ${JSON.stringify(sent.name)}, got ${JSON.stringify(body.name)}`, [
      evidenceOf(exchange, `name is ${JSON.stringify(body.name)}, sent ${JSON.stringify(sent.name)}`, {
        field: 'name',
      }),
    ]);
  }
  if (sent.description !== undefined && body.description !== sent.description) {
    throw new CheckFailure(
      `description not echoed: sent ${JSON.stringify(sent.description)}, got ${JSON.stringify(body.description)}`,
      [
        evidenceOf(
          exchange,
          `description is ${JSON.stringify(body.description)}, sent ${JSON.stringify(sent.description)}`,
          { field: 'description' },
        ),
      ],
    );
  }
  return { id: body.id, name: body.name };
}

/**
 * Records the id of a created category and fails when the service handed out an id it had
 * already used (interface section 4, createCategory rule 2: "the returned id is unique").
 *
 * @example claimId(run.state.categoryIds, created.id, 'create.ok', exchange)
 */
export function claimId(ids: Map<number, string>, id: number, owner: string, exchange: Exchange): void {
  const previous = ids.get(id);
  if (previous !== undefined) {
    throw new CheckFailure(`id ${id} is not unique: it was already ${previous}`, [
      evidenceOf(exchange, `returned id ${id}, already ${previous}`, { field: 'id' }),
    ]);
  }
  ids.set(id, `returned by ${owner}`);
}

/** Records the id of a created category without judging it (the uniqueness checks judge). */
export function recordId(ids: Map<number, string>, id: number, owner: string): void {
  if (!ids.has(id)) ids.set(id, `returned by ${owner}`);
}

import { type ExactId, idOf } from '../../spec/interface/exact-ids.js';
import { describeIssues, type SpecModel } from '../../spec/interface/spec-model.js';
import { judgeEcho, type OpenChoices, openRefusal } from '../generate/open-choices.js';
import { CheckFailure } from './check-errors.js';
import { bodyExcerpt, type Exchange, evidenceOf } from './exchange.js';
import { expectErrorBody, expectStatus } from './expect-response.js';
import type { RunState } from './run-state.js';

/**
 * A created category as the interface promises it: 201, a body valid against the spec's 201
 * schema (a Category with an integer id) and, unless `echo` is false, `name` and `description`
 * echoed as sent. (Checks about something else, such as unique ids, pass `echo: false` so that
 * each failure is reported once, by the check whose rule it breaks.) A value the server trimmed
 * or normalised is no failure (open, see generate/open-choices.ts); `choices` records it for an INFO line.
 *
 * @example const created = expectCreated(run.spec, exchange, { name: 'contract-test-ab12-dog' });
 */
export function expectCreated(
  spec: SpecModel,
  exchange: Exchange,
  sent: { name: string; description?: string },
  options: { echo?: boolean; choices?: OpenChoices } = {},
): { id: ExactId; name: string } {
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
  // The schema said `id` is an integer: idOf gives it exactly, also beyond 2^53 (spec/interface/exact-ids.ts).
  const id = idOf(body) as ExactId;
  if (options.echo === false) return { id, name: body.name };
  expectEchoed(exchange, { field: 'name', sent: sent.name, got: body.name }, options.choices);
  if (sent.description !== undefined)
    expectEchoed(exchange, { field: 'description', sent: sent.description, got: body.description }, options.choices);
  return { id, name: body.name };
}

/**
 * Like `expectCreated`, but a 400 + Error that a choice the interface leaves open explains (a
 * blank value refused, a length limit) is recorded in `choices` and gives undefined instead of
 * failing: for checks whose bodies are valid but may be blank or long.
 *
 * @example const created = expectCreatedOrOpen(run, exchange, sent, choices); if (created) ...
 */
export function expectCreatedOrOpen(
  run: { spec: SpecModel; state: Pick<RunState, 'lengthLimits'> },
  exchange: Exchange,
  sent: { name: string; description?: string },
  choices: OpenChoices,
): { id: ExactId; name: string } | undefined {
  const refusal = exchange.response?.status === 400 ? openRefusal(sent, run.state.lengthLimits) : undefined;
  if (refusal === undefined) return expectCreated(run.spec, exchange, sent, { choices });
  expectErrorBody(run.spec, exchange);
  choices.add(refusal.field, refusal.choice);
  return undefined;
}

/**
 * A string field of a 201 is what was sent, or what an open choice of the server makes of it
 * (trimmed, another Unicode normal form: recorded in `choices` for the check's INFO line).
 */
/** A string field of a created resource: what was sent, and what came back. */
interface EchoedField {
  field: string;
  sent: string;
  got: unknown;
}

function expectEchoed(exchange: Exchange, { field, sent, got }: EchoedField, choices?: OpenChoices): void {
  const verdict = judgeEcho(sent, got);
  if (verdict.kind === 'open') choices?.add(field, verdict.choice);
  if (verdict.kind !== 'altered') return;
  throw new CheckFailure(`${field} not echoed: sent ${JSON.stringify(sent)}, got ${JSON.stringify(got)}`, [
    evidenceOf(exchange, `${field} is ${JSON.stringify(got)}, sent ${JSON.stringify(sent)}`, { field }),
  ]);
}

/**
 * Records the id of a created category and fails when the service handed out an id it had
 * already used (interface section 4, createCategory rule 2: "the returned id is unique").
 *
 * @example claimId(run.state.categoryIds, created.id, 'create.ok', exchange)
 */
export function claimId(ids: Map<ExactId, string>, id: ExactId, owner: string, exchange: Exchange): void {
  const previous = ids.get(id);
  if (previous !== undefined) {
    throw new CheckFailure(`id ${id} is not unique: it was already ${previous}`, [
      evidenceOf(exchange, `returned id ${id}, already ${previous}`, { field: 'id' }),
    ]);
  }
  ids.set(id, `returned by ${owner}`);
}

/** Records the id of a created category without judging it (the uniqueness checks judge). */
export function recordId(ids: Map<ExactId, string>, id: ExactId, owner: string): void {
  if (!ids.has(id)) ids.set(id, `returned by ${owner}`);
}

import { compileSpecDefinition, type ResponseDefinition, type SpecDefinition } from '../compile-spec.js';
import type { OpenApiDocument } from '../openapi-types.js';
import type { SchemaValidator } from '../schema-validator.js';
import { responseByStatus } from './response-lookup.js';

/** What the suite reads from the spec about one operation. */
export interface SpecOperation {
  operationId: string;
  method: string;
  pathTemplate: string;
  /** `x-stability` (interface section 9): failures of such operations are warnings unless --strict. */
  stability: 'experimental' | 'beta' | undefined;
  deprecated: boolean;
  /**
   * True when the interface does not show the operation's shapes (its success body is marked
   * `x-not-shown`): what such an operation answers is information, never a failure.
   */
  open: boolean;
  /** Declared responses by status key as written in the spec ('200', '4XX', 'default'). */
  responses: Map<string, SpecResponse>;
}

interface SpecResponse {
  statusKey: string;
  /** Validator of the `application/json` body, when the spec gives a schema. */
  validator: SchemaValidator | undefined;
  /** The body schema is marked `x-not-shown`: mismatches are information only. */
  notShown: boolean;
}

export interface SpecModel {
  title: string;
  version: string;
  operations: Map<string, SpecOperation>;
  /** Validator of the Error component (interface section 2). */
  errorValidator: SchemaValidator;
}

/** The verdict on one response body. */
export type BodyVerdict =
  | { kind: 'valid'; notShown: boolean }
  | { kind: 'undeclared-status'; declared: string[] }
  | { kind: 'no-schema' }
  | { kind: 'not-json'; notShown: boolean }
  | { kind: 'invalid'; issues: string[]; notShown: boolean };

/**
 * Derives from a parsed Petstore document, for each operation, the validators of its response
 * bodies, its stability and whether the interface shows its shapes: the kit's view of the reading
 * shared with the mock (`spec/compile-spec.ts`), so the two cannot drift. Validators are JSON
 * Schema 2020-12 (ajv) answering as zod's `safeParse` does, compiled on first use.
 * Throws "Failed to load spec ..." / "Failed to compile spec ..." on a document it cannot use.
 *
 * @example
 * const spec = buildSpecModel(await readSpecFile('spec/petstore.openapi.yaml'));
 * spec.operations.get('listCategories')?.responses.get('200')?.validator?.safeParse([]).success; // true
 */
export function buildSpecModel(raw: OpenApiDocument): SpecModel {
  const definition = compileSpecDefinition(raw);
  if (definition.componentSchemas.Error === undefined)
    throw new Error('Failed to derive validators from the spec: components.schemas.Error is missing');
  return specModelOf(definition);
}

/**
 * The kit's view of a compiled document. A document without an `Error` component (not the
 * Petstore interface) gets an Error validator that accepts nothing: only the Petstore rule checks
 * read it, and they do not run on such a document.
 */
export function specModelOf(definition: SpecDefinition): SpecModel {
  const operations = new Map<string, SpecOperation>();
  for (const operation of definition.operations) {
    const responses = new Map<string, SpecResponse>();
    for (const response of operation.responses) responses.set(response.statusKey, specResponse(response));
    operations.set(operation.operationId, {
      operationId: operation.operationId,
      method: operation.method,
      pathTemplate: operation.pathTemplate,
      stability: operation.stability,
      deprecated: operation.deprecated,
      open: operation.responses.some((response) => response.statusKey.startsWith('2') && response.notShown),
      responses,
    });
  }
  const errorSchema = definition.componentSchemas.Error;
  return {
    title: definition.title,
    version: definition.version,
    operations,
    errorValidator: definition.validatorFor(errorSchema ?? false, 'components.schemas.Error'),
  };
}

function specResponse(response: ResponseDefinition): SpecResponse {
  const out = { statusKey: response.statusKey, notShown: response.notShown };
  return Object.defineProperty(out, 'validator', { enumerable: true, get: () => response.validator }) as SpecResponse;
}

/**
 * Validates a response body against what the spec declares for that operation and status.
 *
 * @example validateBody(spec.operations.get('createCategory')!, 201, { id: 1, name: 'dog' }, true) // { kind: 'valid', notShown: false }
 */
export function validateBody(operation: SpecOperation, status: number, json: unknown, hasJson: boolean): BodyVerdict {
  const response = responseFor(operation, status);
  if (!response) return { kind: 'undeclared-status', declared: [...operation.responses.keys()] };
  if (!response.validator) return { kind: 'no-schema' };
  if (!hasJson) return { kind: 'not-json', notShown: response.notShown };
  const result = response.validator.safeParse(json);
  if (result.success) return { kind: 'valid', notShown: response.notShown };
  return { kind: 'invalid', issues: describeIssues(result.error.issues), notShown: response.notShown };
}

/** The declared response for a status: exact, then a range ('4XX'), then 'default'. */
function responseFor(operation: SpecOperation, status: number): SpecResponse | undefined {
  return responseByStatus(status, (key) => operation.responses.get(key) ?? operation.responses.get(key.toLowerCase()));
}

/** Validation issues as short "path: message" lines. */
export function describeIssues(issues: readonly { path: PropertyKey[]; message: string }[]): string[] {
  return issues
    .slice(0, 5)
    .map(
      (issue) =>
        `${issue.path.length > 0 ? issue.path.join('.') : '(body)'}: ${issue.message.replace(/^Invalid input: /, '')}`,
    );
}

import * as z from 'zod';
import { readSpecFile } from '../../spec/load-spec.js';
import { httpMethods, type JsonSchema, type OpenApiDocument, type OpenApiResponse } from '../../spec/openapi-types.js';
import { resolveRefs } from '../../spec/resolve-refs.js';

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

export interface SpecResponse {
  statusKey: string;
  /** Validator of the `application/json` body, when the spec gives a schema. */
  validator: z.ZodType | undefined;
  /** The body schema is marked `x-not-shown`: mismatches are information only. */
  notShown: boolean;
}

export interface SpecModel {
  title: string;
  version: string;
  operations: Map<string, SpecOperation>;
  /** Validator of the Error component (interface section 2). */
  errorValidator: z.ZodType;
}

/** The verdict on one response body. */
export type BodyVerdict =
  | { kind: 'valid'; notShown: boolean }
  | { kind: 'undeclared-status'; declared: string[] }
  | { kind: 'no-schema' }
  | { kind: 'not-json'; notShown: boolean }
  | { kind: 'invalid'; issues: string[]; notShown: boolean };

/**
 * Loads the OpenAPI document and derives, for each operation, the validators of its response
 * bodies (zod's `fromJSONSchema`), its stability and whether the interface shows its shapes.
 * Throws "Failed to load spec ..." / "Failed to derive validators ..." on a document it cannot use.
 *
 * @example
 * const spec = await loadSpecModel('spec/petstore.openapi.yaml');
 * spec.operations.get('listCategories')?.responses.get('200')?.validator?.safeParse([]).success; // true
 */
export async function loadSpecModel(path: string): Promise<SpecModel> {
  return buildSpecModel(await readSpecFile(path));
}

/** Same as `loadSpecModel`, from a parsed document. */
export function buildSpecModel(raw: OpenApiDocument): SpecModel {
  const document = resolveRefs(raw);
  const operations = new Map<string, SpecOperation>();
  for (const [pathTemplate, pathItem] of Object.entries(document.paths ?? {})) {
    for (const method of httpMethods) {
      const operation = pathItem[method];
      if (!operation) continue;
      const operationId = operation.operationId ?? `${method.toUpperCase()} ${pathTemplate}`;
      const responses = new Map<string, SpecResponse>();
      for (const [statusKey, response] of Object.entries(operation.responses ?? {})) {
        responses.set(statusKey, compileResponse(statusKey, response, `${operationId} ${statusKey}`));
      }
      const stability = operation['x-stability'];
      operations.set(operationId, {
        operationId,
        method: method.toUpperCase(),
        pathTemplate,
        stability: stability === 'experimental' || stability === 'beta' ? stability : undefined,
        deprecated: operation.deprecated === true,
        open: [...responses.entries()].some(([key, response]) => key.startsWith('2') && response.notShown),
        responses,
      });
    }
  }
  const errorSchema = document.components?.schemas?.Error;
  if (errorSchema === undefined) throw new Error('Failed to derive validators from the spec: components.schemas.Error is missing');
  return { title: document.info.title, version: document.info.version, operations, errorValidator: toValidator(errorSchema, 'components.schemas.Error') };
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
export function responseFor(operation: SpecOperation, status: number): SpecResponse | undefined {
  return operation.responses.get(String(status)) ?? operation.responses.get(`${String(status).charAt(0)}XX`) ?? operation.responses.get('default');
}

/** zod issues as short "path: message" lines. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.slice(0, 5).map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(body)'}: ${issue.message.replace(/^Invalid input: /, '')}`);
}

function compileResponse(statusKey: string, response: OpenApiResponse, where: string): SpecResponse {
  const media = response.content?.['application/json'];
  const schema = media?.schema;
  return {
    statusKey,
    validator: schema === undefined ? undefined : toValidator(schema, where),
    notShown: schema !== undefined && marksNotShown(schema),
  };
}

function toValidator(schema: JsonSchema, where: string): z.ZodType {
  try {
    return z.fromJSONSchema(stripAnnotations(schema) as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    throw new Error(`Failed to derive validators from the spec: the schema of ${where} is not supported (${(error as Error).message})`);
  }
}

/** Does the schema (or its items) carry `x-not-shown: true`? */
function marksNotShown(schema: JsonSchema): boolean {
  if (typeof schema !== 'object' || schema === null) return false;
  if (schema['x-not-shown'] === true) return true;
  return schema.items !== undefined && marksNotShown(schema.items);
}

/** Keywords that only describe data; validators must not see them (zod rejects some). */
const annotationKeywords = new Set(['example', 'examples', 'description', 'summary', 'title', 'deprecated', 'readOnly', 'writeOnly', 'externalDocs', 'xml', 'discriminator']);

function stripAnnotations(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(stripAnnotations);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (annotationKeywords.has(key) || key.startsWith('x-')) continue;
    // Under `properties` the keys are field names ("description" is one), not keywords.
    out[key] = key === 'properties' && value !== null && typeof value === 'object'
      ? Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, stripAnnotations(sub)]))
      : stripAnnotations(value);
  }
  return out;
}

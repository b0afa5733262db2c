import {
  httpMethods,
  type JsonSchema,
  type OpenApiDocument,
  type OpenApiHeader,
  type OpenApiMediaType,
  type OpenApiOperation,
  type OpenApiParameter,
  type OpenApiResponse,
  type SecurityRequirement,
} from './openapi-types.js';
import { SpecError } from './ref-resolver.js';
import type { SchemaValidator } from './schema-validator.js';

// The operations of a resolved document as the mock and the kit read them (spec/compile-spec.ts compiles
// the document): each with its parameters, body, responses, security and extensions, and validators
// compiled at their first use.

export interface OperationDefinition {
  operationId: string;
  /** Upper case: `GET`, `POST`, ... */
  method: string;
  pathTemplate: string;
  /** Path-level and operation-level parameters, the operation's winning on the same name and location. */
  parameters: ParameterDefinition[];
  requestBody: RequestBodyDefinition | undefined;
  /** Declared responses in document order, keyed as written ('200', '4XX', 'default'). */
  responses: ResponseDefinition[];
  /** The security requirements that apply (the operation's, else the document's). */
  security: SecurityRequirement[];
  deprecated: boolean;
  /** `x-stability` (interface section 9); any other value is refused. */
  stability: 'experimental' | 'beta' | undefined;
  /** The operation's `x-*` extensions, as written. */
  extensions: Record<string, unknown>;
  /** The resolved operation object, for what this view does not name. */
  operation: OpenApiOperation;
}

export interface ParameterDefinition {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: JsonSchema | undefined;
  /** How the value is written in the request (`form`, `simple`, `deepObject`, ...), as declared. */
  style: string | undefined;
  explode: boolean | undefined;
  /** Described by `content` (its text is that media type) rather than by `schema`. */
  content: boolean;
  /** The parameter's own `example` and `examples` values (path-level ones included), in that order. */
  examples: unknown[];
  /** Validator of the parameter's value (after conversion from text). */
  readonly validator: SchemaValidator;
}

/** One media type of a body, as declared. */
export interface MediaDefinition {
  /** As written (`application/json`, `image/*`, `text/plain; charset=utf-8`). */
  type: string;
  /** Lower case, without parameters: what requests and `Accept` are matched on. */
  essence: string;
  schema: JsonSchema | undefined;
  /** Named examples; an unnamed `example` is stored as `default`. */
  examples: Map<string, unknown>;
  /** The media type's `encoding` (multipart and form bodies), as written. */
  encoding: Record<string, { contentType?: string }> | undefined;
  readonly validator: SchemaValidator | undefined;
}

interface RequestBodyDefinition {
  required: boolean;
  /** Every media type, in document order. */
  media: MediaDefinition[];
  /** Every media type the body declares. */
  mediaTypes: string[];
  /** The JSON ones (`application/json`, `application/*+json`), in document order. */
  jsonMediaTypes: string[];
  /** Schema of the first JSON media type. */
  schema: JsonSchema | undefined;
  readonly validator: SchemaValidator | undefined;
}

export interface ResponseDefinition {
  /** As written: '200', '4XX', 'default'. */
  statusKey: string;
  /** The status as a number when the key is one. */
  status: number | undefined;
  description: string | undefined;
  headers: HeaderDefinition[];
  mediaTypes: string[];
  /** Every media type, in document order. */
  media: MediaDefinition[];
  /** Schema of the JSON body (`application/json`, else the first JSON media type). */
  schema: JsonSchema | undefined;
  readonly validator: SchemaValidator | undefined;
  /** Named examples of the JSON body; an unnamed `example` is stored as `default`. */
  examples: Map<string, unknown>;
  /** The body schema (or its items) is marked `x-not-shown`: the interface does not show it. */
  notShown: boolean;
}

interface HeaderDefinition {
  name: string;
  required: boolean;
  schema: JsonSchema | undefined;
  /** The header's own `example` and `examples` values, in that order. */
  examples: unknown[];
}

/** The validator of a schema of the document (spec/compile-spec.ts's `validatorOf`), named for its messages. */
type ValidatorFor = (schema: JsonSchema, what: string) => SchemaValidator;

const stabilityLevels = new Set(['experimental', 'beta']);

/**
 * Every operation of a resolved document, in document order (paths, then methods in `httpMethods`
 * order); a path or an operation that is not an object, or an operationId used twice, is refused.
 *
 * @example defineOperations(resolved.document, validatorOf).map((operation) => operation.operationId)
 */
export function defineOperations(document: OpenApiDocument, validatorFor: ValidatorFor): OperationDefinition[] {
  const globalSecurity = document.security ?? [];
  const operations: OperationDefinition[] = [];
  const seenIds = new Set<string>();
  for (const [pathTemplate, pathItem] of Object.entries(document.paths ?? {})) {
    if (pathItem === null || typeof pathItem !== 'object')
      throw new SpecError(`Failed to compile spec: paths.${pathTemplate.slice(0, 100)} is not an object`);
    for (const method of httpMethods) {
      const operation = pathItem[method];
      if (operation === undefined) continue;
      if (operation === null || typeof operation !== 'object')
        throw new SpecError(`Failed to compile spec: ${method} ${pathTemplate.slice(0, 100)} is not an object`);
      const operationId =
        typeof operation.operationId === 'string' ? operation.operationId : `${method.toUpperCase()} ${pathTemplate}`;
      if (seenIds.has(operationId))
        throw new SpecError(`Failed to compile spec: operationId ${operationId.slice(0, 100)} is used twice`);
      seenIds.add(operationId);
      operations.push({
        operationId,
        method: method.toUpperCase(),
        pathTemplate,
        parameters: mergeParameters(pathItem.parameters, operation.parameters).map((parameter) =>
          defineParameter(parameter, operationId, validatorFor),
        ),
        requestBody: defineRequestBody(operation, operationId, validatorFor),
        responses: Object.entries(operation.responses ?? {}).map(([statusKey, response]) =>
          defineResponse(statusKey, response, `${operationId} ${statusKey}`, validatorFor),
        ),
        security: operation.security ?? globalSecurity,
        deprecated: operation.deprecated === true,
        stability: readStability(operation, operationId),
        extensions: Object.fromEntries(Object.entries(operation).filter(([key]) => key.startsWith('x-'))),
        operation,
      });
    }
  }
  return operations;
}

function readStability(operation: OpenApiOperation, operationId: string): OperationDefinition['stability'] {
  const value = operation['x-stability'];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !stabilityLevels.has(value)) {
    throw new SpecError(
      `Failed to compile spec: ${operationId} has x-stability ${JSON.stringify(value)?.slice(0, 60)}; expected experimental or beta`,
    );
  }
  return value as 'experimental' | 'beta';
}

function mergeParameters(
  pathLevel: OpenApiParameter[] | undefined,
  operationLevel: OpenApiParameter[] | undefined,
): OpenApiParameter[] {
  const byKey = new Map<string, OpenApiParameter>();
  for (const parameter of [
    ...(Array.isArray(pathLevel) ? pathLevel : []),
    ...(Array.isArray(operationLevel) ? operationLevel : []),
  ]) {
    if (parameter === null || typeof parameter !== 'object') continue;
    byKey.set(`${parameter.in} ${parameter.name}`, parameter);
  }
  return [...byKey.values()];
}

function defineParameter(
  parameter: OpenApiParameter,
  operationId: string,
  validatorFor: ValidatorFor,
): ParameterDefinition {
  if (typeof parameter.name !== 'string' || !['path', 'query', 'header', 'cookie'].includes(parameter.in)) {
    throw new SpecError(
      `Failed to compile spec: ${operationId} has a parameter without a name or with an unknown "in" (path, query, header or cookie)`,
    );
  }
  const schema = parameter.schema ?? jsonSchemaOf(parameter as { content?: Record<string, OpenApiMediaType> });
  return {
    name: parameter.name,
    in: parameter.in,
    required: parameter.in === 'path' || parameter.required === true,
    schema,
    style: typeof parameter.style === 'string' ? parameter.style : undefined,
    explode: typeof parameter.explode === 'boolean' ? parameter.explode : undefined,
    content: parameter.schema === undefined && schema !== undefined,
    examples: parameterExamples(parameter),
    validator: deferredValidator(schema ?? {}, (checked) =>
      validatorFor(checked, `parameter ${parameter.name} of ${operationId}`),
    )!,
  };
}

function parameterExamples(parameter: OpenApiParameter): unknown[] {
  const raw = parameter as { example?: unknown; examples?: unknown };
  const out: unknown[] = raw.example === undefined ? [] : [raw.example];
  if (raw.examples !== null && typeof raw.examples === 'object')
    for (const example of Object.values(raw.examples))
      if (example !== null && typeof example === 'object' && 'value' in example) out.push(example.value);
  return out;
}

function defineRequestBody(
  operation: OpenApiOperation,
  operationId: string,
  validatorFor: ValidatorFor,
): RequestBodyDefinition | undefined {
  const body = operation.requestBody;
  if (body === undefined) return undefined;
  const media = jsonMedia(body.content);
  const schema = media[0]?.[1].schema;
  return {
    required: body.required === true,
    media: defineMedia(body.content, `${operationId} request body`, validatorFor),
    mediaTypes: Object.keys(body.content ?? {}),
    jsonMediaTypes: media.map(([type]) => type),
    schema,
    validator:
      media.length === 0
        ? undefined
        : deferredValidator(schema ?? {}, (checked) => validatorFor(checked, `${operationId} request body`)),
  };
}

function defineMedia(
  content: Record<string, OpenApiMediaType> | undefined,
  where: string,
  validatorFor: ValidatorFor,
): MediaDefinition[] {
  if (content === null || typeof content !== 'object') return [];
  return Object.entries(content).map(([type, media]) => {
    const schema = media?.schema;
    return {
      type,
      essence: type.split(';')[0]!.trim().toLowerCase(),
      schema,
      examples: examplesOf(media),
      encoding: (media as { encoding?: MediaDefinition['encoding'] } | undefined)?.encoding,
      validator: deferredValidator(schema, (checked) => validatorFor(checked, `${where} ${type}`)),
    };
  });
}

function examplesOf(media: OpenApiMediaType | undefined): Map<string, unknown> {
  const examples = new Map<string, unknown>();
  if (media === null || typeof media !== 'object') return noExamples;
  for (const [name, example] of Object.entries(media.examples ?? {})) {
    if (example && typeof example === 'object' && 'value' in example) examples.set(name, example.value);
  }
  if ('example' in media) examples.set('default', media.example);
  return examples.size === 0 ? noExamples : examples;
}

/** The examples of media without any, one map for all (read only): a Map is 230 bytes, a document may hold 100,000. */
const noExamples = new Map<string, unknown>();

function defineResponse(
  statusKey: string,
  response: OpenApiResponse,
  where: string,
  validatorFor: ValidatorFor,
): ResponseDefinition {
  const media = jsonMedia(response.content);
  const [, chosen] = media.find(([type]) => type === 'application/json') ?? media[0] ?? [];
  const schema = chosen?.schema;
  const examples = examplesOf(chosen);
  const status = /^[1-5]\d\d$/.test(statusKey) ? Number(statusKey) : undefined;
  return {
    statusKey,
    status,
    description: response.description,
    headers: Object.entries(response.headers ?? {}).map(([name, header]: [string, OpenApiHeader]) => ({
      name,
      required: header?.required === true,
      schema: header?.schema,
      examples: header === null || typeof header !== 'object' ? [] : parameterExamples(header as OpenApiParameter),
    })),
    mediaTypes: Object.keys(response.content ?? {}),
    media: defineMedia(response.content, where, validatorFor),
    schema,
    examples,
    notShown: schema !== undefined && marksNotShown(schema),
    validator: deferredValidator(schema, (checked) => validatorFor(checked, where)),
  };
}

/** JSON media types of a content map (`application/json`, `application/problem+json`, ...), in order. */
function jsonMedia(content: Record<string, OpenApiMediaType> | undefined): [string, OpenApiMediaType][] {
  return Object.entries(content ?? {}).filter(([type]) =>
    /^application\/([\w.+-]+\+)?json$/i.test(type.split(';')[0]!.trim()),
  );
}

function jsonSchemaOf(parameter: { content?: Record<string, OpenApiMediaType> }): JsonSchema | undefined {
  return jsonMedia(parameter.content)[0]?.[1].schema;
}

/** Does the schema (or its items, however deep) carry `x-not-shown: true`? Safe on recursive schemas. */
function marksNotShown(schema: JsonSchema): boolean {
  const seen = new Set<object>();
  let current: JsonSchema | undefined = schema;
  while (current !== null && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    if (current['x-not-shown'] === true) return true;
    current = current.items;
  }
  return false;
}

/**
 * A validator compiled at its first use, held as a plain value: a getter made every definition a
 * dictionary-mode object (600 bytes more each; 1.8 KB an operation on a document of 100,000).
 */
class DeferredValidator implements SchemaValidator {
  #compute: (() => SchemaValidator) | undefined;
  #validator: SchemaValidator | undefined;
  constructor(compute: () => SchemaValidator) {
    this.#compute = compute;
  }
  #get(): SchemaValidator {
    if (this.#validator === undefined) {
      this.#validator = this.#compute!();
      this.#compute = undefined;
    }
    return this.#validator;
  }
  isValid(value: unknown): boolean {
    return this.#get().isValid(value);
  }
  safeParse(value: unknown): ReturnType<SchemaValidator['safeParse']> {
    return this.#get().safeParse(value);
  }
}

/** A validator of `schema` compiled at its first use, or undefined when there is no schema to check. */
function deferredValidator(
  schema: JsonSchema | undefined,
  compute: (schema: JsonSchema) => SchemaValidator,
): SchemaValidator | undefined {
  return schema === undefined ? undefined : new DeferredValidator(() => compute(schema));
}

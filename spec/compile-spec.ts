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
import { nodeAt, originOf, type ResolvedDocument, resolveDocument, SpecError } from './ref-resolver.js';
import { auditSchemas, likelyMeant, type SchemaAudit } from './schema-keywords.js';
import {
  createDocumentValidators,
  knownFormats,
  type SchemaValidator,
  standaloneValidator,
} from './schema-validator.js';

/**
 * The one reading of an OpenAPI 3.1 document that the mock (`src/core/compiled-spec.ts`) and the
 * contract kit (`spec/interface/spec-model.ts`) both build on, so the two cannot drift: the
 * same operations, parameters, bodies, responses, security, extensions and validators.
 */
export interface SpecDefinition {
  title: string;
  version: string;
  /** Path prefix the API is served under, from the servers' URLs (for example `/v1`). */
  basePath: string;
  /** Every operation, in document order (paths, then methods in `httpMethods` order). */
  operations: OperationDefinition[];
  /** The document with references resolved by sharing (recursive schemas are object cycles). */
  document: OpenApiDocument;
  /** The document as given (references untouched). */
  source: OpenApiDocument;
  /**
   * What the kit serves without checking, one line each, for the user to read at start (formats
   * no validator here knows: values are checked by type only).
   */
  warnings: string[];
  /** `components.schemas`, resolved. */
  componentSchemas: Record<string, JsonSchema>;
  resolved: ResolvedDocument;
  /**
   * The validator of any schema of the document (JSON Schema 2020-12 by ajv, compiled on first
   * use), or of a schema that stands alone.
   */
  validatorFor(schema: JsonSchema, what: string): SchemaValidator;
}

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

export interface CompileOptions {
  /** Serve under this path instead of the one the servers' URLs give. */
  basePath?: string;
  /** Node budget of the document (see `resolveDocument`). */
  maxNodes?: number;
}

const stabilityLevels = new Set(['experimental', 'beta']);

/**
 * Reads an OpenAPI 3.1 document once: references resolved by sharing (linear in the document,
 * recursion allowed, external references refused), every schema audited (each keyword enforced or
 * the document refused with one line), operations listed with their parameters, bodies, responses,
 * security and extensions. Pure: runs in Node and in browsers. A resolved document (`spec.document`)
 * compiles from the document it came from.
 *
 * @example
 * const spec = compileSpecDefinition(await readSpecFile());
 * spec.operations.map((operation) => operation.operationId); // ['listCategories', 'createCategory', ...]
 */
export function compileSpecDefinition(input: OpenApiDocument, options: CompileOptions = {}): SpecDefinition {
  // A resolved document (spec.document) compiles from its source: references are what validators read.
  const origin = originOf(input);
  const source =
    origin !== undefined && origin.pointer === '' && origin.resolved.document === input
      ? origin.resolved.source
      : input;
  const definition = compileFresh(source, options.maxNodes);
  return options.basePath === undefined ? definition : { ...definition, basePath: options.basePath };
}

function compileFresh(given: OpenApiDocument, maxNodes: number | undefined): SpecDefinition {
  refuseOtherVersions(given);
  const resolveOptions = maxNodes === undefined ? {} : { maxNodes };
  let resolved = resolveDocument(given, resolveOptions);
  const { unknownFormats, unknownKeywords, dropped } = auditSchemas(given, knownFormats);
  const warnings = unknownFormats.size === 0 ? [] : [unknownFormatsWarning(unknownFormats)];
  if (unknownKeywords.size > 0) warnings.push(unknownKeywordsWarning(unknownKeywords));
  if (dropped.length > 0) {
    // Served without the keywords whose values are not JSON Schema, on a copy: the given document is the caller's.
    resolved = resolveDocument(withoutKeywords(given, dropped), resolveOptions);
    warnings.push(droppedKeywordsWarning(dropped));
  }
  const { document, source } = resolved;
  const validatorFor = validatorOf;

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
  return {
    title: String(document.info?.title ?? ''),
    version: String(document.info?.version ?? ''),
    basePath: basePathOf(document),
    operations,
    document,
    source,
    warnings,
    componentSchemas: (document.components?.schemas ?? {}) as Record<string, JsonSchema>,
    resolved,
    validatorFor,
  };
}

// Per compilation, not per document object: a document edited and compiled again gets fresh validators.
const validatorsByCompilation = new WeakMap<object, ReturnType<typeof createDocumentValidators>>();

/**
 * The validator of a schema: one of a compiled document validates with that document's
 * references (ajv reads the document as written, so recursion and sharing cost nothing); any
 * other must stand alone. Compiled on first use, once per document and schema.
 *
 * @example validatorOf(spec.componentSchemas.Category!, 'Category').safeParse({ id: 1, name: 'dog' }).success; // true
 */
export function validatorOf(schema: JsonSchema, what: string): SchemaValidator {
  const origin = originOf(schema);
  if (origin === undefined) return standaloneValidator(schema, what);
  return validatorAt(origin.resolved, origin.pointer, what);
}

/**
 * The validator of the schema at a JSON pointer of a compiled document (a property's schema, say),
 * sharing the document's validators with `validatorOf`.
 *
 * @example validatorAt(spec.definition.resolved, '/components/schemas/Category/properties/name', 'name').isValid('dog'); // true
 */
export function validatorAt(resolved: ResolvedDocument, pointer: string, what: string): SchemaValidator {
  let validators = validatorsByCompilation.get(resolved);
  if (validators === undefined) {
    validators = createDocumentValidators(resolved.source);
    validatorsByCompilation.set(resolved, validators);
  }
  return validators.at(pointer, what);
}

/** Compiling reads OpenAPI 3.1; 3.0 and Swagger 2.0 are read as 3.1 when loaded (Node), not here. */
function refuseOtherVersions(source: OpenApiDocument): void {
  const version =
    (source as { openapi?: unknown; swagger?: unknown }).openapi ?? (source as { swagger?: unknown }).swagger;
  if (typeof version === 'string' && version.startsWith('3.1')) return;
  const found = JSON.stringify(version)?.slice(0, 40) ?? 'no version';
  throw new SpecError(
    `Failed to compile spec: expected "openapi: 3.1.x", found ${found}; load OpenAPI 3.0 and Swagger 2.0 documents with readSpecFile or parseSpecText, which read them as 3.1`,
  );
}

function withoutKeywords(document: OpenApiDocument, dropped: SchemaAudit['dropped']): OpenApiDocument {
  const copy = structuredClone(document);
  for (const { pointer, keyword } of dropped) {
    const schema = nodeAt(copy, pointer);
    if (schema !== null && typeof schema === 'object') delete (schema as Record<string, unknown>)[keyword];
  }
  return copy;
}

function droppedKeywordsWarning(dropped: SchemaAudit['dropped']): string {
  const listed = dropped.slice(0, 5).map(({ pointer, problem }) => `${problem} at #${pointer.slice(0, 160)}`);
  return `Schema keywords served as annotations, their values are not JSON Schema: ${listed.join('; ')}${dropped.length > 5 ? `; and ${dropped.length - 5} more` : ''}`;
}

function unknownKeywordsWarning(keywords: ReadonlyMap<string, string>): string {
  const listed = [...keywords].slice(0, 10).map(([keyword, pointer]) => {
    const meant = likelyMeant(keyword);
    return `${JSON.stringify(keyword.slice(0, 40))} at #${pointer.slice(0, 120)}${meant === undefined ? '' : ` (did you mean "${meant}"?)`}`;
  });
  const more = keywords.size > 10 ? `; and ${keywords.size - 10} more` : '';
  return `Unknown schema keywords, served as annotations (JSON Schema 2020-12: they assert nothing): ${listed.join('; ')}${more}`;
}

function unknownFormatsWarning(formats: ReadonlyMap<string, unknown>): string {
  const names = [...formats.keys()].map((format) => JSON.stringify(format.slice(0, 40)));
  const more = names.length > 20 ? ` and ${names.length - 20} more` : '';
  return `Unknown formats, served as annotations (values checked by type only): ${names.slice(0, 20).join(', ')}${more}`;
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

type ValidatorFor = SpecDefinition['validatorFor'];

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

function basePathOf(document: OpenApiDocument): string {
  const servers = Array.isArray(document.servers) ? document.servers : [];
  const local =
    servers.find(
      (server) => typeof server?.url === 'string' && /^https?:\/\/(127\.0\.0\.1|localhost)/.test(server.url),
    ) ?? servers[0];
  if (!local || typeof local.url !== 'string') return '';
  const url = local.url.replace(/\{([^}]+)\}/g, (_, name: string) => local.variables?.[name]?.default ?? 'placeholder');
  try {
    return new URL(url, 'http://placeholder').pathname.replace(/\/+$/, '');
  } catch {
    throw new SpecError(`Failed to compile spec: server URL ${local.url.slice(0, 200)} is not a URL`);
  }
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

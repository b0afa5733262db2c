import { likelyMeant } from './keyword-spelling.js';
import type { JsonSchema, OpenApiDocument } from './openapi-types.js';
import { defineOperations, type OperationDefinition } from './operation-definitions.js';
import {
  nodeAt,
  originOf,
  type ResolvedDocument,
  refuseOversized,
  resolveDocument,
  SpecError,
} from './ref-resolver.js';
import { refuseDeepSchemas } from './schema-depth.js';
import { auditSchemas, type SchemaAudit } from './schema-keywords.js';
import {
  createDocumentValidators,
  knownFormats,
  type SchemaValidator,
  standaloneValidator,
} from './schema-validator.js';

export type {
  MediaDefinition,
  OperationDefinition,
  ParameterDefinition,
  ResponseDefinition,
} from './operation-definitions.js';

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

export interface CompileOptions {
  /** Serve under this path instead of the one the servers' URLs give. */
  basePath?: string;
  /** Node budget of the document (see `resolveDocument`). */
  maxNodes?: number;
}

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
  const { resolved, audit } = resolveAudited(given, maxNodes);
  const { unknownFormats, unknownKeywords, dropped } = audit;
  const warnings = unknownFormats.size === 0 ? [] : [unknownFormatsWarning(unknownFormats)];
  if (unknownKeywords.size > 0) warnings.push(unknownKeywordsWarning(unknownKeywords));
  if (dropped.length > 0) warnings.push(droppedKeywordsWarning(dropped));
  const { document, source } = resolved;
  const validatorFor = validatorOf;

  const operations = defineOperations(document, validatorFor);
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

/**
 * The document resolved and its schemas audited, refused as it always was: the resolver's refusals
 * first, then the audit's. Keywords the audit drops (values that are not JSON Schema) are served as
 * annotations: left out of a copy (the given document is the caller's), which is what is resolved and
 * served. When every dropped value is a scalar, the copy resolves exactly as the document would (a
 * scalar holds no reference and no node), so the copy alone is resolved; otherwise the document is
 * resolved first, for its refusals, then the copy. Resolving a large document twice was a tenth of
 * its start (DigitalOcean's two invalid patterns).
 */
function resolveAudited(
  given: OpenApiDocument,
  maxNodes: number | undefined,
): { resolved: ResolvedDocument; audit: SchemaAudit } {
  // The node budget first, as the resolver checks it: an oversized document is refused before the audit reads it.
  refuseOversized(given, maxNodes);
  // Then the nesting, before the resolver's own bound: its refusal names the schema a user wrote, not a level deep inside.
  refuseDeepSchemas(given);
  const options = { ...(maxNodes === undefined ? {} : { maxNodes }), counted: true };
  let audit: SchemaAudit | undefined;
  let refusal: unknown;
  try {
    audit = auditSchemas(given, knownFormats);
  } catch (error) {
    refusal = error;
  }
  const dropped = audit?.dropped ?? [];
  if (audit !== undefined && dropped.length > 0 && dropped.every((entry) => droppedScalar(given, entry)))
    return { resolved: resolveDocument(withoutKeywords(given, dropped), options), audit };
  const resolved = resolveDocument(given, options);
  if (audit === undefined) throw refusal;
  if (dropped.length === 0) return { resolved, audit };
  return { resolved: resolveDocument(withoutKeywords(given, dropped), options), audit };
}

/** Whether a dropped keyword's value is a scalar (a string, number, boolean or null). */
function droppedScalar(document: OpenApiDocument, { pointer, keyword }: SchemaAudit['dropped'][number]): boolean {
  const value = (nodeAt(document, pointer) as Record<string, unknown> | undefined)?.[keyword];
  return value === null || typeof value !== 'object';
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

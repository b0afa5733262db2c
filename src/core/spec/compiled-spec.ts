import type { MediaDefinition, ResponseDefinition } from '../../../spec/compile-spec.js';
import { compileSpecDefinition, type OperationDefinition, type SpecDefinition } from '../../../spec/compile-spec.js';
import type { JsonSchema, OpenApiDocument } from '../../../spec/openapi-types.js';
import type { SchemaValidator } from '../../../spec/schema-validator.js';
import { type CompiledSecurity, compileSecurity } from '../../../spec/security-schemes.js';
import { isoDatePattern } from '../config/decoding.js';
import { type CompiledMedia, formFields, mediaKind } from './media.js';
import { type ParameterReader, parameterReader } from './parameter-values.js';
import { routedPath } from './path-key.js';

/** What the mock knows about one operation, read from the spec once at startup. */
export interface CompiledOperation {
  operationId: string;
  method: string;
  pathTemplate: string;
  parameterNames: string[];
  parameters: CompiledParameter[];
  /** Credentials are required: some alternative needs them and none is empty. */
  requiresAuth: boolean;
  /** The operation's effective security (its own, else the document's). */
  security: CompiledSecurity;
  requestBody: CompiledRequestBody | undefined;
  responses: Map<number, CompiledResponse>;
  /** Responses declared for a range or by default (`4XX`, `default`): the shapes of the errors the operation may answer. */
  rangeResponses: ReadonlyMap<string, CompiledResponse>;
  /** The first 2xx status the operation declares (what it answers when all goes well). */
  successStatus: number | undefined;
  deprecated: boolean;
  deprecation: { deprecatedAt?: string; sunset?: string } | undefined;
  stability: 'experimental' | 'beta' | undefined;
  /**
   * The path parameter of the document's path one templated segment below this one (`petId` of
   * `/pets/{petId}` for `/pets`): where a resource this operation creates is found (its `Location`).
   */
  memberParameter?: string | undefined;
}

interface CompiledParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: JsonSchema | undefined;
  /** The parameter's value from the request, as its schema's type (before validation), or undefined when absent. */
  read: ParameterReader;
  /** JSON Schema 2020-12 validator (ajv, answering `safeParse` as zod does, and `isValid` alone), compiled on first use. */
  validator: SchemaValidator;
}

export interface CompiledRequestBody {
  required: boolean;
  /** The JSON media types (the fast path reads these). */
  mediaTypes: string[];
  /** Every declared media type, in document order. */
  media: CompiledMedia[];
  /** Only JSON media types are declared: the body is read as JSON and nothing else. */
  jsonOnly: boolean;
  /** Schema of the first JSON media type (`{}` without one). */
  schema: JsonSchema;
  /** JSON Schema 2020-12 validator (ajv, answering `safeParse` as zod does, and `isValid` alone), compiled on first use. */
  validator: SchemaValidator;
  /** Top-level properties the schema declares (never `id` or `__proto__`): all a handler may store. */
  declaredProperties: string[];
}

export interface CompiledResponse {
  /** The status, or undefined for a range or `default`. */
  status: number | undefined;
  /** As written: '200', '4XX', 'default'. */
  statusKey: string;
  /** Every declared media type, in document order (the first served when `Accept` allows any). */
  media: CompiledMedia[];
  /** Their essences (lower case, no parameters), for content negotiation. */
  mediaEssences: string[];
  /** JSON schema of the `application/json` body, if the spec gives one (resolved: may be recursive). */
  schema: JsonSchema | undefined;
  /** Named examples; an unnamed `example` is stored as `default`. */
  examples: Map<string, unknown>;
  headerNames: string[];
  /** The headers the response declares, with their schemas and examples: the mock sends each one. */
  headers: CompiledHeader[];
}

export interface CompiledHeader {
  name: string;
  required: boolean;
  schema: JsonSchema | undefined;
  /** The header's own `example`/`examples`, in that order. */
  examples: unknown[];
}

export interface CompiledSpec {
  title: string;
  version: string;
  /** Path prefix the API is served under, from the servers' URLs (for example `/v1`). */
  basePath: string;
  operations: CompiledOperation[];
  /**
   * The dereferenced document, for tools that need more than the compiled view. References are
   * shared, not copied: a recursive schema is an object cycle (walk it with a visited set).
   */
  document: OpenApiDocument;
  componentSchemas: Record<string, JsonSchema>;
  /** The shared reading of the document (`spec/compile-spec.ts`) this view is built from. */
  definition: SpecDefinition;
}

/** Tells a compiled spec from a parsed OpenAPI document. */
export function isCompiledSpec(spec: OpenApiDocument | CompiledSpec): spec is CompiledSpec {
  return Array.isArray((spec as CompiledSpec).operations) && typeof (spec as CompiledSpec).basePath === 'string';
}

/**
 * Compiles a parsed OpenAPI 3.1 document into routes, validators and examples: the mock's view of
 * the shared reading in `spec/compile-spec.ts`. Pure: runs in Node and in a browser. Throws
 * "Failed to compile spec: ..." (one line) on documents it cannot serve.
 *
 * @example const spec = compileSpec(await readSpecFile());
 */
export function compileSpec(raw: OpenApiDocument, options: { basePath?: string } = {}): CompiledSpec {
  const definition = compileSpecDefinition(raw, options);
  return {
    title: definition.title,
    version: definition.version,
    basePath: definition.basePath,
    operations: withMemberParameters(
      definition.operations.map((operation) => compileOperation(operation, definition.document)),
    ),
    document: definition.document,
    componentSchemas: definition.componentSchemas,
    definition,
  };
}

function compileOperation(operation: OperationDefinition, document: OpenApiDocument): CompiledOperation {
  const { operationId } = operation;
  const responses = new Map<number, CompiledResponse>();
  let rangeResponses: Map<string, CompiledResponse> | undefined;
  for (const response of operation.responses) {
    // "default" and "4XX"-style ranges are not concrete statuses a mock can pick; errors take their shape.
    if (response.status === undefined) {
      rangeResponses ??= new Map();
      rangeResponses.set(response.statusKey.toUpperCase(), compileResponse(response));
    } else responses.set(response.status, compileResponse(response));
  }
  const successStatus = [...responses.keys()]
    .filter((status) => status >= 200 && status < 300)
    .sort((a, b) => a - b)[0];
  const security = compileSecurity(operation.security, document, operationId);
  const parameterNames = parameterNamesOf(operation.pathTemplate);
  return {
    operationId,
    method: operation.method,
    pathTemplate: operation.pathTemplate,
    parameterNames,
    parameters: operation.parameters
      .filter((parameter) => !(parameter.in === 'header' && headersNotParameters.has(parameter.name.toLowerCase())))
      // A path parameter its template does not name can never be sent (Sonarr's `GET /` declares `path`):
      // OpenAPI 3.1 section 4.8.12.1 asks for one in the template, so it is read as not there.
      .filter((parameter) => parameter.in !== 'path' || parameterNames.includes(parameter.name))
      .map((parameter) => {
        // Plain values, no getter: a getter makes each a dictionary-mode object (see compile-spec.ts).
        const compiled: CompiledParameter = {
          name: parameter.name,
          in: parameter.in,
          required: parameter.required,
          schema: parameter.schema,
          read: parameterReader(parameter),
          validator: parameter.validator,
        };
        return compiled;
      }),
    requiresAuth: security.alternatives.length > 0 && !security.anonymousAllowed,
    security,
    requestBody: compileRequestBody(operation),
    responses,
    // One empty map for every operation without ranges: a Map is about 300 bytes.
    rangeResponses: rangeResponses ?? noRangeResponses,
    successStatus,
    deprecated: operation.deprecated,
    deprecation: compileDeprecation(operation),
    stability: operation.stability,
    // Set once every operation is compiled (withMemberParameters); written here so every operation has one shape.
    memberParameter: undefined,
  };
}

const noRangeResponses: ReadonlyMap<string, CompiledResponse> = new Map();

/** Each operation's `memberParameter`: the parameter of a path `<its path>/{name}` the document declares. */
function withMemberParameters(operations: CompiledOperation[]): CompiledOperation[] {
  const members = new Map<string, string>();
  for (const { pathTemplate } of operations) {
    const match = /^(.*)\/\{([^}/]+)\}$/.exec(routedPath(pathTemplate));
    if (match && !members.has(match[1]!)) members.set(match[1]!, match[2]!);
  }
  for (const operation of operations) {
    const member = members.get(routedPath(operation.pathTemplate).replace(/\/$/, ''));
    if (member !== undefined) operation.memberParameter = member;
  }
  return operations;
}

function compileResponse(response: ResponseDefinition): CompiledResponse {
  const media = response.media.map(compileMedia);
  return {
    status: response.status,
    statusKey: response.statusKey,
    media,
    mediaEssences: media.map((entry) => entry.essence),
    schema: response.schema,
    examples: response.examples,
    headerNames: response.headers.map((header) => header.name),
    headers: response.headers,
  };
}

function compileMedia(media: MediaDefinition): CompiledMedia {
  const kind = mediaKind(media.essence);
  const fields = kind === 'form' || kind === 'multipart' ? formFields(media.schema, media.encoding) : new Map();
  const compiled: CompiledMedia = {
    type: media.type,
    essence: media.essence,
    kind,
    schema: media.schema,
    examples: media.examples,
    fields,
    validator: media.validator,
  };
  return compiled;
}

function compileRequestBody(operation: OperationDefinition): CompiledRequestBody | undefined {
  const body = operation.requestBody;
  if (!body) return undefined;
  const schema = body.schema ?? {};
  const declaredProperties =
    typeof schema === 'object' && schema.properties && typeof schema.properties === 'object'
      ? Object.keys(schema.properties).filter((name) => name !== 'id' && name !== '__proto__')
      : [];
  const media = body.media.map(compileMedia);
  const compiled = {
    required: body.required,
    mediaTypes: body.jsonMediaTypes,
    media,
    jsonOnly:
      media.length > 0 &&
      media.every((entry) => entry.kind === 'json' && entry.essence !== '*/*' && entry.essence !== 'application/*'),
    schema,
    declaredProperties,
  };
  return Object.defineProperty(compiled, 'validator', {
    enumerable: true,
    get: () => body.validator ?? body.media[0]?.validator,
  }) as CompiledRequestBody;
}

/** The dates of `x-deprecation`, checked: a header must never say "Invalid Date". */
function compileDeprecation(operation: OperationDefinition): CompiledOperation['deprecation'] {
  const extension = operation.extensions['x-deprecation'] as { deprecatedAt?: unknown; sunset?: unknown } | undefined;
  if (extension === undefined) return undefined;
  if (extension === null || typeof extension !== 'object')
    throw new Error(`Failed to compile spec: ${operation.operationId} has an x-deprecation that is not an object`);
  for (const field of ['deprecatedAt', 'sunset'] as const) {
    const value = extension[field];
    if (
      value !== undefined &&
      (typeof value !== 'string' || !isoDatePattern.test(value) || Number.isNaN(Date.parse(value)))
    ) {
      throw new Error(
        `Failed to compile spec: ${operation.operationId} has x-deprecation.${field} ${JSON.stringify(value)}; expected an ISO 8601 date`,
      );
    }
  }
  return extension as CompiledOperation['deprecation'];
}

/** OpenAPI 3.1 section 4.8.12.1: header parameters of these names are ignored (the document says them elsewhere). */
const headersNotParameters = new Set(['accept', 'content-type', 'authorization']);

/** `/pets/{petId}/toys/{toyId}` -> ['petId', 'toyId']: the path parameters, in order. */
function parameterNamesOf(template: string): string[] {
  return [...template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
}

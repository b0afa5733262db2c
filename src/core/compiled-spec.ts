import * as z from 'zod';
import { isoDatePattern } from './mock-config.js';
import { resolveRefs } from '../../spec/resolve-refs.js';
import {
  httpMethods,
  type JsonSchema,
  type OpenApiDocument,
  type OpenApiMediaType,
  type OpenApiOperation,
  type OpenApiParameter,
} from '../../spec/openapi-types.js';

/** What the mock knows about one operation, read from the spec once at startup. */
export interface CompiledOperation {
  operationId: string;
  method: string;
  pathTemplate: string;
  /** Matches a path relative to the base path; groups are the path parameters, in order. */
  pattern: RegExp;
  parameterNames: string[];
  parameters: CompiledParameter[];
  requiresAuth: boolean;
  requestBody: CompiledRequestBody | undefined;
  responses: Map<number, CompiledResponse>;
  /** The first 2xx status the operation declares (what it answers when all goes well). */
  successStatus: number | undefined;
  deprecated: boolean;
  deprecation: { deprecatedAt?: string; sunset?: string } | undefined;
  stability: 'experimental' | 'beta' | undefined;
}

export interface CompiledParameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  /** Turns the parameter's text into the type its schema asks for, before validation. */
  coerce: (text: string) => unknown;
  validator: z.ZodType;
}

export interface CompiledRequestBody {
  required: boolean;
  mediaTypes: string[];
  schema: JsonSchema;
  validator: z.ZodType;
  /** Top-level properties the schema declares (never `id` or `__proto__`): all a handler may store. */
  declaredProperties: string[];
}

export interface CompiledResponse {
  status: number;
  /** JSON schema of the `application/json` body, if the spec gives one. */
  schema: JsonSchema | undefined;
  /** Named examples; an unnamed `example` is stored as `default`. */
  examples: Map<string, unknown>;
  headerNames: string[];
}

export interface CompiledSpec {
  title: string;
  version: string;
  /** Path prefix the API is served under, from the servers' URLs (for example `/v1`). */
  basePath: string;
  operations: CompiledOperation[];
  /** The dereferenced document, for tools that need more than the compiled view. */
  document: OpenApiDocument;
  componentSchemas: Record<string, JsonSchema>;
}

/** Tells a compiled spec from a parsed OpenAPI document. */
export function isCompiledSpec(spec: OpenApiDocument | CompiledSpec): spec is CompiledSpec {
  return Array.isArray((spec as CompiledSpec).operations) && typeof (spec as CompiledSpec).basePath === 'string';
}

const stabilityLevels = new Set(['experimental', 'beta']);

/**
 * Compiles a parsed OpenAPI 3.1 document into routes, validators and examples. Pure: runs in
 * Node and in a browser. Throws "Failed to compile spec: ..." on documents it cannot serve.
 *
 * @example const spec = compileSpec(await readSpecFile());
 */
export function compileSpec(raw: OpenApiDocument, options: { basePath?: string } = {}): CompiledSpec {
  const document = resolveRefs(raw);
  const globalSecurity = document.security ?? [];
  const bearerSchemes = new Set(
    Object.entries(document.components?.securitySchemes ?? {})
      .filter(([, scheme]) => scheme.type === 'http' && scheme.scheme?.toLowerCase() === 'bearer')
      .map(([name]) => name),
  );
  const operations: CompiledOperation[] = [];
  const seenIds = new Set<string>();

  for (const [pathTemplate, pathItem] of Object.entries(document.paths ?? {})) {
    for (const method of httpMethods) {
      const operation = pathItem[method];
      if (!operation) continue;
      const operationId = operation.operationId ?? `${method} ${pathTemplate}`;
      if (seenIds.has(operationId)) throw new Error(`Failed to compile spec: operationId ${operationId} is used twice`);
      seenIds.add(operationId);
      const security = operation.security ?? globalSecurity;
      const { pattern, names } = compilePath(pathTemplate);
      const responses = compileResponses(operation, operationId);
      const successStatus = [...responses.keys()].filter((s) => s >= 200 && s < 300).sort((a, b) => a - b)[0];
      operations.push({
        operationId,
        method: method.toUpperCase(),
        pathTemplate,
        pattern,
        parameterNames: names,
        parameters: compileParameters([...(pathItem.parameters ?? []), ...(operation.parameters ?? [])]),
        requiresAuth: security.length > 0 && security.every((requirement) => Object.keys(requirement).some((name) => bearerSchemes.has(name))),
        requestBody: compileRequestBody(operation, operationId),
        responses,
        successStatus,
        deprecated: operation.deprecated === true,
        deprecation: compileDeprecation(operation, operationId),
        stability: compileStability(operation, operationId),
      });
    }
  }
  return {
    title: document.info.title,
    version: document.info.version,
    basePath: options.basePath ?? basePathOf(document),
    operations,
    document,
    componentSchemas: (document.components?.schemas ?? {}) as Record<string, JsonSchema>,
  };
}

function compileStability(operation: OpenApiOperation, operationId: string): CompiledOperation['stability'] {
  const value = operation['x-stability'];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !stabilityLevels.has(value)) {
    throw new Error(`Failed to compile spec: ${operationId} has x-stability ${JSON.stringify(value)}; expected experimental or beta`);
  }
  return value as 'experimental' | 'beta';
}

/** The dates of `x-deprecation`, checked: a header must never say "Invalid Date". */
function compileDeprecation(operation: OpenApiOperation, operationId: string): CompiledOperation['deprecation'] {
  const extension = operation['x-deprecation'];
  if (extension === undefined) return undefined;
  for (const field of ['deprecatedAt', 'sunset'] as const) {
    const value = extension[field];
    if (value !== undefined && (typeof value !== 'string' || !isoDatePattern.test(value) || Number.isNaN(Date.parse(value)))) {
      throw new Error(`Failed to compile spec: ${operationId} has x-deprecation.${field} ${JSON.stringify(value)}; expected an ISO 8601 date`);
    }
  }
  return extension;
}

/** `/pets/{petId}` -> /^\/pets\/([^/]+)$/ with names ['petId']. */
function compilePath(template: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => {
      const name = /^\{([^}]+)\}$/.exec(part)?.[1];
      if (name) {
        names.push(name);
        return '([^/]+)';
      }
      return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
    })
    .join('');
  return { pattern: new RegExp(`^${source}$`), names };
}

function basePathOf(document: OpenApiDocument): string {
  const servers = document.servers ?? [];
  const local = servers.find((server) => /^https?:\/\/(127\.0\.0\.1|localhost)/.test(server.url)) ?? servers[0];
  if (!local) return '';
  const url = local.url.replace(/\{([^}]+)\}/g, (_, name: string) => local.variables?.[name]?.default ?? 'placeholder');
  try {
    return new URL(url, 'http://placeholder').pathname.replace(/\/+$/, '');
  } catch {
    throw new Error(`Failed to compile spec: server URL ${local.url} is not a URL`);
  }
}

function jsonMediaTypes(content: Record<string, OpenApiMediaType> | undefined): [string, OpenApiMediaType][] {
  return Object.entries(content ?? {}).filter(([type]) => /^application\/([\w.+-]+\+)?json$/i.test(type.split(';')[0]!.trim()));
}

function compileRequestBody(operation: OpenApiOperation, operationId: string): CompiledRequestBody | undefined {
  const body = operation.requestBody;
  if (!body) return undefined;
  const media = jsonMediaTypes(body.content);
  if (media.length === 0) throw new Error(`Failed to compile spec: ${operationId} has a request body without a JSON media type`);
  const schema = media[0]![1].schema ?? {};
  const declaredProperties = typeof schema === 'object' && schema.properties ? Object.keys(schema.properties).filter((name) => name !== 'id' && name !== '__proto__') : [];
  return { required: body.required === true, mediaTypes: media.map(([type]) => type), schema, validator: toZod(schema, `${operationId} request body`), declaredProperties };
}

function compileResponses(operation: OpenApiOperation, operationId: string): Map<number, CompiledResponse> {
  const responses = new Map<number, CompiledResponse>();
  for (const [statusText, response] of Object.entries(operation.responses ?? {})) {
    const status = Number(statusText);
    // "default" and "4XX"-style ranges are not concrete statuses a mock can pick.
    if (!Number.isInteger(status)) continue;
    const [, media] = jsonMediaTypes(response.content)[0] ?? [];
    const examples = new Map<string, unknown>();
    for (const [name, example] of Object.entries(media?.examples ?? {})) {
      if (example && 'value' in example) examples.set(name, example.value);
    }
    if (media && 'example' in media) examples.set('default', media.example);
    responses.set(status, { status, schema: media?.schema, examples, headerNames: Object.keys(response.headers ?? {}) });
  }
  if (responses.size === 0) throw new Error(`Failed to compile spec: ${operationId} declares no responses`);
  return responses;
}

function compileParameters(parameters: OpenApiParameter[]): CompiledParameter[] {
  return parameters
    .filter((parameter): parameter is OpenApiParameter & { in: 'path' | 'query' } => parameter.in === 'path' || parameter.in === 'query')
    .map((parameter) => ({
      name: parameter.name,
      in: parameter.in,
      required: parameter.in === 'path' || parameter.required === true,
      coerce: coercerFor(parameter.schema ?? {}),
      validator: toZod(parameter.schema ?? {}, `parameter ${parameter.name}`),
    }));
}

/** Parameters arrive as text; numbers and booleans are converted when the text really is one. */
function coercerFor(schema: JsonSchema): (text: string) => unknown {
  const type = typeof schema === 'object' ? schema.type : undefined;
  const types = Array.isArray(type) ? type : [type];
  return (text) => {
    if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text)) return Number(text);
    if (types.includes('boolean') && (text === 'true' || text === 'false')) return text === 'true';
    return text;
  };
}

/** Keywords that only describe or generate data; they must not reach the validator. */
const annotationKeywords = new Set(['example', 'examples', 'description', 'summary', 'title', 'deprecated', 'readOnly', 'writeOnly', 'externalDocs', 'xml', 'discriminator']);

export function stripAnnotations(schema: JsonSchema): JsonSchema {
  if (typeof schema !== 'object' || schema === null) return schema;
  if (Array.isArray(schema)) return schema.map((item) => stripAnnotations(item as JsonSchema)) as unknown as JsonSchema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (annotationKeywords.has(key) || key.startsWith('x-')) continue;
    if (key === 'properties' && value && typeof value === 'object') {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, stripAnnotations(sub as JsonSchema)]));
    } else if (value && typeof value === 'object') {
      out[key] = stripAnnotations(value as JsonSchema);
    } else {
      out[key] = value;
    }
  }
  return out as JsonSchema;
}

/** Builds a zod validator from a JSON schema (zod 4's `fromJSONSchema`). */
export function toZod(schema: JsonSchema, what: string): z.ZodType {
  try {
    return z.fromJSONSchema(stripAnnotations(schema) as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    throw new Error(`Failed to compile spec: the schema of ${what} is not supported (${(error as Error).message})`);
  }
}

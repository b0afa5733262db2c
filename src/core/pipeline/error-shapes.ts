import type { DataGenerator } from '../../../spec/data-generator.js';
import { reasonPhrasesOf } from '../../../spec/interface/reason-phrases.js';
import { responseByStatus } from '../../../spec/interface/response-lookup.js';
import type { JsonSchema } from '../../../spec/openapi-types.js';
import { type ErrorCode, errorCatalogue } from '../errors.js';
import type { CompiledOperation, CompiledResponse } from '../spec/compiled-spec.js';
import type { CompiledMedia } from '../spec/media.js';
import { type ErrorShape, MediaBody } from '../wire/response-shaping.js';
import { xmlText } from '../wire/xml-text.js';

/**
 * Error answers in the shape the spec declares for that status on that operation (its exact
 * status, else its `4XX`, else its `default` response): RFC 9457 problem details, `{error: {code,
 * message}}`, Matrix's `{errcode, error}`, whatever the document says, filled with the real reason
 * by the roles of its fields (status, code, message, title, type). The API's own Error shape
 * `{code, message, status}` where the spec declares none, or declares that one, or any body.
 *
 * @example
 * const shape = errorShapeOf(operation, data); // the operation declares application/problem+json for 404
 * shape('not_found', 'No resource at /v1/x', 404); // MediaBody('application/problem+json', '{"type":"about:blank","title":"No such resource","status":404,"detail":"No resource at /v1/x"}')
 */
export function errorShapeOf(
  operations: readonly CompiledOperation[],
  data: DataGenerator,
  fallback?: ErrorShape,
): ErrorShape {
  const declares = (status: number) =>
    operations
      .map((operation) => responseFor(operation, status))
      .find((response) => response !== undefined && mediaOf(response) !== undefined);
  // Decided at the first error, not when the mock is made: telling the API's own Error shape from
  // another validates a sample, and the first answer of a test file should not wait for the validator.
  let declaresAny: boolean | undefined;
  const templates = new Map<number, { media: CompiledMedia; template: unknown; strict: boolean } | null>();
  const own: ErrorShape = (code, message, status) => {
    declaresAny ??= [400, 401, 403, 404, 405, 406, 413, 415, 429].some((status) => declares(status) !== undefined);
    if (!declaresAny) return undefined;
    let entry = templates.get(status);
    if (entry === undefined) {
      const response = declares(status);
      // A status the document declares nowhere (a 405) in the problem details it writes elsewhere, if any.
      const problem =
        fallback === undefined && !declaresStatus(operations, status) ? problemResponse(operations) : undefined;
      const media = response !== undefined ? mediaOf(response) : problem !== undefined ? mediaOf(problem) : undefined;
      entry =
        media === undefined
          ? null
          : { media, template: templateOf(media, data, status), strict: response === undefined };
      templates.set(status, entry);
    }
    return entry === null ? undefined : shaped(entry, { code, message, status });
  };
  // An operation's errors: its own declared shape, else the one the document declares for that status elsewhere.
  if (fallback === undefined) return own;
  return (code, message, status) =>
    own(code, message, status) ?? (declaresStatus(operations, status) ? undefined : fallback(code, message, status));
}

/** Whether an operation declares a response for the status (its own, `4XX` or `default`), in any shape (the kit's own too). */
function declaresStatus(operations: readonly CompiledOperation[], status: number): boolean {
  return operations.some((operation) => responseFor(operation, status) !== undefined);
}

/** The first error response of the document in RFC 9457 problem details (`application/problem+json`). */
function problemResponse(operations: readonly CompiledOperation[]): CompiledResponse | undefined {
  for (const operation of operations)
    for (const response of [...operation.responses.values(), ...operation.rangeResponses.values()])
      if (
        (response.status === undefined || response.status >= 400) &&
        response.mediaEssences.includes('application/problem+json')
      )
        return response;
  return undefined;
}

function responseFor(operation: CompiledOperation, status: number): CompiledResponse | undefined {
  return responseByStatus(status, (key) =>
    key === String(status) ? operation.responses.get(status) : operation.rangeResponses.get(key),
  );
}

const ownFields = new Set(['code', 'message', 'status']);
/** An Error of the API's own shape: a schema over the same field names that refuses it declares a shape of its own. */
const ownErrorSample = { code: 'invalid_request', message: 'Invalid request', status: 400 };

/** The media type of a declared error, unless it is the API's own Error shape or any body (then the mock's own answer). */
function mediaOf(response: CompiledResponse): CompiledMedia | undefined {
  const media = response.media.find((entry) => entry.kind === 'json') ?? response.media[0];
  if (media === undefined) return undefined;
  if (media.kind !== 'json') return media.kind === 'text' || media.kind === 'xml' ? media : undefined;
  const properties = [...new Set([...propertiesOf(media.schema), ...exampleFields(media)])];
  // The API's own shape: all three of its fields and no other. A document's `{message}` (Docker's) or
  // `{code, message}` is the document's, answered with only the fields it declares.
  const ownShape =
    properties.length === 0 ||
    (properties.length === ownFields.size &&
      properties.every((name) => ownFields.has(name)) &&
      (media.validator?.isValid(ownErrorSample) ?? true));
  if (ownShape) return media.essence === 'application/json' || media.essence === '*/*' ? undefined : media;
  // A shape with no field to carry a reason (a `default` response that is a success, a `User`) would answer `{}`.
  if (!properties.some((name) => roles[name.toLowerCase()] !== undefined)) return undefined;
  // The same field names typed otherwise (`code: integer`, OpenAPI's own petstore example): the document's shape.
  return media;
}

/** The fields of the shape: its properties, its `allOf`'s, and its `oneOf`/`anyOf` alternatives' (PayPal's `error_default`). */
function propertiesOf(schema: JsonSchema | undefined): string[] {
  if (schema === undefined || typeof schema !== 'object') return [];
  const names = new Set(Object.keys((schema.properties as object | undefined) ?? {}));
  for (const part of alternativesOf(schema, 'allOf', 'oneOf', 'anyOf'))
    for (const name of propertiesOf(part)) names.add(name);
  return [...names];
}

function alternativesOf(schema: JsonSchema | undefined, ...keywords: string[]): JsonSchema[] {
  if (schema === undefined || typeof schema !== 'object') return [];
  return keywords.flatMap((keyword) => (Array.isArray(schema[keyword]) ? (schema[keyword] as JsonSchema[]) : []));
}

/** Fields of the first example: Slack's `default` declares only `ok` and shows `{ok: false, error: 'invalid_auth'}`. */
function exampleFields(media: CompiledMedia): string[] {
  const example = media.examples.values().next();
  const value = example.done ? undefined : example.value;
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];
}

function templateOf(media: CompiledMedia, data: DataGenerator, status: number): unknown {
  const example = media.examples.values().next();
  if (!example.done) return example.value;
  if (media.schema === undefined) return {};
  try {
    // The document's values first (a `code` example), the same template every run; of alternatives
    // (one error schema per status), the one that names the status.
    return data.generate(alternativeFor(media.schema, status), {
      allOptionals: true,
      key: `error ${media.type} ${status}`,
    });
  } catch {
    return {};
  }
}

/** Of `oneOf`/`anyOf` alternatives, the first whose text names the status (`Unauthorized`, `401`); else the schema. */
function alternativeFor(schema: JsonSchema, status: number): JsonSchema {
  const phrases = reasonPhrasesOf(status).map((phrase) => phrase.toLowerCase());
  const names = (part: JsonSchema) => {
    const text = JSON.stringify(part).toLowerCase();
    return phrases.some((phrase) => text.includes(phrase)) || new RegExp(`\\b${status}\\b`).test(text);
  };
  return alternativesOf(schema, 'oneOf', 'anyOf').find(names) ?? schema;
}

interface Reason {
  code: ErrorCode;
  message: string;
  status: number;
  /** RFC 9457 problem details (`application/problem+json`): `type` is `about:blank`. */
  problem?: boolean;
}

function shaped(
  { media, template, strict }: { media: CompiledMedia; template: unknown; strict: boolean },
  reason: Reason,
): MediaBody | undefined {
  const type = media.essence.includes('*') ? 'application/json' : media.type;
  if (media.kind === 'text') return new MediaBody(type, reason.message);
  if (media.kind === 'xml')
    return new MediaBody(type, xmlText({ code: reason.code, message: reason.message, status: reason.status }, 'error'));
  const properties = propertiesOf(media.schema);
  const problem =
    media.essence.endsWith('problem+json') || (properties.includes('title') && properties.includes('detail'));
  const schema = media.schema === undefined ? undefined : alternativeFor(media.schema, reason.status);
  const filled = fill(template, schema, { ...reason, problem }, 0);
  const validator = media.validator;
  // The document's shape when the reason fits it; else its own example or sample, still valid.
  // A shape borrowed from another status (`strict`) only when the reason fits it.
  const body =
    validator === undefined || validator.isValid(filled)
      ? filled
      : !strict && validator.isValid(template)
        ? template
        : undefined;
  return body === undefined ? undefined : new MediaBody(type, JSON.stringify(body));
}

type Role = 'status' | 'code' | 'message' | 'title' | 'type' | 'error';
const roles: Record<string, Role> = {
  status: 'status',
  statuscode: 'status',
  status_code: 'status',
  httpstatus: 'status',
  http_status: 'status',
  code: 'code',
  errcode: 'code',
  error_code: 'code',
  errorcode: 'code',
  message: 'message',
  detail: 'message',
  details: 'message',
  error_description: 'message',
  errordescription: 'message',
  errormsg: 'message',
  error_msg: 'message',
  errormessage: 'message',
  error_message: 'message',
  msg: 'message',
  reason: 'message',
  description: 'message',
  title: 'title',
  type: 'type',
  error: 'error',
};

/** The template with its fields set by role; nested objects (`{error: {code, message}}`) one level down. */
function fill(template: unknown, schema: JsonSchema | undefined, reason: Reason, depth: number): unknown {
  if (template === null || typeof template !== 'object' || Array.isArray(template)) return template;
  const out: Record<string, unknown> = { ...(template as Record<string, unknown>) };
  const properties =
    (typeof schema === 'object' ? (schema.properties as Record<string, JsonSchema> | undefined) : undefined) ?? {};
  const names = new Set([...Object.keys(out), ...Object.keys(properties)]);
  const hasMessage = [...names].some((name) => roles[name.toLowerCase()] === 'message');
  const required = new Set(
    typeof schema === 'object' && Array.isArray(schema.required) ? (schema.required as string[]) : [],
  );
  for (const name of names) {
    const role = roles[name.toLowerCase()];
    const current = out[name];
    const type = typeOf(properties[name], current);
    if (type === 'object' && depth < 2 && current !== undefined)
      out[name] = fill(current, properties[name], reason, depth + 1);
    const value = role === undefined ? undefined : valueFor(role, type, reason, hasMessage);
    if (value !== undefined && allows(properties[name], value)) out[name] = value;
    else if (value !== undefined) {
      // A value the document fixes (PayPal's enum of messages, Slack's of error codes): its own, else the nearest.
      if (!allows(properties[name], current)) out[name] = nearestAllowed(properties[name], reason);
    }
    // Sample data in an optional field the reason does not fill (`instance`, `timestamp`) would only mislead.
    else if (!required.has(name) && !(type === 'object' && current !== undefined)) delete out[name];
  }
  return out;
}

/** Of a field's `enum`, the value sharing most words with the reason (Slack's `invalid_auth` for a 401). */
function nearestAllowed(schema: JsonSchema | undefined, reason: Reason): unknown {
  if (typeof schema !== 'object') return undefined;
  if ('const' in schema) return schema.const;
  const values = Array.isArray(schema.enum) ? (schema.enum as unknown[]) : [];
  const words = `${reason.code} ${reason.message} ${reasonPhrasesOf(reason.status).join(' ')}`
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 3);
  // `auth` shares with `authorization`, `invalid` with `invalid`; short words (`not`, `no`) with nothing.
  const shared = (value: unknown) =>
    String(value)
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((word) => word.length > 3 && words.some((other) => other.startsWith(word) || word.startsWith(other)))
      .length;
  return values.reduce<unknown>((best, value) => (shared(value) > shared(best) ? value : best), values[0]);
}

/** Whether a field's `enum` or `const`, if any, admits the value. */
function allows(schema: JsonSchema | undefined, value: unknown): boolean {
  if (typeof schema !== 'object') return true;
  if ('const' in schema) return schema.const === value;
  return !Array.isArray(schema.enum) || schema.enum.includes(value);
}

function valueFor(role: Role, type: string | undefined, reason: Reason, hasMessage: boolean): unknown {
  const numeric = type === 'integer' || type === 'number';
  if (role === 'status') return numeric ? reason.status : type === 'string' ? String(reason.status) : undefined;
  if (role === 'code') return numeric ? reason.status : type === 'string' ? reason.code : undefined;
  if (type !== 'string') return undefined;
  if (role === 'message' || (role === 'error' && !hasMessage)) return reason.message;
  if (role === 'title' || role === 'error') return errorCatalogue[reason.code].title;
  return reason.problem ? 'about:blank' : undefined; // RFC 9457: a problem with no type of its own
}

function typeOf(schema: JsonSchema | undefined, value: unknown): string | undefined {
  const declared = typeof schema === 'object' ? schema.type : undefined;
  const first = Array.isArray(declared) ? declared.find((type) => type !== 'null') : declared;
  if (typeof first === 'string') return first;
  if (value === undefined) return undefined;
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'number' ? (Number.isInteger(value) ? 'integer' : 'number') : typeof value;
}

import type { SchemaValidator } from '../../../spec/schema-validator.js';
import { HttpError } from '../errors.js';
import type { CompiledOperation, CompiledRequestBody } from '../spec/compiled-spec.js';
import { type CompiledMedia, mediaCovers, mediaKind } from '../spec/media.js';
import type { ParameterSources } from '../spec/parameter-values.js';
import type { MockRequest } from '../types.js';
import { decodeFormBody, decodeMultipartBody } from '../wire/form-body.js';
import {
  assertJsonContentType,
  type DecodedJsonBody,
  decodeJsonBody,
  decodeUtf8,
  isJsonContentType,
} from '../wire/request-body.js';

// The checks of a request that need no state: run before the store's hit, their error answered after it.

/**
 * The request's body, decoded and validated, with its text; undefined when the operation takes
 * none or none came. JSON, form and multipart bodies are validated against their media type's
 * schema (a multipart body is parsed by the platform, so it answers with a promise); text bodies
 * against a string schema; other types are taken as they come, once their type is one declared.
 */
export function validatedBody(
  request: MockRequest,
  operation: CompiledOperation,
): DecodedJsonBody | undefined | Promise<DecodedJsonBody | undefined> {
  const declared = operation.requestBody;
  if (!declared) return undefined;
  if (!declared.jsonOnly) return validatedMediaBody(request, declared);
  // A body the transport did not read (it answers from the head alone) is judged by its head.
  const contentType = request.headers['content-type'];
  if (request.bodyUnread) assertJsonContentType(contentType);
  const decoded = decodeJsonBody(request.body, contentType, declared.required);
  if (!decoded.present) return undefined;
  checkValue(declared.validator, decoded.value);
  return decoded;
}

/** The issues are built only for a body that fails (safeParse); a valid one is checked and kept as it is. */
function checkValue(validator: SchemaValidator | undefined, value: unknown): void {
  if (validator === undefined || validator.isValid(value)) return;
  const result = validator.safeParse(value);
  throw new HttpError(
    'validation_failed',
    `Invalid request body: ${result.success ? 'it does not match the schema' : describeBodyIssues(result.error.issues, value)}`,
  );
}

/**
 * Whether a body of this Content-Type is read at all (`MockApp.needsBody`): a JSON-only body in
 * JSON, any other in one of its declared media types.
 */
export function bodyIsRead(declared: CompiledRequestBody, contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  return declared.jsonOnly ? isJsonContentType(contentType) : declaredMediaOf(declared, contentType) !== undefined;
}

function declaredMediaOf(declared: CompiledRequestBody, contentType: string): CompiledMedia | undefined {
  const essence = contentType.split(';')[0]!.trim().toLowerCase();
  return (
    declared.media.find((media) => media.essence === essence) ??
    declared.media.find((media) => mediaCovers(media.essence, essence))
  );
}

function validatedMediaBody(
  request: MockRequest,
  declared: CompiledRequestBody,
): DecodedJsonBody | undefined | Promise<DecodedJsonBody | undefined> {
  const contentType = request.headers['content-type'];
  const absent = !request.bodyUnread && (request.body === null || request.body.length === 0);
  if (absent) {
    if (declared.required)
      throw new HttpError(
        'body_required',
        `Invalid request body: a body is required (${declared.media.map((media) => media.essence).join(', ')})`,
      );
    return undefined;
  }
  const media = contentType === undefined ? undefined : declaredMediaOf(declared, contentType);
  if (media === undefined) {
    const declaredTypes = declared.media
      .map((media) => media.type)
      .join(', ')
      .slice(0, 300);
    throw new HttpError(
      'unsupported_media_type',
      `Content-Type ${contentType === undefined ? 'is missing' : `${contentType.slice(0, 100)} is not declared for this operation`}; send one of: ${declaredTypes}`,
    );
  }
  if (request.bodyUnread) return undefined;
  const body = request.body!;
  const essence = contentType!.split(';')[0]!.trim().toLowerCase();
  switch (mediaKind(essence)) {
    case 'json': {
      const decoded = decodeJsonBody(body, contentType, declared.required);
      if (decoded.present) checkValue(media.validator, decoded.value);
      return decoded.present ? decoded : undefined;
    }
    case 'form':
      return checked(media, decodeFormBody(body, media.fields));
    case 'multipart':
      return decodeMultipartBody(body, contentType!, media.fields).then((value) => checked(media, value));
    case 'text':
    case 'xml':
      return textBody(media, body);
    default:
      return { present: true, value: body, text: '' };
  }
}

function checked(media: CompiledMedia, value: Record<string, unknown>): DecodedJsonBody {
  checkValue(media.validator, value);
  return { present: true, value, text: JSON.stringify(value) };
}

/** A text body: validated when its schema describes a string (an XML body's object schema describes no text). */
function textBody(media: CompiledMedia, body: Uint8Array): DecodedJsonBody {
  let text: string;
  try {
    text = decodeUtf8(body);
  } catch {
    throw new HttpError('validation_failed', 'Invalid request body: it is not valid UTF-8');
  }
  const schema = media.schema;
  if (
    typeof schema === 'object' &&
    (schema.type === 'string' || schema.type === undefined) &&
    schema.properties === undefined
  )
    checkValue(media.validator, text);
  return { present: true, value: text, text };
}

/** Throws `invalid_parameter` for the first parameter (path, query, header, cookie) that is missing or invalid. */
export function validateParameters(operation: CompiledOperation, sources: ParameterSources): void {
  for (const parameter of operation.parameters) {
    const value = parameter.read(sources);
    if (value === undefined) {
      if (parameter.required)
        throw new HttpError('invalid_parameter', `Missing required ${parameter.in} parameter ${parameter.name}`);
      continue;
    }
    if (parameter.validator.isValid(value)) continue;
    const result = parameter.validator.safeParse(value);
    throw new HttpError(
      'invalid_parameter',
      `Invalid ${parameter.in} parameter ${parameter.name}: ${result.success ? 'invalid value' : (result.error.issues[0]?.message ?? 'invalid value')}`,
    );
  }
}

function describeBodyIssues(
  issues: readonly { path: PropertyKey[]; message: string; code: string }[],
  value: unknown,
): string {
  const isObject = value !== null && typeof value === 'object' && !Array.isArray(value);
  // Said so only where the schema asks for an object: a document's list body (`type: array`) is described by its issues.
  const wantsObject = issues.some((issue) => issue.path.length === 0 && /^expected object\b/.test(issue.message));
  if (!isObject && (wantsObject || issues.length === 0)) {
    return `the body must be a JSON object, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`;
  }
  return issues
    .slice(0, 5)
    .map((issue) => {
      const field = issue.path.map(String).join('.') || 'body';
      const missing = isObject && issue.path.length === 1 && !Object.hasOwn(value as object, issue.path[0] as string);
      if (missing) return `${field} is required`;
      return `${field}: ${issue.message.replace(/^Invalid input: /, '')}`;
    })
    .join('; ');
}

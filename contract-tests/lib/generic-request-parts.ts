import type { MediaDefinition, OperationDefinition, ParameterDefinition } from '../../spec/compile-spec.js';
import type { DataGenerator } from '../../spec/data-generator.js';
import type { JsonSchema } from '../../spec/openapi-types.js';

// The parts of a generic request read from the spec, out of the builder (generic-requests.ts):
// which headers are the kit's, a parameter's example and wrong texts, a cookie's text, and the
// body a declared media type is sent with.

/** Header names the kit sets itself: a parameter of that name is left to the kit. */
export const ownedHeaders = new Set([
  'accept',
  'content-type',
  'content-length',
  'authorization',
  'host',
  'user-agent',
  'cookie',
]);

/** JSON and `+json` media types (`application/json`, `application/problem+json`, `*\/*` excluded). */
export function isJsonMedia(essence: string): boolean {
  return /^application\/([\w.+-]+\+)?json$/.test(essence);
}

/** The parameter's examples (its own, path-level ones included), then its schema's examples, default and enum. */
export function exampleCandidates(parameter: ParameterDefinition): unknown[] {
  const schema = parameter.schema;
  const out: unknown[] = [...parameter.examples];
  if (schema !== null && typeof schema === 'object') {
    if (Array.isArray(schema.examples)) out.push(...(schema.examples as unknown[]));
    if ('default' in schema) out.push(schema.default);
    if (Array.isArray(schema.enum)) out.push(...(schema.enum as unknown[]));
  }
  return out;
}

/**
 * A cookie's value as a server reads it: as it is when every character may stand in a cookie (RFC 6265 section
 * 4.1.1: a base64 key's `+`, `/` and `=` may), else percent-encoded (a server compares the text it was sent).
 */
export function cookieText(value: string): string {
  return /^[\x21\x23-\x2B\x2D-\x3A\x3C-\x5B\x5D-\x7E]*$/.test(value) ? value : encodeURIComponent(value);
}

export function textOf(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(textOf).join(',');
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** A text the parameter's schema refuses, when its type makes one obvious. */
export function wrongText(parameter: ParameterDefinition): { text: string; why: string } | undefined {
  const schema = parameter.schema;
  if (schema === null || typeof schema !== 'object') return undefined;
  const types = Array.isArray(schema.type) ? schema.type : typeof schema.type === 'string' ? [schema.type] : [];
  const text = 'contract-test-not-a-number';
  if (types.length > 0 && types.every((type) => type === 'integer' || type === 'number'))
    return parameter.validator.isValid(text) ? undefined : { text, why: 'not a number' };
  if (types.length === 1 && types[0] === 'boolean')
    return parameter.validator.isValid(text) ? undefined : { text, why: 'not a boolean' };
  if (Array.isArray(schema.enum) && schema.enum.every((value) => typeof value === 'string')) {
    const outside = 'contract-test-not-in-enum';
    return parameter.validator.isValid(outside) ? undefined : { text: outside, why: 'not one of its enum values' };
  }
  return undefined;
}

/** The body of a valid request: the first JSON media type if any, else the first declared. */
export function bodyOf(
  definition: OperationDefinition,
  data: DataGenerator,
): { rawBody?: string | Uint8Array; contentType?: string; value?: unknown; media?: MediaDefinition } {
  const declared = definition.requestBody?.media ?? [];
  const media = declared.find((entry) => isJsonMedia(entry.essence)) ?? declared[0];
  if (media === undefined) return {};
  const value = mediaValueOf(media, data);
  if (isJsonMedia(media.essence) || media.essence === '*/*' || media.essence === 'application/*') {
    return {
      rawBody: JSON.stringify(value ?? {}),
      contentType: isJsonMedia(media.essence) ? media.type : 'application/json',
      value,
      media,
    };
  }
  if (media.essence === 'application/x-www-form-urlencoded') {
    return {
      rawBody: new URLSearchParams(fields(value, media.schema)).toString(),
      contentType: 'application/x-www-form-urlencoded',
      value,
      media,
    };
  }
  if (media.essence === 'multipart/form-data') {
    const boundary = 'contract-test-boundary';
    const parts = fields(value, media.schema).map(
      ([name, text]) =>
        `--${boundary}\r\nContent-Disposition: form-data; name="${name.replace(/"/g, '%22')}"\r\n\r\n${text}\r\n`,
    );
    return {
      rawBody: `${parts.join('')}--${boundary}--\r\n`,
      contentType: `multipart/form-data; boundary=${boundary}`,
      value,
      media,
    };
  }
  const type = media.essence.includes('*') ? 'application/octet-stream' : media.type;
  return {
    rawBody: typeof value === 'string' && value !== '' ? value : 'contract-test',
    contentType: type,
    value,
    media,
  };
}

function mediaValueOf(media: MediaDefinition, data: DataGenerator): unknown {
  for (const example of media.examples.values())
    if (media.validator === undefined || media.validator.isValid(example)) return example;
  return media.schema === undefined ? undefined : data.generate(media.schema);
}

/**
 * A form's fields as text. A form has no null: a null field is left out (an optional field absent
 * is what every server reads as "none"), or sent empty where the schema requires it; never the
 * text `null`, which a correct server of an integer field refuses.
 */
function fields(value: unknown, schema: JsonSchema | undefined): [string, string][] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  const required = requiredNames(schema, new Set());
  return Object.entries(value as Record<string, unknown>).flatMap(([name, field]): [string, string][] => {
    if (field === null) return required.has(name) ? [[name, '']] : [];
    return (Array.isArray(field) ? field : [field]).map((item): [string, string] => [
      name,
      typeof item === 'object' && item !== null ? JSON.stringify(item) : String(item),
    ]);
  });
}

/** The names a schema requires, its `allOf` members' too (a `$ref` is a shared object: each walked once). */
function requiredNames(schema: unknown, seen: Set<object>, names = new Set<string>()): Set<string> {
  if (schema === null || typeof schema !== 'object' || seen.has(schema)) return names;
  seen.add(schema);
  const { required, allOf } = schema as { required?: unknown; allOf?: unknown };
  if (Array.isArray(required)) for (const name of required) if (typeof name === 'string') names.add(name);
  if (Array.isArray(allOf)) for (const member of allOf) requiredNames(member, seen, names);
  return names;
}

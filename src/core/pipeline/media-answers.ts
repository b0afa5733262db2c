import type { DataGenerator } from '../../../spec/data-generator.js';
import type { JsonSchema } from '../../../spec/openapi-types.js';
import { HttpError } from '../errors.js';
import type { CompiledResponse } from '../spec/compiled-spec.js';
import type { CompiledMedia } from '../spec/media.js';
import { chooseMedia } from '../wire/accept.js';
import { placeholderFile } from '../wire/placeholder-files.js';
import { MediaBody } from '../wire/response-shaping.js';
import { xmlText } from '../wire/xml-text.js';

// Responses in the media types the spec declares: the one `Accept` prefers, its example or data
// made from its schema, written as that type (JSON, text, XML, a small valid image or file).

/**
 * The declared media type of a response that the request's `Accept` prefers (ties: the declared
 * order); undefined when the response declares no body. Throws `not_acceptable` (406) when the
 * response declares bodies and `Accept` takes none of them.
 *
 * @example responseMedia(response, 'application/xml')?.essence // 'application/xml'
 */
export function responseMedia(response: CompiledResponse, accept: string | undefined): CompiledMedia | undefined {
  const { media } = response;
  if (media.length === 0) return undefined;
  const index =
    media.length === 1 && (accept === undefined || accept === media[0]!.essence)
      ? 0
      : chooseMedia(response.mediaEssences, accept);
  if (index === -1) {
    throw new HttpError(
      'not_acceptable',
      `Accept ${accept!.slice(0, 100)} takes none of the media types declared for ${response.statusKey}: ${response.mediaEssences.join(', ').slice(0, 300)}`,
    );
  }
  return media[index];
}

/**
 * The media type's first example that its schema accepts, or data made from its schema (null
 * without either): the key's draw, the schema's own examples in it (`DataGenerator`), or a fresh
 * draw without a key. A JSON example that breaks its own schema (documents have them) is not
 * served: the answer must be what the document declares (the mock warns at start, `example-audit.ts`).
 */
export function sampleOf(media: CompiledMedia, data: DataGenerator, key?: string): unknown {
  const validator = media.kind === 'json' ? media.validator : undefined;
  for (const example of media.examples.values())
    if (validator === undefined || validator.isValid(example)) return example;
  if (media.schema !== undefined) return data.generate(media.schema, key === undefined ? {} : { key });
  const first = media.examples.values().next();
  return first.done ? null : first.value;
}

/**
 * A value written as the media type says: JSON as it is (`application/json`, which the response
 * shaper writes) or as text of its own type (`application/problem+json`); text and XML from a
 * string example or written from the value; binary types from a base64 example or a placeholder
 * file of that type.
 *
 * @example mediaBody(pngMedia, null) // MediaBody('image/png', <a 1x1 PNG>)
 */
export function mediaBody(media: CompiledMedia, value: unknown): unknown {
  const concrete = !media.type.includes('*');
  switch (media.kind) {
    case 'json':
      if (media.essence === 'application/json' || media.essence === '*/*' || media.essence === 'application/*')
        return value;
      return new MediaBody(media.type, JSON.stringify(value) ?? 'null');
    case 'text':
      return new MediaBody(
        concrete ? media.type : 'text/plain',
        typeof value === 'string'
          ? value
          : value === null || value === undefined
            ? ''
            : typeof value === 'object'
              ? JSON.stringify(value)
              : String(value),
      );
    case 'xml':
      return new MediaBody(
        concrete ? media.type : 'application/xml',
        typeof value === 'string' && value.trimStart().startsWith('<')
          ? value
          : xmlText(value, xmlRootName(media), xmlItemName(media)),
      );
    case 'form':
      return new MediaBody(media.type, formText(value));
    default:
      return binaryBody(media, value);
  }
}

function binaryBody(media: CompiledMedia, value: unknown): MediaBody {
  const schema = media.schema;
  if (
    typeof value === 'string' &&
    typeof schema === 'object' &&
    schema.contentEncoding === 'base64' &&
    !media.type.includes('*')
  ) {
    try {
      return new MediaBody(
        media.type,
        Uint8Array.from(atob(value), (char) => char.charCodeAt(0)),
      );
    } catch {
      // Not base64 after all: a placeholder of the type instead.
    }
  }
  if (media.kind === 'multipart')
    return new MediaBody('multipart/form-data; boundary=petstore-kit', '--petstore-kit--\r\n');
  const file = placeholderFile(media.essence);
  return new MediaBody(file.type, file.bytes);
}

/** The root element: the schema's `xml.name`; a list of named items is their plural (`pets` of `pet`). */
function xmlRootName(media: CompiledMedia): string {
  const items = itemsNameOf(media.schema);
  return xmlNameOf(media.schema) ?? (items === undefined ? 'root' : `${items}s`);
}

/** What a list's items are called (the items' `xml.name`), when the answer is a list. */
function xmlItemName(media: CompiledMedia): string {
  return itemsNameOf(media.schema) ?? 'item';
}

function itemsNameOf(schema: JsonSchema | undefined): string | undefined {
  return typeof schema === 'object' ? xmlNameOf(schema.items as JsonSchema | undefined) : undefined;
}

function xmlNameOf(schema: JsonSchema | undefined): string | undefined {
  const xml = typeof schema === 'object' ? (schema.xml as { name?: unknown } | undefined) : undefined;
  return typeof xml?.name === 'string' ? xml.name : undefined;
}

function formText(value: unknown): string {
  if (value === null || typeof value !== 'object') return '';
  const form = new URLSearchParams();
  for (const [name, field] of Object.entries(value))
    form.append(name, typeof field === 'object' ? JSON.stringify(field) : String(field));
  return form.toString();
}

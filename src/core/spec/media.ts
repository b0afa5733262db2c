import type { JsonSchema } from '../../../spec/openapi-types.js';
import type { SchemaValidator } from '../../../spec/schema-validator.js';
import { itemSchema, propertySchemas, textValue, valueTypes } from './text-typing.js';

/** How the mock reads or writes a body of a media type. */
export type MediaKind = 'json' | 'form' | 'multipart' | 'text' | 'xml' | 'binary';

/** One declared media type of a request or response body, as the mock uses it. */
export interface CompiledMedia {
  /** As declared (`application/problem+json`, `image/*`). */
  type: string;
  /** Lower case, without parameters. */
  essence: string;
  kind: MediaKind;
  schema: JsonSchema | undefined;
  /** Named examples; an unnamed `example` is stored as `default`. */
  examples: Map<string, unknown>;
  /** The schema's validator (compiled on first use), or undefined without a schema. */
  readonly validator: SchemaValidator | undefined;
  /** Form and multipart bodies: how each declared field's text becomes its schema's type. */
  fields: ReadonlyMap<string, (values: readonly string[]) => unknown>;
}

const noFields: ReadonlyMap<string, (values: readonly string[]) => unknown> = new Map();

/** A field's declared part type (`encoding.<name>.contentType`, a list allowed) is JSON. */
const jsonPart = (contentType: unknown): boolean =>
  typeof contentType === 'string' &&
  contentType
    .split(',')
    .some((type) => /^application\/([\w.+-]+\+)?json$/.test(type.split(';')[0]!.trim().toLowerCase()));

/**
 * How the fields of a form (or multipart) body become values of the schema's types: a field's
 * text is a number, a boolean, null, JSON (an object part) or an array of its repeated values when
 * the property's whole schema says so (its type, nullable, const or enum, through allOf, anyOf,
 * oneOf and references: src/core/spec/text-typing.ts), and stays text when it does not parse as
 * that or when the schema gives no type; a part the `encoding` declares JSON is read as JSON then.
 *
 * @example formFields({ properties: { age: { type: 'integer' } } }).get('age')!(['3']) // 3
 */
export function formFields(
  schema: JsonSchema | undefined,
  encoding?: Readonly<Record<string, { contentType?: unknown } | undefined>>,
): ReadonlyMap<string, (values: readonly string[]) => unknown> {
  const properties = propertySchemas(schema);
  if (properties.size === 0) return noFields;
  const fields = new Map<string, (values: readonly string[]) => unknown>();
  for (const [name, property] of properties) {
    const part =
      encoding !== null && typeof encoding === 'object' && Object.hasOwn(encoding, name) ? encoding[name] : undefined;
    fields.set(name, fieldDecoder(property, jsonPart(typeof part === 'object' ? part?.contentType : undefined)));
  }
  return fields;
}

/** A part declared JSON whose schema gives no type: its text read as the JSON it is. */
const untypedJsonPart: JsonSchema = { type: 'object' };

function fieldDecoder(property: JsonSchema, declaredJson: boolean): (values: readonly string[]) => unknown {
  const types = valueTypes(property);
  if (!types.includes('array')) {
    const read = types.length === 0 && declaredJson ? untypedJsonPart : property;
    return (values) => textValue(values[0]!, read);
  }
  const items = itemSchema(property);
  const itemTypes = valueTypes(items);
  return (values) =>
    // A part declared JSON is the array itself (`[1,2]`), not items to split at their commas.
    declaredJson && values.length === 1 && values[0]!.startsWith('[')
      ? textValue(values[0]!, property)
      : values
          .flatMap((value) =>
            values.length === 1 && value.includes(',') && !itemTypes.includes('string') ? value.split(',') : [value],
          )
          .map((value) => textValue(value, items));
}

/**
 * The kind of a media type (lower case, no parameters).
 *
 * @example mediaKind('application/problem+json') // 'json'
 * @example mediaKind('image/png') // 'binary'
 */
export function mediaKind(essence: string): MediaKind {
  if (/^application\/([\w.+-]+\+)?json$/.test(essence) || essence === '*/*' || essence === 'application/*')
    return 'json';
  if (essence === 'application/x-www-form-urlencoded') return 'form';
  if (essence.startsWith('multipart/')) return 'multipart';
  if (/^(application|text)\/([\w.+-]+\+)?xml$/.test(essence)) return 'xml';
  if (
    essence.startsWith('text/') ||
    essence === 'application/javascript' ||
    essence === 'application/yaml' ||
    essence === 'application/x-yaml' ||
    essence === 'image/svg+xml'
  )
    return 'text';
  return 'binary';
}

/**
 * Does a declared media type (a range such as image/&#42; or a concrete type) cover a concrete one?
 *
 * @example mediaCovers('image/*', 'image/png') // true
 */
export function mediaCovers(declared: string, concrete: string): boolean {
  if (declared === concrete || declared === '*/*') return true;
  return declared.endsWith('/*') && concrete.startsWith(declared.slice(0, -1));
}

import type { JsonSchema } from '../../../spec/openapi-types.js';
import type { SchemaValidator } from '../../../spec/schema-validator.js';

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

/**
 * How the fields of a form (or multipart) body become values of the schema's types: a field's
 * text is a number, a boolean, JSON (an object part) or an array of its repeated values when the
 * property's schema says so, and stays text when it does not parse as that.
 *
 * @example formFields({ properties: { age: { type: 'integer' } } }).get('age')!(['3']) // 3
 */
export function formFields(
  schema: JsonSchema | undefined,
): ReadonlyMap<string, (values: readonly string[]) => unknown> {
  if (schema === undefined || typeof schema !== 'object') return noFields;
  const fields = new Map<string, (values: readonly string[]) => unknown>();
  const parts = [schema, ...(Array.isArray(schema.allOf) ? (schema.allOf as JsonSchema[]) : [])];
  for (const part of parts) {
    if (typeof part !== 'object' || part.properties === null || typeof part.properties !== 'object') continue;
    for (const [name, property] of Object.entries(part.properties)) {
      const types = typesOf(property);
      if (types.includes('array')) {
        const itemTypes = typesOf(typeof property === 'object' ? property.items : undefined);
        fields.set(name, (values) =>
          values
            .flatMap((value) =>
              values.length === 1 && value.includes(',') && !itemTypes.includes('string') ? value.split(',') : [value],
            )
            .map((value) => scalar(value, itemTypes)),
        );
      } else fields.set(name, (values) => scalar(values[0]!, types));
    }
  }
  return fields;
}

export function typesOf(schema: JsonSchema | undefined): string[] {
  const type = typeof schema === 'object' ? schema.type : undefined;
  return Array.isArray(type) ? type : typeof type === 'string' ? [type] : [];
}

/**
 * A value sent as text (a form field, a parameter) as the type its schema asks for: a number, a
 * boolean, null, JSON for an object; text when it does not parse as that (validation then says why).
 */
export function scalar(text: string, types: readonly string[]): unknown {
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text))
    return Number(text);
  if (types.includes('boolean') && (text === 'true' || text === 'false')) return text === 'true';
  if (types.includes('null') && text === '') return null;
  if (types.includes('object') || (types.includes('array') && text.startsWith('['))) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
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

import type { JsonSchema } from '../../../spec/openapi-types.js';
import { itemSchema, propertySchemas, textValue, valueTypes } from './text-typing.js';

/** What of a request a parameter can come from. */
export interface ParameterSources {
  pathParams: Readonly<Record<string, string>>;
  query: URLSearchParams;
  /** Lower-case names, as the transports give them. */
  headers: Readonly<Record<string, string | undefined>>;
}

/** A parameter's value as its schema's type, from the request; undefined when the request has none. */
export type ParameterReader = (sources: ParameterSources) => unknown;

export interface ParameterSerialization {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  schema: JsonSchema | undefined;
  /** As declared (undefined: the default of its location). */
  style: string | undefined;
  explode: boolean | undefined;
  /** Described by `content` rather than `schema`: its text is that media type (JSON), not a serialization. */
  content: boolean;
}

const delimiters: Record<string, string> = { form: ',', spaceDelimited: ' ', pipeDelimited: '|' };

/**
 * How a parameter is read (path, query, header, cookie), by its `style` and `explode` (OpenAPI 3.1 section 4.8.12.4):
 * arrays from repeated names (`?tags=a&tags=b`), from a delimited value (`?ids=1,2,3`, `|`, space)
 * or a path segment (`/1,2,3`, `.1.2`, `;id=1,2`); objects from `name[key]` (deepObject), from their
 * properties as names (form, exploded) or from `key,value` pairs; scalars as text, then as the
 * schema's type. Swagger 2.0's `collectionFormat` arrives here as the equivalent style.
 *
 * @example parameterReader({ name: 'tags', in: 'query', schema: { type: 'array', items: { type: 'integer' } }, style: undefined, explode: undefined, content: false })({ pathParams: {}, query: new URLSearchParams('tags=1&tags=2'), headers: {} }) // [1, 2]
 */
export function parameterReader(parameter: ParameterSerialization): ParameterReader {
  const shape = shapeOf(parameter);
  return parameter.in === 'query' ? queryReader(parameter.name, shape) : textReader(parameter, shape);
}

/** What a parameter's text is read as: its schema's types and how its style splits it. */
interface Shape {
  /** The whole schema (text-typing.ts reads its nullable, allOf, oneOf, const and enum too). */
  schema: JsonSchema | undefined;
  style: string;
  explode: boolean;
  /** An object's properties (through allOf, anyOf and oneOf); empty for other schemas. */
  properties: ReadonlyMap<string, JsonSchema>;
  array: boolean;
  object: boolean;
  /** The schema of its items (an array's). */
  items: JsonSchema | undefined;
}

function shapeOf(parameter: ParameterSerialization): Shape {
  const { schema, content } = parameter;
  const types = valueTypes(schema);
  const style = parameter.style ?? (parameter.in === 'query' ? 'form' : 'simple');
  const array = types.includes('array') && !content;
  const object = types.includes('object') && !types.includes('array') && !content;
  return {
    schema,
    style,
    explode: parameter.explode ?? style === 'form',
    // Gathered only where they are read: most parameters are scalars, and a large document has many.
    properties: object ? propertySchemas(schema) : noProperties,
    array,
    object,
    items: array ? itemSchema(schema) : undefined,
  };
}

const noProperties: ReadonlyMap<string, JsonSchema> = new Map();

// Functions of the shape, not closures made per parameter: two closures each were 600 bytes a parameter.
/** Items as their schema reads them. */
function listOf(shape: Shape, texts: readonly string[]): unknown[] {
  return texts.map((text) => textValue(text, shape.items));
}

/** `key,value,key,value` as an object, each value as its property's schema reads it. */
function pairsOf(shape: Shape, texts: readonly string[]): Record<string, unknown> {
  const value: Record<string, unknown> = {};
  for (let index = 0; index + 1 < texts.length; index += 2)
    value[texts[index]!] = textValue(texts[index + 1]!, shape.properties.get(texts[index]!));
  return value;
}

/** A path, header or cookie parameter: one text, split as its style says. */
function textReader(parameter: ParameterSerialization, shape: Shape): ParameterReader {
  const { name } = parameter;
  const { schema, style, explode, properties, array, object } = shape;
  const header = name.toLowerCase();
  const textOf: (sources: ParameterSources) => string | undefined =
    parameter.in === 'path'
      ? ({ pathParams }) => pathParams[name]
      : parameter.in === 'header'
        ? ({ headers }) => headers[header]
        : ({ headers }) => cookieValue(headers.cookie, name);
  return (sources) => {
    const raw = textOf(sources);
    if (raw === undefined) return undefined;
    const text = unprefixed(raw, style, name);
    if (array) return listOf(shape, splitPathList(text, style, explode, name));
    if (object && style === 'simple')
      return explode
        ? Object.fromEntries(text.split(',').map((pair) => keyValue(pair, properties)))
        : pairsOf(shape, text.split(','));
    return textValue(text, schema);
  };
}

/** A query parameter: repeated names, delimited values, `name[key]` or the properties as names. */
function queryReader(name: string, shape: Shape): ParameterReader {
  const { schema, style, explode, properties, array, object } = shape;
  if (array) {
    const delimiter = delimiters[style] ?? ',';
    return ({ query }) => {
      const texts = query.getAll(name);
      if (texts.length === 0) return undefined;
      return listOf(shape, explode && style === 'form' ? texts : texts.flatMap((text) => text.split(delimiter)));
    };
  }
  if (object && style === 'deepObject') {
    const prefix = `${name}[`;
    return ({ query }) => {
      let value: Record<string, unknown> | undefined;
      for (const [key, text] of query) {
        if (!key.startsWith(prefix) || !key.endsWith(']')) continue;
        const property = key.slice(prefix.length, -1);
        value ??= {};
        value[property] = textValue(text, properties.get(property));
      }
      return value;
    };
  }
  if (object && style === 'form') {
    return ({ query }) => {
      if (!explode) {
        const text = query.get(name);
        return text === null ? undefined : pairsOf(shape, text.split(','));
      }
      let value: Record<string, unknown> | undefined;
      for (const property of properties.keys()) {
        const text = query.get(property);
        if (text === null) continue;
        value ??= {};
        value[property] = textValue(text, properties.get(property));
      }
      return value;
    };
  }
  return ({ query }) => {
    const text = query.get(name);
    return text === null ? undefined : textValue(text, schema);
  };
}

/**
 * One cookie's value from a `Cookie` header (RFC 6265 section 5.4: `name=value` pairs split by `;`),
 * its quotes removed; undefined when it is not there.
 */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const equals = part.indexOf('=');
    if (equals !== -1 && part.slice(0, equals).trim() === name)
      return part
        .slice(equals + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1');
  }
  return undefined;
}

/** A label (`.a`) or matrix (`;name=a`) value without its prefix. */
function unprefixed(text: string, style: string, name: string): string {
  if (style === 'label' && text.startsWith('.')) return text.slice(1);
  if (style === 'matrix' && text.startsWith(`;${name}=`)) return text.slice(name.length + 2);
  return text;
}

function splitPathList(text: string, style: string, explode: boolean, name: string): string[] {
  if (style === 'label' && explode) return text.split('.');
  if (style === 'matrix' && explode) return text.split(`;${name}=`);
  return text.split(',');
}

function keyValue(pair: string, properties: ReadonlyMap<string, JsonSchema>): [string, unknown] {
  const equals = pair.indexOf('=');
  const key = equals === -1 ? pair : pair.slice(0, equals);
  return [key, textValue(equals === -1 ? '' : pair.slice(equals + 1), properties.get(key))];
}

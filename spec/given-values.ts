import type { JsonSchema } from './openapi-types.js';
import { keywordsShaped } from './schema-walk.js';

// The values a document gives for its schemas (examples, defaults, an enum's first member, a const)
// served before anything is generated, and the id rule for what is generated. Used by the data
// generator on the document's schemas as written (references intact), so the walk is by structure.

/** One value a schema node gives, and where in the node it is written (`examples[0]`, `default`). */
export interface GivenValue {
  value: unknown;
  where: string;
}

/** Is `value` valid against the schema at `path` below the walked root (`['properties', 'name']`)? */
export type GivenValueCheck = (value: unknown, path: readonly string[]) => boolean;

/**
 * The values a schema node gives, in the order a reader expects: its `examples` (2020-12), an
 * `example` (OpenAPI 3.0's, kept in some 3.1 documents), `default`, the first member of `enum`, `const`.
 * `upTo` stops after the examples, or after `default` (what an author writes as a sample).
 *
 * @example givenValues({ type: 'string', examples: ['Rex'], default: 'x' }) // [{ value: 'Rex', where: 'examples[0]' }, { value: 'x', where: 'default' }]
 */
export function givenValues(node: JsonSchema, upTo: 'examples' | 'default' | 'const' = 'const'): GivenValue[] {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return [];
  const out: GivenValue[] = [];
  if (Array.isArray(node.examples))
    for (const [index, value] of node.examples.entries()) out.push({ value, where: `examples[${index}]` });
  if (Object.hasOwn(node, 'example')) out.push({ value: node.example, where: 'example' });
  if (upTo === 'examples') return out;
  if (Object.hasOwn(node, 'default')) out.push({ value: node.default, where: 'default' });
  if (upTo === 'default') return out;
  if (Array.isArray(node.enum) && node.enum.length > 0) out.push({ value: node.enum[0], where: 'enum[0]' });
  if (Object.hasOwn(node, 'const')) out.push({ value: node.const, where: 'const' });
  return out;
}

/**
 * The keywords whose subschemas generated data is made of (not `not`, `if`: pinning inside would change
 * their meaning); how each holds them is the one table's (schema-walk.ts).
 */
const givenKeywords = [
  'properties',
  'patternProperties',
  'items',
  'additionalProperties',
  'contains',
  'prefixItems',
  'allOf',
  'anyOf',
  'oneOf',
];
/** Keywords whose value is a map of subschemas that generated data is made of. */
export const givenMapKeywords = keywordsShaped('map', givenKeywords);
/** Keywords whose value is one such subschema. */
export const givenSchemaKeywords = keywordsShaped('one', givenKeywords);
/** Keywords whose value is a list of such subschemas. */
export const givenListKeywords = keywordsShaped('list', givenKeywords);

/** Nesting a walk follows (a document's schemas, references not followed): deeper is no real schema. */
const maxNesting = 64;

/**
 * The schema with every node that gives a value its own schema accepts replaced by `{ const: value }`
 * (when `pin`), and the id rule applied to the properties it generates. The node itself when nothing
 * changes; shared nodes are never edited.
 *
 * @example prepareGiven({ properties: { name: { type: 'string', examples: ['Rex'] } } }, () => true, true) // { properties: { name: { const: 'Rex' } } }
 */
export function prepareGiven(
  root: JsonSchema,
  check: GivenValueCheck,
  pin: boolean,
  preparedRef: (ref: string) => JsonSchema | undefined = () => undefined,
): JsonSchema {
  const walk = (node: unknown, path: string[]): unknown => {
    if (node === null || typeof node !== 'object' || Array.isArray(node) || path.length > maxNesting) return node;
    // A node with properties or items of its own takes only its examples: its `default` (`{}`, `[]`) says less
    // than its properties' examples do.
    const upTo = 'properties' in node || 'items' in node ? 'examples' : 'const';
    if (pin)
      for (const { value } of givenValues(node as JsonSchema, upTo)) if (check(value, path)) return { const: value };
    let copy: Record<string, unknown> | undefined;
    const set = (key: string, value: unknown) => {
      copy ??= { ...(node as Record<string, unknown>) };
      define(copy, key, value);
    };
    for (const [key, value] of Object.entries(node)) {
      if (givenMapKeywords.has(key) && isRecord(value)) {
        let changed: Record<string, unknown> | undefined;
        for (const [name, sub] of Object.entries(value)) {
          let prepared = walk(sub, [...path, key, name]);
          if (key === 'properties') prepared = withIdRule(name, prepared);
          if (prepared !== sub) define((changed ??= { ...value }), name, prepared);
        }
        if (changed !== undefined) set(key, changed);
      } else if (givenSchemaKeywords.has(key)) {
        const prepared = walk(value, [...path, key]);
        if (prepared !== value) set(key, prepared);
      } else if (givenListKeywords.has(key) && Array.isArray(value)) {
        const prepared = value.map((sub, index) => walk(sub, [...path, key, String(index)]));
        if (prepared.some((sub, index) => sub !== value[index])) set(key, prepared);
      }
    }
    // Items that all carry one given id (or are one given value) would repeat it down a list, and a
    // frontend keys its list by it: such a list holds as few items as the schema allows (one), as Prism's.
    const items = (copy ?? (node as Record<string, unknown>)).items;
    if (pin && items !== undefined && givesIdentity(items, preparedRef)) {
      const { minItems, maxItems } = node as { minItems?: unknown; maxItems?: unknown };
      const fewest = Math.max(typeof minItems === 'number' ? minItems : 1, 1);
      if (maxItems === undefined || (typeof maxItems === 'number' && maxItems > fewest)) set('maxItems', fewest);
    }
    return copy ?? node;
  };
  return walk(root, []) as JsonSchema;
}

/** A prepared schema that is one given value, or an object whose id is one (through a reference). */
function givesIdentity(schema: unknown, preparedRef: (ref: string) => JsonSchema | undefined): boolean {
  let node = schema;
  if (isRecord(node) && typeof node.$ref === 'string' && Object.keys(node).length === 1) node = preparedRef(node.$ref);
  if (!isRecord(node)) return false;
  if ('const' in node) return true;
  const properties = node.properties;
  if (!isRecord(properties)) return false;
  return Object.entries(properties).some(
    ([name, property]) => idName.test(name) && isRecord(property) && 'const' in property,
  );
}

/** `id`, `petId`, `pet_id`, `pet-id`, `ID`, `uuid`: a property a frontend routes or keys by. */
const idName = /^(id|uuid|guid)$|[a-z0-9](Id|ID|Uuid)$|[_-](id|uuid)$/i;

/**
 * The id rule: a generated id is never empty (an empty string where the schema sets no minLength;
 * a frontend cannot route to it) nor below 1 (where the schema sets no lower bound). Only narrows
 * what the schema allows, so generated data stays valid.
 */
function withIdRule(name: string, schema: unknown): unknown {
  if (!idName.test(name) || !isRecord(schema) || 'const' in schema || 'enum' in schema || '$ref' in schema)
    return schema;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('string') && schema.minLength === undefined && schema.pattern === undefined)
    return { ...schema, minLength: 1 };
  if (
    (types.includes('integer') || types.includes('number')) &&
    schema.minimum === undefined &&
    schema.exclusiveMinimum === undefined &&
    (typeof schema.maximum !== 'number' || schema.maximum >= 1) &&
    (typeof schema.exclusiveMaximum !== 'number' || schema.exclusiveMaximum > 1)
  )
    return { ...schema, minimum: 1 };
  return schema;
}

function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A JSON pointer's segment, escaped (RFC 6901). */
export function pointerSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

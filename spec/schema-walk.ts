// Where a document's schemas are, written once: which JSON Schema keywords hold subschemas (and in what
// shape), which OpenAPI keys hold names rather than keywords, which hold data, and one walk over every
// schema of a document found by that structure. The audit (schema-keywords.ts), the 3.0-to-3.1 reading
// (normalise-openapi.ts), the reference resolver, the structure table (openapi-structure.ts) and the given
// values (given-values.ts) all read these, so a keyword one of them knows every walk follows.

/** How a keyword holds subschemas: one schema, a map of named schemas, or a list of schemas. */
export type SubschemaShape = 'one' | 'map' | 'list';

/**
 * Every keyword whose value is made of subschemas (JSON Schema 2020-12, and the draft-4 forms
 * normalise-openapi.ts rewrites: `additionalItems`, a list under `items`).
 */
export const subschemaKeywords: ReadonlyMap<string, SubschemaShape> = new Map<string, SubschemaShape>([
  ['properties', 'map'],
  ['patternProperties', 'map'],
  ['$defs', 'map'],
  ['definitions', 'map'],
  ['dependentSchemas', 'map'],
  ['items', 'one'],
  ['additionalItems', 'one'],
  ['contains', 'one'],
  ['additionalProperties', 'one'],
  ['propertyNames', 'one'],
  ['not', 'one'],
  ['if', 'one'],
  ['then', 'one'],
  ['else', 'one'],
  ['unevaluatedItems', 'one'],
  ['unevaluatedProperties', 'one'],
  ['prefixItems', 'list'],
  ['allOf', 'list'],
  ['anyOf', 'list'],
  ['oneOf', 'list'],
]);

/** The keywords of `subschemaKeywords` whose value is a map of named schemas. */
export const schemaMapKeywords: ReadonlySet<string> = keywordsShaped('map');

/** The keywords of `keywords` (all of the table when not given) that hold subschemas in `shape`. */
export function keywordsShaped(shape: SubschemaShape, keywords?: Iterable<string>): ReadonlySet<string> {
  const names = keywords === undefined ? subschemaKeywords.keys() : keywords;
  return new Set([...names].filter((keyword) => subschemaKeywords.get(keyword) === shape));
}

/**
 * OpenAPI's (and JSON Schema's) maps whose keys are names, not keywords: below them a key named
 * `schema`, `example` or `default` is a name like any other.
 */
export const documentNameMaps: ReadonlySet<string> = new Set([
  'paths',
  'webhooks',
  'responses',
  'parameters',
  'requestBodies',
  'headers',
  'securitySchemes',
  'links',
  'callbacks',
  'pathItems',
  'content',
  'encoding',
  'variables',
  'examples',
  'schemas',
  'mapping',
  ...schemaMapKeywords,
]);

const dataKeys = new Set(['example', 'enum', 'const', 'default', 'value']);

/** Keys whose values are data (examples, enumerations, extensions): nothing inside them is a schema or a `$ref`. */
export function isDataKey(key: string, value: unknown): boolean {
  return dataKeys.has(key) || key.startsWith('x-') || (key === 'examples' && Array.isArray(value));
}

/**
 * Calls `visit` for each subschema `keyword`'s `value` holds, with its name or index (undefined for
 * a single schema, given whatever it is: a reader refuses what is not a schema). A list where one
 * schema belongs (draft 4's `items: [...]`) is read as a list.
 *
 * @example subschemasOf('allOf', [{ type: 'string' }], visit) // visit({ type: 'string' }, '0')
 */
export function subschemasOf(
  keyword: string,
  value: unknown,
  visit: (subschema: unknown, entry: string | undefined) => void,
): void {
  const shape = subschemaKeywords.get(keyword);
  if (shape === undefined) return;
  if (Array.isArray(value)) {
    if (shape !== 'map') for (let index = 0; index < value.length; index += 1) visit(value[index], String(index));
  } else if (shape === 'one') visit(value, undefined);
  else if (shape === 'map' && value !== null && typeof value === 'object')
    for (const [name, subschema] of Object.entries(value)) visit(subschema, name);
}

/**
 * Calls `visit` for each schema a document holds at its top (a `schema`, `components.schemas`, Swagger's
 * `definitions`), found by structure, with its JSON pointer; not the schemas inside them. Explicit
 * stack, shared objects read once: safe on any nesting and on YAML aliases.
 */
export function forEachDocumentSchema(document: unknown, visit: (schema: unknown, pointer: string) => void): void {
  const seen = new Set<object>();
  const stack: { node: unknown; pointer: string; isNameMap: boolean }[] = [
    { node: document, pointer: '', isNameMap: false },
  ];
  while (stack.length > 0) {
    const { node, pointer, isNameMap } = stack.pop()!;
    if (node === null || typeof node !== 'object' || seen.has(node)) continue;
    seen.add(node);
    for (const [key, value] of Object.entries(node)) {
      if (!isNameMap && isDataKey(key, value)) continue;
      const at = `${pointer}/${escapePointerSegment(key)}`;
      if (!isNameMap && key === 'schema') visit(value, at);
      else if (
        !isNameMap &&
        (key === 'schemas' || key === 'definitions') &&
        value !== null &&
        typeof value === 'object'
      )
        for (const [name, schema] of Object.entries(value)) visit(schema, `${at}/${escapePointerSegment(name)}`);
      else stack.push({ node: value, pointer: at, isNameMap: !isNameMap && documentNameMaps.has(key) });
    }
  }
}

/**
 * Calls `visit` once for every schema object of a document (outermost first), found by structure: the
 * document's schemas and every subschema below them. Explicit stacks, shared objects visited once.
 *
 * @example forEachSchema(document, (schema) => delete schema.nullable);
 */
export function forEachSchema(document: unknown, visit: (schema: Record<string, unknown>) => void): void {
  const stack: unknown[] = [];
  forEachDocumentSchema(document, (schema) => stack.push(schema));
  const seen = new Set<object>();
  while (stack.length > 0) {
    const schema = stack.pop();
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema) || seen.has(schema)) continue;
    seen.add(schema);
    visit(schema as Record<string, unknown>);
    forEachSubschema(schema, (subschema) => stack.push(subschema));
  }
}

/** Calls `visit` for each subschema directly below `schema`, with its keyword and its name or index. */
export function forEachSubschema(
  schema: object,
  visit: (subschema: unknown, keyword: string, entry: string | undefined) => void,
): void {
  for (const [keyword, value] of Object.entries(schema))
    subschemasOf(keyword, value, (subschema, entry) => visit(subschema, keyword, entry));
}

/** A key as one segment of a JSON pointer (RFC 6901). */
export function escapePointerSegment(segment: string): string {
  return segment.includes('~') || segment.includes('/') ? segment.replaceAll('~', '~0').replaceAll('/', '~1') : segment;
}

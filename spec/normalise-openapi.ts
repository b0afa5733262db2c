import type { OpenApiDocument } from './openapi-types.js';
import { SpecError } from './ref-resolver.js';
import { forEachSchema, forEachSubschema } from './schema-walk.js';

/**
 * OpenAPI 3.0 read as 3.1: the one reading of what 3.0 schemas mean, applied in place to a parsed
 * document before it is compiled. Schema positions are found by the document's structure (a
 * `schema`, `components.schemas`, the subschemas of a schema), never by key names anywhere: an
 * example whose data holds `nullable: true`, or a property named `example`, is left as written.
 *
 * What changes in a schema:
 * - `nullable: true` (3.0, and the 3.0 habit in 3.1 documents): `type: [T, 'null']`, `null` added to
 *   an `enum`; without `type` (next to `$ref`, `allOf`, ...) the schema becomes `anyOf: [it, {type: 'null'}]`;
 *   `x-nullable` (Swagger 2.0) the same; `nullable: false` dropped;
 * - boolean `exclusiveMinimum`/`exclusiveMaximum` (draft 4): the number form of 2020-12;
 * - `example`: `examples: [example]` (2020-12);
 * - draft-4 forms: `items: [...]` becomes `prefixItems` (and `additionalItems` becomes `items`),
 *   `dependencies` becomes `dependentRequired`/`dependentSchemas`, a draft-4 `$schema` and `id` go.
 * And `x-webhooks` (3.0 tools) becomes `webhooks`; the version becomes 3.1.1.
 *
 * @example
 * const document = normaliseOpenApi(parse(text)); // a 3.0 document, now 3.1
 * document.components.schemas.Pet.properties.tag; // { type: ['string', 'null'] } where 3.0 said nullable: true
 */
export function normaliseOpenApi(document: OpenApiDocument): OpenApiDocument {
  const version = document.openapi;
  if (typeof version === 'string' && version.startsWith('3.0')) {
    document.openapi = '3.1.1';
    const extension = (document as Record<string, unknown>)['x-webhooks'];
    if (extension !== undefined && document.webhooks === undefined) {
      document.webhooks = extension;
      delete (document as Record<string, unknown>)['x-webhooks'];
    }
  }
  // A 3.1 document may still carry 3.0's forms (nullable is common): they mean the same there.
  forEachSchema(document, normaliseSchema);
  recursiveRefsAsRefs(document);
  return document;
}

/**
 * Draft 2019-09's recursion, which 2020-12 does not know (OpenAI's document): in a component schema
 * marked `$recursiveAnchor: true`, a `$recursiveRef: "#"` below it means that schema (when nothing
 * extends it, the case a document describes), so it is read as a `$ref` to the component. Left as
 * written it would be an annotation, and `oneOf: [Filter, {$recursiveRef: "#"}]` would match every
 * filter twice: a valid value refused.
 *
 * @example // components.schemas.Compound: {$recursiveAnchor: true, properties: {filters: {items: {$recursiveRef: '#'}}}}
 * // becomes {properties: {filters: {items: {$ref: '#/components/schemas/Compound'}}}}
 */
function recursiveRefsAsRefs(document: OpenApiDocument): void {
  const schemas = document.components?.schemas;
  if (schemas === null || typeof schemas !== 'object') return;
  for (const [name, root] of Object.entries(schemas)) {
    if (root === null || typeof root !== 'object' || (root as SchemaNode).$recursiveAnchor !== true) continue;
    const target = `#/components/schemas/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    delete (root as SchemaNode).$recursiveAnchor;
    const stack: unknown[] = [root];
    const seen = new Set<object>();
    while (stack.length > 0) {
      const schema = stack.pop();
      if (schema === null || typeof schema !== 'object' || Array.isArray(schema) || seen.has(schema)) continue;
      seen.add(schema);
      const node = schema as SchemaNode;
      // A schema below with its own anchor starts its own recursion (read when its component is).
      if (node !== root && node.$recursiveAnchor === true) continue;
      if (node.$recursiveRef === '#' && node.$ref === undefined) {
        node.$ref = target;
        delete node.$recursiveRef;
      }
      forEachSubschema(node, (subschema) => stack.push(subschema));
    }
  }
}

type SchemaNode = Record<string, unknown>;

function normaliseSchema(schema: SchemaNode): void {
  for (const side of ['Minimum', 'Maximum'] as const) {
    const exclusive = `exclusive${side}`;
    const bound = side === 'Minimum' ? 'minimum' : 'maximum';
    if (schema[exclusive] === true) {
      if (typeof schema[bound] === 'number') schema[exclusive] = schema[bound];
      else delete schema[exclusive];
      delete schema[bound];
    } else if (schema[exclusive] === false) delete schema[exclusive];
  }
  if ('example' in schema) {
    if (!Array.isArray(schema.examples)) schema.examples = [schema.example];
    delete schema.example;
  }
  if (Array.isArray(schema.items)) {
    schema.prefixItems = schema.items;
    if ('additionalItems' in schema) schema.items = schema.additionalItems;
    else delete schema.items;
    delete schema.additionalItems;
  } else if ('additionalItems' in schema) delete schema.additionalItems; // ignored without an items list (draft 4)
  if (schema.dependencies !== null && typeof schema.dependencies === 'object') {
    for (const [name, dependency] of Object.entries(schema.dependencies)) {
      const target = Array.isArray(dependency) ? 'dependentRequired' : 'dependentSchemas';
      schema[target] = { ...(schema[target] as object | undefined), [name]: dependency };
    }
    delete schema.dependencies;
  }
  if (typeof schema.$schema === 'string' && /draft-0[3-7]/.test(schema.$schema)) delete schema.$schema;
  if (typeof schema.id === 'string') delete schema.id; // draft 4's $id, which OpenAPI never used
  normaliseNullable(schema);
}

function normaliseNullable(schema: SchemaNode): void {
  const nullable = schema.nullable ?? schema['x-nullable'];
  if (nullable === undefined) return;
  delete schema.nullable;
  delete schema['x-nullable'];
  if (nullable !== true) return;
  const { type } = schema;
  if (typeof type === 'string' || Array.isArray(type)) {
    const types = Array.isArray(type) ? type : [type];
    if (!types.includes('null')) schema.type = [...types, 'null'];
    if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
    return;
  }
  if (type !== undefined)
    throw new SpecError(
      `Failed to compile spec: a nullable schema has type ${JSON.stringify(type)?.slice(0, 60)}; expected a type name`,
    );
  // No type (next to $ref, allOf, oneOf...): the value is that schema or null.
  const inner: SchemaNode = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === 'description' || keyword === 'title' || keyword.startsWith('x-')) continue;
    inner[keyword] = value;
    delete schema[keyword];
  }
  if (Object.keys(inner).length === 0) return; // nullable alone: any value, null included
  schema.anyOf = [inner, { type: 'null' }];
}

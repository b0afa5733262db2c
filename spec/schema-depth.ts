import type { OpenApiDocument } from './openapi-types.js';
import { nodeAt, SpecError } from './ref-resolver.js';
import { forEachDocumentSchema, subschemaKeywords, subschemasOf } from './schema-walk.js';

/**
 * The deepest a schema may nest, in levels: each subschema (`properties/x`, `items`, `allOf/0`, ...) and
 * each `$ref` followed is one level. The validator (ajv) compiles a schema by recursion, some KB of
 * stack a level: on Node's 984 KB stack it failed at 360 levels of inline `items` (400 of `anyOf`, 440
 * of `properties`) and between 300 and 500 levels of a `$ref` chain whose links hold `items`,
 * `properties` or `allOf` (decision 052). 200 keeps a margin of 1.5 for other engines and deeper
 * calling stacks; the real documents of ../shared/real-specs nest at most 43 levels (Box).
 */
export const maxSchemaDepth = 200;

/**
 * Refuses, with one line naming the schema and the limit, a document with a schema nested deeper than
 * `maxSchemaDepth` levels (through subschemas and `$ref`s): the validator's lazy compile would
 * overflow the stack at the first request (a 500), so it is said at start instead. A recursive schema
 * counts once round its cycle: recursion through a `$ref` compiles as a call, not as nesting. One
 * visit per schema, explicit stack, and the walk stops at the first schema past the limit: any depth
 * is measured at once, none overflows.
 *
 * @example refuseDeepSchemas(document); // throws 'Failed to compile spec: the schema at #/components/schemas/A0 nests more than 200 levels deep (...)'
 */
export function refuseDeepSchemas(source: OpenApiDocument): void {
  const deepest = deepestSchema(source);
  if (deepest === undefined || deepest.depth <= maxSchemaDepth) return;
  throw new SpecError(
    `Failed to compile spec: the schema at #${deepest.pointer.slice(0, 200)} nests more than ${maxSchemaDepth} levels deep ` +
      '(through $ref, properties, items, allOf and the like): no real API nests so deep, and the validator ' +
      'could not compile it; flatten the nesting',
  );
}

/**
 * The document's most deeply nested top schema with its depth in levels, or undefined when it has
 * none. The components are measured first (their names are what a user edits), and the first schema
 * past `maxSchemaDepth` is the answer, its depth given as `maxSchemaDepth + 1`.
 *
 * @example deepestSchema(petstore); // { pointer: '/paths/~1categories/get/responses/200/content/application~1json/schema', depth: 4 }
 */
export function deepestSchema(source: OpenApiDocument): { pointer: string; depth: number } | undefined {
  const components: { schema: unknown; pointer: string }[] = [];
  const others: { schema: unknown; pointer: string }[] = [];
  forEachDocumentSchema(source, (schema, pointer) =>
    (/^\/(components\/schemas|definitions)\//.test(pointer) ? components : others).push({ schema, pointer }),
  );
  const measure = createDepthMeasure(source, maxSchemaDepth);
  let deepest: { pointer: string; depth: number } | undefined;
  for (const { schema, pointer } of [...components, ...others]) {
    const depth = measure(schema);
    if (depth > maxSchemaDepth) return { pointer, depth };
    if (deepest === undefined || depth > deepest.depth) deepest = { pointer, depth };
  }
  return deepest;
}

/** One frame of the walk: a schema, the schemas one level below it, and the deepest of them so far. */
interface Frame {
  schema: object;
  below: object[];
  next: number;
  deepestBelow: number;
}

/**
 * The levels of a schema (1 for a schema with nothing below it), remembered across calls: a schema
 * shared by many is measured once. A schema reached again while it is being measured (a cycle) adds
 * nothing. Past `cap` levels the walk stops and answers `cap + 1`; the measure is not used after that.
 */
function createDepthMeasure(source: OpenApiDocument, cap: number): (schema: unknown) => number {
  const depths = new Map<object, number>();
  const open = new Set<object>();
  const targets = new Map<string, unknown>();
  const targetOf = (ref: string) => {
    if (!targets.has(ref)) targets.set(ref, nodeAt(source, ref.slice(1)));
    return targets.get(ref);
  };
  const frameOf = (schema: object): Frame => {
    open.add(schema);
    return { schema, below: schemasBelow(schema, targetOf), next: 0, deepestBelow: 0 };
  };
  return (root) => {
    if (!isSchemaObject(root)) return root === undefined ? 0 : 1;
    const known = depths.get(root);
    if (known !== undefined) return known;
    const stack = [frameOf(root)];
    let finished = 0;
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      if (frame.next < frame.below.length) {
        const child = frame.below[frame.next]!;
        frame.next += 1;
        const childDepth = depths.get(child);
        if (childDepth !== undefined) frame.deepestBelow = Math.max(frame.deepestBelow, childDepth);
        else if (!open.has(child)) {
          if (stack.length >= cap) return cap + 1;
          stack.push(frameOf(child));
        }
        continue;
      }
      stack.pop();
      open.delete(frame.schema);
      finished = frame.deepestBelow + 1;
      depths.set(frame.schema, finished);
      const parent = stack[stack.length - 1];
      if (parent !== undefined) parent.deepestBelow = Math.max(parent.deepestBelow, finished);
    }
    return finished;
  };
}

/** The schema objects one level below `schema`: its subschemas and the target of its local `$ref`. */
function schemasBelow(schema: object, targetOf: (ref: string) => unknown): object[] {
  const below: object[] = [];
  const add = (subschema: unknown) => {
    if (isSchemaObject(subschema)) below.push(subschema);
  };
  // for-in and the table's lookup, not Object.entries: this runs once per schema of a large document at start.
  for (const keyword in schema) {
    if (subschemaKeywords.has(keyword)) subschemasOf(keyword, (schema as Record<string, unknown>)[keyword], add);
  }
  const ref = (schema as Record<string, unknown>).$ref;
  // Only local references are left once a document is read (other files are bundled in); the audit names a broken one.
  if (typeof ref === 'string' && (ref === '#' || ref.startsWith('#/'))) {
    const target = targetOf(ref);
    if (isSchemaObject(target)) below.push(target);
  }
  return below;
}

function isSchemaObject(value: unknown): value is object {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

import type { JsonSchema, OpenApiDocument } from './openapi-types.js';
import { slowPatternRefusal } from './pattern-engine.js';
import { localPointer, nodeAt, SpecError } from './ref-resolver.js';
import { refuseSameValueFanOut } from './schema-fan-out.js';
import {
  escapePointerSegment,
  forEachDocumentSchema,
  keywordsShaped,
  schemaMapKeywords,
  subschemaKeywords,
  subschemasOf,
} from './schema-walk.js';

/**
 * Which JSON Schema keywords the kit enforces, which it reads as annotations, and which it refuses.
 * A keyword is never silently ignored: one that changes how a schema is read and that the validator
 * would skip is refused at start with one line naming it and where it is; one JSON Schema 2020-12
 * does not know (`optional: true`) is an annotation, as 2020-12 says, and named in a warning at start.
 */

/** Keywords of JSON Schema 2020-12 that the validator (ajv, draft 2020-12 + ajv-formats) asserts. */
export const enforcedKeywords = new Set([
  'type',
  'enum',
  'const',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'format',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxContains',
  'minContains',
  'items',
  'prefixItems',
  'contains',
  'unevaluatedItems',
  'maxProperties',
  'minProperties',
  'required',
  'dependentRequired',
  'properties',
  'patternProperties',
  'additionalProperties',
  'propertyNames',
  'dependentSchemas',
  'unevaluatedProperties',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  '$ref',
  '$defs',
  'definitions',
  '$schema',
]);

/**
 * Keywords that describe or illustrate data and assert nothing: JSON Schema's meta-data and
 * content vocabularies (annotations only in 2020-12) and OpenAPI's own schema fields.
 */
const annotationKeywords = new Set([
  'title',
  'description',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  'examples',
  '$comment',
  'contentEncoding',
  'contentMediaType',
  'contentSchema',
  'example',
  'discriminator',
  'xml',
  'externalDocs',
]);

/** Keywords the kit refuses, with what to write instead. */
const refusedKeywords: Record<string, string> = {
  nullable: 'it is OpenAPI 3.0; in 3.1 write type: [<type>, "null"]',
  $id: 'it changes how references resolve, which the mock does not follow; remove it',
  $anchor: 'refer by JSON pointer (#/components/schemas/...) instead',
  $dynamicRef: 'dynamic references are not supported; use $ref',
  $dynamicAnchor: 'dynamic references are not supported; use $ref',
  $vocabulary: 'custom vocabularies are not supported',
  additionalItems: 'it is draft 7; in 2020-12 use prefixItems and items',
  dependencies: 'it is draft 7; in 2020-12 use dependentRequired or dependentSchemas',
};

/** The dialects a schema (or the document's jsonSchemaDialect) may declare. */
const acceptedDialects = new Set([
  'https://json-schema.org/draft/2020-12/schema',
  'https://spec.openapis.org/oas/3.1/dialect/base',
  'https://spec.openapis.org/oas/3.1/dialect/2024-10-25',
]);

const jsonTypes = new Set(['string', 'number', 'integer', 'boolean', 'null', 'array', 'object']);
const countKeywords = new Set([
  'maxLength',
  'minLength',
  'maxItems',
  'minItems',
  'maxContains',
  'minContains',
  'maxProperties',
  'minProperties',
]);
const boundKeywords = new Set(['maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum']);
const schemaListKeywords = keywordsShaped('list');

/**
 * Checks every schema of the document (components, parameters, headers, bodies, and whatever a
 * `$ref` points to): each keyword enforced or an annotation, each value well-formed (the parts
 * of the 2020-12 meta-schema a validator relies on). Throws a `SpecError` naming the first problem
 * and where it is; returns the formats the validator does not know (annotations, as 2020-12 says:
 * the caller warns about them). Visits each node once.
 *
 * @example auditSchemas(document, knownFormats); // throws 'Failed to compile spec: keyword "nullable" is not supported (...) at #/components/schemas/Toy'
 */
export function auditSchemas(source: OpenApiDocument, knownFormats: ReadonlySet<string>): SchemaAudit {
  const unknownFormats = new Map<string, string>();
  const unknownKeywords = new Map<string, string>();
  const dropped: { pointer: string; keyword: string; problem: string }[] = [];
  const dialect = source.jsonSchemaDialect;
  if (dialect !== undefined && (typeof dialect !== 'string' || !acceptedDialects.has(dialect))) {
    throw new SpecError(
      `Failed to compile spec: jsonSchemaDialect ${short(dialect)} is not supported; use ${[...acceptedDialects][0]}`,
    );
  }
  const fail = (pointer: string, problem: string): never => {
    throw new SpecError(`Failed to compile spec: ${problem} at #${pointer.slice(0, 300)}`);
  };

  // Explicit stacks, not recursion: a hostile document may nest thousands of levels.
  const schemaStack: { schema: unknown; pointer: string }[] = [];
  forEachDocumentSchema(source, (schema, pointer) => schemaStack.push({ schema, pointer }));

  // Schemas applied to the same value as their parent (allOf, $ref, ...): a cycle of those would
  // make validation recurse forever without ever reading deeper into the value.
  const audited = new Map<object, string>();
  const sameValueEdges = new Map<object, object[]>();
  while (schemaStack.length > 0) {
    const { schema, pointer } = schemaStack.pop()!;
    if (typeof schema === 'boolean') continue;
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema))
      fail(pointer, `a schema must be an object or a boolean, found ${describe(schema)}`);
    if (audited.has(schema as object)) continue;
    audited.set(schema as object, pointer);
    const edges: object[] = [];
    sameValueEdges.set(schema as object, edges);
    for (const [keyword, value] of Object.entries(schema as Record<string, unknown>)) {
      const at = `${pointer}/${escapePointerSegment(keyword)}`;
      if (sameValueKeywords.has(keyword))
        subschemasOf(keyword, value, (sub) => {
          if (sub !== null && typeof sub === 'object') edges.push(sub);
        });
      if (keyword.startsWith('x-') || annotationKeywords.has(keyword)) continue;
      const refused = refusedKeywords[keyword];
      if (refused !== undefined) fail(pointer, `keyword "${keyword}" is not supported (${refused})`);
      if (!enforcedKeywords.has(keyword)) {
        // JSON Schema 2020-12: a keyword it does not know is an annotation (the caller warns, naming it).
        if (!unknownKeywords.has(keyword)) unknownKeywords.set(keyword, pointer);
        continue;
      }
      const push = (sub: unknown, subPointer: string) => schemaStack.push({ schema: sub, pointer: subPointer });
      const problem = valueProblem(keyword, value);
      if (problem !== undefined) {
        // Served without the keyword, said once at start: what real documents get wrong should not stop a mock.
        dropped.push({ pointer, keyword, problem });
        continue;
      }
      if (keyword === 'pattern' || keyword === 'patternProperties') {
        const refusal = slowPatternRefusal(keyword === 'pattern' ? [value as string] : Object.keys(value as object));
        if (refusal !== undefined) fail(keyword === 'pattern' ? at : pointer, refusal);
      }
      if (keyword === 'format') {
        // JSON Schema 2020-12: a format the validator does not know is an annotation.
        if (!knownFormats.has(value as string) && !unknownFormats.has(value as string))
          unknownFormats.set(value as string, pointer);
      } else if (keyword === '$schema') {
        if (typeof value !== 'string' || !acceptedDialects.has(value.replace(/#$/, '')))
          fail(pointer, `$schema ${short(value)} is not supported; schemas of OpenAPI 3.1 are JSON Schema 2020-12`);
      } else if (keyword === '$ref') {
        if (typeof value !== 'string') fail(pointer, `$ref must be a string, found ${describe(value)}`);
        const targetPointer = localPointer(value as string, pointer);
        const target = nodeAt(source, targetPointer);
        if (target === undefined) fail(pointer, `$ref ${short(value)} points to nothing`);
        if (target !== null && typeof target === 'object') edges.push(target);
        push(target, targetPointer);
      } else
        subschemasOf(keyword, value, (sub, entry) =>
          push(sub, entry === undefined ? at : `${at}/${escapePointerSegment(entry)}`),
        );
    }
  }
  refuseCyclesWithoutNesting(audited, sameValueEdges, fail);
  refuseSameValueFanOut(audited, sameValueEdges, fail);
  return { unknownFormats, unknownKeywords, dropped };
}

/**
 * Why a keyword's value is not valid JSON Schema 2020-12 (the parts of the meta-schema the
 * validator relies on), or undefined when it is.
 */
function valueProblem(keyword: string, value: unknown): string | undefined {
  if (keyword === 'type') {
    const types = Array.isArray(value) ? value : [value];
    const valid =
      types.length > 0 &&
      types.every((type) => typeof type === 'string' && jsonTypes.has(type)) &&
      new Set(types).size === types.length;
    return valid
      ? undefined
      : `type ${short(value)} is not a JSON type or a list of distinct ones (${[...jsonTypes].join(', ')})`;
  }
  if (countKeywords.has(keyword))
    return Number.isInteger(value) && (value as number) >= 0
      ? undefined
      : `${keyword} must be a non-negative integer, found ${short(value)}`;
  if (boundKeywords.has(keyword))
    return typeof value === 'number'
      ? undefined
      : `${keyword} must be a number, found ${short(value)}${typeof value === 'boolean' ? ' (the boolean form is OpenAPI 3.0)' : ''}`;
  if (keyword === 'multipleOf')
    return typeof value === 'number' && value > 0
      ? undefined
      : `multipleOf must be a number greater than 0, found ${short(value)}`;
  if (keyword === 'enum') return Array.isArray(value) ? undefined : `enum must be an array, found ${describe(value)}`;
  if (keyword === 'uniqueItems')
    return typeof value === 'boolean' ? undefined : `uniqueItems must be true or false, found ${short(value)}`;
  if (keyword === 'required')
    return Array.isArray(value) && value.every((name) => typeof name === 'string')
      ? undefined
      : `required must be a list of property names, found ${short(value)}`;
  if (keyword === 'dependentRequired') {
    const valid =
      isRecord(value) &&
      Object.values(value).every((names) => Array.isArray(names) && names.every((name) => typeof name === 'string'));
    return valid ? undefined : 'dependentRequired must map property names to lists of property names';
  }
  if (keyword === 'pattern')
    return typeof value === 'string' ? patternProblem(value) : `pattern must be a string, found ${describe(value)}`;
  if (keyword === 'format')
    return typeof value === 'string' ? undefined : `format must be a string, found ${describe(value)}`;
  if (schemaMapKeywords.has(keyword)) {
    if (!isRecord(value)) return `${keyword} must be an object of schemas, found ${describe(value)}`;
    return keyword === 'patternProperties'
      ? Object.keys(value)
          .map(patternProblem)
          .find((problem) => problem !== undefined)
      : undefined;
  }
  if (keyword === 'items' && Array.isArray(value))
    return 'items must be a schema (the list form is draft 7; in 2020-12 use prefixItems)';
  if (schemaListKeywords.has(keyword) && (!Array.isArray(value) || value.length === 0))
    return `${keyword} must be a non-empty list of schemas, found ${describe(value)}`;
  return undefined;
}

/** What the audit found that the kit serves but does not check. */
export interface SchemaAudit {
  /** Formats no validator here checks (validated by type only), each with where it is first used. */
  unknownFormats: ReadonlyMap<string, string>;
  /** Keywords JSON Schema 2020-12 does not know (annotations, asserting nothing), each with where it is first used. */
  unknownKeywords: ReadonlyMap<string, string>;
  /** Keywords whose values are not valid JSON Schema: served without them (the caller removes them and warns). */
  dropped: readonly { pointer: string; keyword: string; problem: string }[];
}

/** Find a cycle among schemas applied to one same value; report where it starts. */
function refuseCyclesWithoutNesting(
  audited: Map<object, string>,
  edges: Map<object, object[]>,
  fail: (pointer: string, problem: string) => never,
): void {
  const state = new Map<object, 'open' | 'done'>();
  for (const start of audited.keys()) {
    if (state.has(start)) continue;
    const stack: { node: object; next: number }[] = [{ node: start, next: 0 }];
    state.set(start, 'open');
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      const targets = edges.get(frame.node) ?? [];
      if (frame.next === targets.length) {
        state.set(frame.node, 'done');
        stack.pop();
        continue;
      }
      const target = targets[frame.next++]!;
      const seen = state.get(target);
      if (seen === 'open') {
        fail(
          audited.get(target) ?? '',
          'the schema refers to itself without nesting (through $ref, allOf, anyOf, oneOf, not or if/then/else on the same value): no value could be validated against it; recursion must go through properties or items',
        );
      }
      if (seen === undefined && audited.has(target)) {
        state.set(target, 'open');
        stack.push({ node: target, next: 0 });
      }
    }
  }
}

const sameValueKeywords = new Set(['allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else', 'dependentSchemas']);

function patternProblem(pattern: string): string | undefined {
  try {
    // The validator compiles patterns as ECMA-262 regular expressions in Unicode mode.
    new RegExp(pattern, 'u');
    return undefined;
  } catch (error) {
    return `pattern ${short(pattern)} is not a valid regular expression (${(error as Error).message.slice(0, 120)})`;
  }
}

/**
 * A copy of a schema without annotations and extensions, what validators and generators read.
 * Under `properties` (and the other maps of schemas) the keys are names, kept whatever they are.
 * Copes with shared and cyclic (resolved, recursive) schemas: each object is copied once and
 * cycles are preserved.
 *
 * @example stripAnnotations({ type: 'string', description: 'a name', 'x-faker': 'animal.type' }); // { type: 'string' }
 */
export function stripAnnotations(
  schema: JsonSchema,
  options: { keepFaker?: boolean; maxStringLength?: number } = {},
): JsonSchema {
  const copies = new Map<object, unknown>();
  const copy = (node: unknown, mode: 'schema' | 'map' | 'list'): unknown => {
    if (node === null || typeof node !== 'object') return node;
    const done = copies.get(node);
    if (done !== undefined) return done;
    if (Array.isArray(node)) {
      const out: unknown[] = [];
      copies.set(node, out);
      for (const item of node) out.push(mode === 'list' ? copy(item, 'schema') : item);
      return out;
    }
    const out: Record<string, unknown> = {};
    copies.set(node, out);
    for (const [key, value] of Object.entries(node)) {
      if (mode === 'map') {
        define(out, key, copy(value, 'schema'));
        continue;
      }
      if (key === 'x-faker' && options.keepFaker) out.faker = value;
      if (annotationKeywords.has(key) || key.startsWith('x-')) continue;
      const shape = subschemaKeywords.get(key);
      // A list where one schema belongs (draft 4's `items: [...]`) is read as a list, as every walk reads it.
      if (shape === 'map') define(out, key, copy(value, 'map'));
      else if (shape === 'list' || (shape === 'one' && Array.isArray(value))) define(out, key, copy(value, 'list'));
      else if (shape === 'one') define(out, key, copy(value, 'schema'));
      else define(out, key, value);
    }
    // For generators: a string the schema lets run to 70 MB (OpenAI's inline skill data) drawn at that
    // length is slow to make and larger than a server takes; the schema's minLength still holds.
    const { maxStringLength } = options;
    if (maxStringLength !== undefined && mode === 'schema' && typeof out.maxLength === 'number')
      out.maxLength = Math.min(out.maxLength, Math.max(maxStringLength, Number(out.minLength ?? 0)));
    return out;
  };
  return copy(schema, 'schema') as JsonSchema;
}

function define(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

function short(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 80)}...` : text;
}

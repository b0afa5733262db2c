import { base, en, Faker } from '@faker-js/faker';
import { createGeneratorSync } from 'json-schema-faker';
import type { JsonSchema } from '../../../spec/openapi-types.js';
import { validatorOf } from '../../../spec/compile-spec.js';
import { nodeAt, originOf } from '../../../spec/ref-resolver.js';
import { stripAnnotations } from '../../../spec/schema-keywords.js';

/**
 * Fake data from JSON schemas, repeatable under one seed: json-schema-faker walks the schema and
 * @faker-js/faker fills fields marked `x-faker: <faker method>` in the spec. `reset()` starts the
 * same sequence again.
 *
 * Schemas of a compiled spec are generated from the document with their `$ref`s intact, resolved
 * as the generator reaches them: a recursive schema stops at `maxDepth` levels of nesting (and at
 * `maxReferenceDepth` references in a row), and a schema shared a thousand times is never copied.
 *
 * @example
 * const data = createDataGenerator(42);
 * data.generate({ type: 'string', 'x-faker': 'animal.type' }); // 'cat', every time with seed 42
 */
export interface DataGenerator {
  generate(schema: JsonSchema, options?: { allOptionals?: boolean }): unknown;
  reset(): void;
}

/** Nesting levels of generated objects and arrays; deeper, only required fields are filled. */
const maxDepth = 5;
/** References followed in a row (bounds recursion through allOf/anyOf, which adds no nesting). */
const maxReferenceDepth = 32;

type Generator = ReturnType<typeof createGeneratorSync>;
type GeneratorSchema = Parameters<Generator['generate']>[0];

export function createDataGenerator(seed: number): DataGenerator {
  const standalone = new WeakMap<object, JsonSchema>();
  /** Per document: pointer -> the schema there without annotations (x-faker renamed to faker). */
  const documents = new WeakMap<object, Map<string, JsonSchema>>();
  let currentSource: object | undefined;
  let faker: Faker;
  let generators: { some: Generator; all: Generator; minimal: Generator };
  /** Schemas nested at least `maxDepth` deep (or recursive): their output is checked, see below. */
  const deep = new WeakMap<object, boolean>();

  // json-schema-faker asks for each `#/...` reference it meets: answer from the current document.
  const refResolver = (ref: string): GeneratorSchema => {
    if (currentSource === undefined || !ref.startsWith('#')) throw new Error(`Failed to generate data: unresolvable $ref ${ref.slice(0, 200)}`);
    const pointer = ref.slice(1);
    return schemaAt(currentSource, pointer) as GeneratorSchema;
  };
  const schemaAt = (source: object, pointer: string): JsonSchema => {
    let prepared = documents.get(source);
    if (prepared === undefined) {
      prepared = new Map();
      documents.set(source, prepared);
    }
    let schema = prepared.get(pointer);
    if (schema === undefined) {
      const raw = nodeAt(source, pointer);
      schema = stripAnnotations((raw ?? {}) as JsonSchema, { keepFaker: true });
      prepared.set(pointer, schema);
    }
    return schema;
  };

  const reset = () => {
    faker = new Faker({ locale: [en, base], seed });
    const common = { seed, extensions: { faker }, maxDepth, refDepthMax: maxReferenceDepth, maxItems: 5, fixedProbabilities: true, refResolver };
    generators = {
      some: createGeneratorSync(common),
      all: createGeneratorSync({ ...common, alwaysFakeOptionals: true }),
      minimal: createGeneratorSync({ ...common, optionalsProbability: 0, maxItems: 0 }),
    };
  };
  reset();

  return {
    generate(schema, options = {}) {
      const generator = options.allOptionals ? generators.all : generators.some;
      const origin = originOf(schema);
      if (origin !== undefined) {
        currentSource = origin.resolved.source;
        try {
          const ready = schemaAt(currentSource, origin.pointer) as GeneratorSchema;
          const value = generator.generate(ready);
          if (!isDeep(schema, deep)) return value;
          // At maxDepth the generator fills required fields with bare defaults ('' for a string
          // with minLength 1): for deep and recursive schemas, check, and fall back to the smallest
          // instance (no optional fields, shortest arrays), where recursion ends by itself.
          const validator = validatorOf(schema, 'generated data');
          if (validator.safeParse(value).success) return value;
          const minimal = generators.minimal.generate(ready);
          return validator.safeParse(minimal).success ? minimal : value;
        } finally {
          currentSource = undefined;
        }
      }
      let ready = typeof schema === 'object' ? standalone.get(schema) : schema;
      if (ready === undefined) {
        ready = stripAnnotations(schema, { keepFaker: true });
        standalone.set(schema as object, ready);
      }
      return generator.generate(ready as GeneratorSchema);
    },
    reset,
  };
}

/** Sub-schemas that nest the data one level deeper. */
const nestingKeywords = ['items', 'additionalProperties', 'contains', 'unevaluatedItems', 'unevaluatedProperties'];
const nestingMaps = ['properties', 'patternProperties'];
const sameLevelLists = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];

/**
 * Does data of this (resolved) schema nest `maxDepth` levels or more, or without end (recursion)?
 * Each schema object is measured once, so shared schemas cost nothing extra.
 */
function isDeep(schema: JsonSchema, memo: WeakMap<object, boolean>): boolean {
  if (schema === null || typeof schema !== 'object') return false;
  const known = memo.get(schema);
  if (known !== undefined) return known;
  const depths = new Map<object, number>();
  const onPath = new Set<object>();
  const depthOf = (node: unknown): number => {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return 0;
    if (onPath.has(node)) return Number.POSITIVE_INFINITY;
    const done = depths.get(node);
    if (done !== undefined) return done;
    onPath.add(node);
    const record = node as Record<string, unknown>;
    let depth = 0;
    for (const keyword of nestingKeywords) depth = Math.max(depth, 1 + depthOf(record[keyword]));
    for (const keyword of nestingMaps) {
      const map = record[keyword];
      if (map !== null && typeof map === 'object') for (const sub of Object.values(map)) depth = Math.max(depth, 1 + depthOf(sub));
    }
    for (const keyword of sameLevelLists) {
      const list = record[keyword];
      if (Array.isArray(list)) for (const sub of list) depth = Math.max(depth, (keyword === 'prefixItems' ? 1 : 0) + depthOf(sub));
    }
    for (const keyword of ['not', 'if', 'then', 'else']) depth = Math.max(depth, depthOf(record[keyword]));
    onPath.delete(node);
    depths.set(node, depth);
    return depth;
  };
  const result = depthOf(schema) >= maxDepth;
  memo.set(schema, result);
  return result;
}

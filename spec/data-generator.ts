import type { Faker } from '@faker-js/faker';
import type { createGeneratorSync } from 'json-schema-faker';
import { validatorOf } from './compile-spec.js';
import { fakeDataModules } from './fake-data-modules.js';
import type { JsonSchema } from './openapi-types.js';
import { nodeAt, originOf } from './ref-resolver.js';
import { stripAnnotations } from './schema-keywords.js';

/**
 * Fake data from JSON schemas, repeatable under one seed: json-schema-faker walks the schema and
 * @faker-js/faker fills fields marked `x-faker: <faker method>` in the spec. `reset()` starts the
 * same sequence again. The two libraries are loaded on the first draw (`fake-data-modules.ts`), not
 * when the generator is made: a mock that never draws never loads them.
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
  readonly seed: number;
  generate(schema: JsonSchema, options?: { allOptionals?: boolean }): unknown;
  reset(): void;
  /**
   * Draws whose results are already known (precomputed seed data): made when the generator first
   * draws for real, right after the reset, so the sequence continues as if they had been made now.
   */
  replay(draws: (data: DataGenerator) => void): void;
}

/** Nesting levels of generated objects and arrays; deeper, only required fields are filled. */
const maxDepth = 5;
/** Draws after a first value the schema refuses, before the smallest instance and the branches one by one. */
const retries = 8;
/** References followed in a row (bounds recursion through allOf/anyOf, which adds no nesting). */
const maxReferenceDepth = 32;

type Generator = ReturnType<typeof createGeneratorSync>;
type GeneratorSchema = Parameters<Generator['generate']>[0];

export function createDataGenerator(seed: number): DataGenerator {
  const standalone = new WeakMap<object, JsonSchema>();
  /** Per document: pointer -> the schema there without annotations (x-faker renamed to faker). */
  const documents = new WeakMap<object, Map<string, JsonSchema>>();
  let currentSource: object | undefined;
  let generators: { some: Generator; all: Generator; minimal: Generator } | undefined;
  let pendingReplays: ((data: DataGenerator) => void)[] = [];

  // json-schema-faker asks for each `#/...` reference it meets: answer from the current document.
  const refResolver = (ref: string): GeneratorSchema => {
    if (currentSource === undefined || !ref.startsWith('#'))
      throw new Error(`Failed to generate data: unresolvable $ref ${ref.slice(0, 200)}`);
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

  const start = () => {
    const { Faker, locale, createGeneratorSync } = fakeDataModules();
    const faker: Faker = new Faker({ locale, seed });
    const common = {
      seed,
      extensions: { faker },
      maxDepth,
      refDepthMax: maxReferenceDepth,
      maxItems: 5,
      fixedProbabilities: true,
      refResolver,
    };
    generators = {
      some: createGeneratorSync(common),
      all: createGeneratorSync({ ...common, alwaysFakeOptionals: true }),
      minimal: createGeneratorSync({ ...common, optionalsProbability: 0, maxItems: 0 }),
    };
    const replays = pendingReplays;
    pendingReplays = [];
    for (const draws of replays) draws(dataGenerator);
    return generators;
  };
  const reset = () => {
    generators = undefined;
    pendingReplays = [];
  };

  const branchValue = (
    source: object,
    pointer: string,
    generator: Generator,
    validator: { isValid(value: unknown): boolean },
  ): unknown => {
    const raw = nodeAt(source, pointer) as Record<string, unknown> | undefined;
    for (const keyword of ['oneOf', 'anyOf'] as const) {
      const branches = raw?.[keyword];
      if (!Array.isArray(branches)) continue;
      for (let index = 0; index < branches.length; index += 1) {
        for (let attempt = 0; attempt < 3; attempt += 1) {
          const candidate = generator.generate(schemaAt(source, `${pointer}/${keyword}/${index}`) as GeneratorSchema);
          if (validator.isValid(candidate)) return candidate;
        }
      }
    }
    return undefined;
  };

  const dataGenerator: DataGenerator = {
    seed,
    generate(schema, options = {}) {
      const started = generators ?? start();
      const generator = options.allOptionals ? started.all : started.some;
      const origin = originOf(schema);
      if (origin !== undefined) {
        currentSource = origin.resolved.source;
        try {
          const ready = schemaAt(currentSource, origin.pointer) as GeneratorSchema;
          const value = generator.generate(ready);
          // The generator does not always meet the schema: at maxDepth it fills required fields with
          // bare defaults ('' under minLength 1), and a oneOf's branch may match a second branch
          // too. Checked, then tried again, then the smallest instance (no optional fields,
          // shortest arrays), where recursion ends by itself; the first try if none passes.
          const validator = validatorOf(schema, 'generated data');
          if (validator.isValid(value)) return value;
          // json-schema-faker may pick from an allOf'd enum the outer enum refuses: a few more draws.
          for (let attempt = 0; attempt < retries; attempt += 1) {
            const again = generator.generate(ready);
            if (validator.isValid(again)) return again;
          }
          const minimal = started.minimal.generate(ready);
          if (validator.isValid(minimal)) return minimal;
          // A oneOf/anyOf whose branches differ by a const or enum (a tagged union): each branch alone.
          return branchValue(origin.resolved.source, origin.pointer, generator, validator) ?? value;
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
    replay(draws) {
      if (generators === undefined) pendingReplays.push(draws);
      else draws(dataGenerator);
    },
  };
  return dataGenerator;
}

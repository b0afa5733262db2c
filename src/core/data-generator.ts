import { base, en, Faker } from '@faker-js/faker';
import { createGeneratorSync } from 'json-schema-faker';
import type { JsonSchema } from '../../spec/openapi-types.js';

/**
 * Fake data from JSON schemas, repeatable under one seed: json-schema-faker walks the schema and
 * @faker-js/faker fills fields marked `x-faker: <faker method>` in the spec. `reset()` starts the
 * same sequence again.
 *
 * @example
 * const data = createDataGenerator(42);
 * data.generate({ type: 'string', 'x-faker': 'animal.type' }); // 'cat', every time with seed 42
 */
export interface DataGenerator {
  generate(schema: JsonSchema, options?: { allOptionals?: boolean }): unknown;
  reset(): void;
}

export function createDataGenerator(seed: number): DataGenerator {
  const prepared = new WeakMap<object, JsonSchema>();
  let faker: Faker;
  let generators: { some: ReturnType<typeof createGeneratorSync>; all: ReturnType<typeof createGeneratorSync> };

  const reset = () => {
    faker = new Faker({ locale: [en, base], seed });
    const common = { seed, extensions: { faker }, maxDepth: 5, maxItems: 5, fixedProbabilities: true };
    generators = {
      some: createGeneratorSync(common),
      all: createGeneratorSync({ ...common, alwaysFakeOptionals: true }),
    };
  };
  reset();

  return {
    generate(schema, options = {}) {
      let ready = typeof schema === 'object' ? prepared.get(schema) : schema;
      if (ready === undefined) {
        ready = forGenerator(schema);
        prepared.set(schema as object, ready);
      }
      return (options.allOptionals ? generators.all : generators.some).generate(ready as Parameters<typeof generators.all.generate>[0]);
    },
    reset,
  };
}

/** Renames the spec's `x-faker` to the keyword json-schema-faker reads and drops other extensions. */
function forGenerator(schema: JsonSchema): JsonSchema {
  if (typeof schema !== 'object' || schema === null) return schema;
  if (Array.isArray(schema)) return schema.map((item) => forGenerator(item as JsonSchema)) as unknown as JsonSchema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'x-faker') out.faker = value;
    else if (key.startsWith('x-') || key === 'examples' || key === 'example') continue;
    else if (key === 'properties' && value && typeof value === 'object') {
      out.properties = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, forGenerator(sub as JsonSchema)]));
    } else out[key] = value && typeof value === 'object' ? forGenerator(value as JsonSchema) : value;
  }
  return out as JsonSchema;
}

import type { DataGenerator } from '../../../spec/data-generator.js';
import type { JsonSchema } from '../../../spec/openapi-types.js';
import { nodeAt, originOf } from '../../../spec/ref-resolver.js';
import { type Category, componentSchemas, type NewCategory } from '../../../spec/schemas.js';
import type { CompiledSpec } from './compiled-spec.js';
import precomputedSeedsData from './precomputed-seeds.json' with { type: 'json' };

/**
 * The categories every session starts with and gets back on reset: the given ones, or
 * `seedCategories` faker-made ones from the spec's Category schema (same seed, same names).
 * Computed once at start, so every session and every replica starts from the same world. Draws from
 * `data` (reset first by the caller), so the fake data served afterwards continues the same sequence.
 *
 * The kit's own Category schema under the common seeds is answered from a table computed at build
 * time from these very draws (precomputed-seeds.json): no faker loaded to start the Petstore mock.
 * The draws are then replayed if the generator is ever used, so later fake data is the same.
 */
export function seedCategories(
  spec: CompiledSpec,
  data: DataGenerator,
  options: { count: number; initialCategories?: readonly NewCategory[] | undefined },
): NewCategory[] {
  if (options.initialCategories)
    return options.initialCategories.map((category) => componentSchemas().NewCategory.parse(category));
  const schema = spec.componentSchemas.Category;
  if (schema === undefined || options.count === 0) return drawSeedCategories(schema, data, options.count);
  const known = knownSeedCategories(schema, data.seed, options.count);
  if (known === undefined) return drawSeedCategories(schema, data, options.count);
  data.replay((live) => drawSeedCategories(schema, live, options.count));
  return known;
}

/** The draws themselves: what the precomputed table holds for the kit's spec (mocks/scripts/precompute-seeds.ts). */
export function drawSeedCategories(schema: JsonSchema | undefined, data: DataGenerator, count: number): NewCategory[] {
  const names = new Set<string>();
  const seeds: NewCategory[] = [];
  for (let index = 0; index < count; index += 1) {
    // The interface does not require unique names, but "giraffe" twice in a fresh mock looks like a
    // bug to whoever reads the list: a few more draws usually find another (still seeded) name.
    let generated: Partial<Category> = {};
    for (let attempt = 0; attempt < 5; attempt += 1) {
      generated = schema === undefined ? {} : (data.generate(schema, { allOptionals: true }) as Partial<Category>);
      if (typeof generated.name !== 'string' || !names.has(generated.name)) break;
    }
    const name = typeof generated.name === 'string' ? generated.name : `category-${index + 1}`;
    names.add(name);
    seeds.push({ name, ...(typeof generated.description === 'string' ? { description: generated.description } : {}) });
  }
  return seeds;
}

/**
 * The schema as the generator reads it (its node in the document, `$ref`s unresolved), as text:
 * the precomputed table applies to a schema with exactly this text and no reference.
 */
export function seedSchemaText(schema: JsonSchema): string | undefined {
  const origin = originOf(schema);
  const node = origin === undefined ? schema : nodeAt(origin.resolved.source, origin.pointer);
  let text: string;
  try {
    text = JSON.stringify(node);
  } catch {
    return undefined; // a cycle: not the kit's schema
  }
  return text === undefined || text.includes('"$ref"') ? undefined : text;
}

/** The seed categories of the kit's Category schema (its text as the generator reads it), per seed: [name, description?]. */
const precomputedSeeds = precomputedSeedsData as unknown as {
  schemaText: string;
  count: number;
  categories: readonly (readonly [name: string, description?: string])[][];
};

function knownSeedCategories(schema: JsonSchema, seed: number, count: number): NewCategory[] | undefined {
  if (count > precomputedSeeds.count) return undefined;
  const row = precomputedSeeds.categories[seed];
  if (row === undefined || seedSchemaText(schema) !== precomputedSeeds.schemaText) return undefined;
  return row
    .slice(0, count)
    .map(([name, description]) => (description === undefined ? { name } : { name, description }));
}

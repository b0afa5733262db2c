import type { DataGenerator } from '../../../spec/data-generator.js';
import { type Category, type NewCategory, NewCategorySchema } from '../../../spec/schemas.js';
import type { CompiledSpec } from './compiled-spec.js';

/**
 * The categories every session starts with and gets back on reset: the given ones, or
 * `seedCategories` faker-made ones from the spec's Category schema (same seed, same names).
 * Computed once at start, so every session and every replica starts from the same world. Draws from
 * `data` (reset first by the caller), so the fake data served afterwards continues the same sequence.
 */
export function seedCategories(
  spec: CompiledSpec,
  data: DataGenerator,
  options: { count: number; initialCategories?: readonly NewCategory[] | undefined },
): NewCategory[] {
  if (options.initialCategories) return options.initialCategories.map((category) => NewCategorySchema.parse(category));
  const schema = spec.componentSchemas.Category;
  const names = new Set<string>();
  const seeds: NewCategory[] = [];
  for (let index = 0; index < options.count; index += 1) {
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

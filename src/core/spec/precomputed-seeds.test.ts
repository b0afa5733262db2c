import { describe, expect, it } from 'vitest';
import { createDataGenerator } from '../../../spec/data-generator.js';
import { readSpecFile } from '../../../spec/load-spec.js';
import { compileSpec } from './compiled-spec.js';
import precomputedSeeds from './precomputed-seeds.json' with { type: 'json' };
import { drawSeedCategories, seedCategories } from './seeding.js';

const spec = compileSpec(await readSpecFile());
const schema = spec.componentSchemas.Category!;
const plain = (categories: readonly { name: string; description?: string }[]) =>
  categories.map((category) => [category.name, ...(category.description === undefined ? [] : [category.description])]);

describe('the precomputed seed categories', () => {
  it('are what faker draws now for every seed they hold (else: npm run generate:seeds)', () => {
    expect(precomputedSeeds.categories.length).toBeGreaterThan(42);
    const live = precomputedSeeds.categories.map((_, seed) =>
      plain(drawSeedCategories(schema, createDataGenerator(seed), precomputedSeeds.count)),
    );
    expect(live).toEqual(precomputedSeeds.categories.map((row) => row.map((entry) => [...entry])));
  });

  it('leave the fake-data sequence where the draws would have: the next value is the same', () => {
    const other = { type: 'string', 'x-faker': 'animal.type' };
    for (const seed of [1, 42]) {
      const fromTable = createDataGenerator(seed);
      const seeded = seedCategories(spec, fromTable, { count: 2 });
      const drawn = createDataGenerator(seed);
      expect(seeded).toEqual(drawSeedCategories(schema, drawn, 2));
      expect(fromTable.generate(other)).toBe(drawn.generate(other));
      // After a reset and seeding again (what controls.reset() does), the same holds.
      fromTable.reset();
      seedCategories(spec, fromTable, { count: 2 });
      drawn.reset();
      drawSeedCategories(schema, drawn, 2);
      expect(fromTable.generate(other, { allOptionals: true })).toBe(drawn.generate(other, { allOptionals: true }));
    }
  });

  it('apply only to the kit schema, under the seeds and counts they hold', async () => {
    const document = structuredClone(await readSpecFile());
    const schemas = (document.components as { schemas: Record<string, { properties: Record<string, unknown> }> })
      .schemas;
    schemas.Category!.properties.name = { type: 'string', 'x-faker': 'color.human' };
    const changed = compileSpec(document);
    const categories = seedCategories(changed, createDataGenerator(1), { count: 3 });
    expect(categories.map((category) => category.name)).not.toEqual(
      precomputedSeeds.categories[1]!.map(([name]) => name),
    );
    const many = seedCategories(spec, createDataGenerator(1), { count: 5 });
    expect(many.slice(0, 3)).toEqual(seedCategories(spec, createDataGenerator(1), { count: 3 }));
    const farSeed = precomputedSeeds.categories.length + 7;
    expect(seedCategories(spec, createDataGenerator(farSeed), { count: 3 })).toEqual(
      drawSeedCategories(schema, createDataGenerator(farSeed), 3),
    );
  });
});

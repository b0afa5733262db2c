import { describe, expect, it } from 'vitest';
import { compileSpecDefinition, validatorOf } from './compile-spec.js';
import { createDataGenerator } from './data-generator.js';
import type { JsonSchema } from './openapi-types.js';

const schema: JsonSchema = {
  type: 'object',
  required: ['name', 'count'],
  properties: {
    name: { type: 'string', 'x-faker': 'animal.type' },
    count: { type: 'integer', minimum: 1, maximum: 9 },
    note: { type: 'string', 'x-internal': true },
  },
};

describe('createDataGenerator', () => {
  it('generates data that fits the schema, with faker where the spec asks for it', () => {
    const value = createDataGenerator(1).generate(schema, { allOptionals: true }) as Record<string, unknown>;
    expect(Object.keys(value).sort()).toEqual(['count', 'name', 'note']);
    expect(value.name).toEqual(expect.any(String));
    expect(value.count).toBeGreaterThanOrEqual(1);
    expect(value.count).toBeLessThanOrEqual(9);
  });

  it('repeats itself under the same seed, and after reset', () => {
    const one = createDataGenerator(3);
    const two = createDataGenerator(3);
    const first = [one.generate(schema), one.generate(schema)];
    expect([two.generate(schema), two.generate(schema)]).toEqual(first);
    one.reset();
    expect([one.generate(schema), one.generate(schema)]).toEqual(first);
  });

  it('keeps two generators apart (no shared faker state)', () => {
    const one = createDataGenerator(9);
    const reference = createDataGenerator(9).generate(schema);
    createDataGenerator(9).generate(schema);
    expect(one.generate(schema)).toEqual(reference);
  });

  it('generates recursive schemas with a depth bound, and the data is valid', () => {
    const definition = compileSpecDefinition({
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      paths: {},
      components: {
        schemas: {
          Tree: {
            type: 'object',
            required: ['name', 'children'],
            properties: {
              name: { type: 'string', minLength: 1 },
              children: { type: 'array', items: { $ref: '#/components/schemas/Tree' } },
            },
          },
          List: {
            type: 'object',
            required: ['value'],
            properties: { value: { type: 'integer' }, next: { $ref: '#/components/schemas/List' } },
          },
          Choice: {
            anyOf: [
              { type: 'array', items: { $ref: '#/components/schemas/Choice' } },
              { type: 'string', 'x-faker': 'animal.type' },
            ],
          },
        },
      },
    });
    const data = createDataGenerator(4);
    for (const name of ['Tree', 'List', 'Choice']) {
      const schema = definition.componentSchemas[name]!;
      for (const allOptionals of [false, true]) {
        const value = data.generate(schema, { allOptionals });
        expect(JSON.stringify(value).length, name).toBeLessThan(100_000);
        expect(validatorOf(schema, name).safeParse(value).success, `${name}: ${JSON.stringify(value)}`).toBe(true);
      }
    }
  });

  it('draws a keyed value from the seed and the key alone, the document’s values in it', () => {
    const definition = compileSpecDefinition({
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      paths: {},
      components: {
        schemas: {
          Owner: {
            type: 'object',
            required: ['id', 'name', 'nickname'],
            properties: {
              id: { type: 'string' },
              name: { type: 'string', examples: ['Ada'] },
              nickname: { type: 'string', maxLength: 12 },
            },
          },
        },
      },
    });
    const owner = definition.componentSchemas.Owner!;
    const one = createDataGenerator(5);
    const first = one.generate(owner, { key: '/owners/a' }) as Record<string, unknown>;
    one.generate(schema);
    one.generate(owner, { key: '/owners/b' });
    expect(one.generate(owner, { key: '/owners/a' })).toEqual(first);
    expect(createDataGenerator(5).generate(owner, { key: '/owners/a' })).toEqual(first);
    expect(createDataGenerator(6).generate(owner, { key: '/owners/a' })).not.toEqual(first);
    expect(first.name).toBe('Ada');
    expect(first.id).not.toBe('');
    expect((one.generate(owner) as Record<string, unknown>).name).not.toBe('Ada');
  });
});

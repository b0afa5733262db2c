import { describe, expect, it } from 'vitest';
import { givenValues, prepareGiven } from './given-values.js';
import type { JsonSchema } from './openapi-types.js';

const always = () => true;

describe('givenValues', () => {
  it('lists what a node gives in the order a reader expects', () => {
    const node: JsonSchema = { examples: ['a', 'b'], example: 'c', default: 'd', enum: ['e', 'f'], const: 'e' };
    expect(givenValues(node).map(({ where }) => where)).toEqual([
      'examples[0]',
      'examples[1]',
      'example',
      'default',
      'enum[0]',
      'const',
    ]);
    expect(givenValues(node, 'default').map(({ value }) => value)).toEqual(['a', 'b', 'c', 'd']);
    expect(givenValues(node, 'examples').map(({ value }) => value)).toEqual(['a', 'b', 'c']);
  });
});

describe('prepareGiven', () => {
  const pet: JsonSchema = {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      name: { type: 'string', examples: ['Rex'] },
      size: { type: 'integer', minimum: 1, examples: [-3, 4] },
    },
  };

  it('pins each node to the first value its own schema accepts, and leaves the document untouched', () => {
    const check = (value: unknown, path: readonly string[]) => !(path.at(-1) === 'size' && (value as number) < 1);
    const prepared = prepareGiven(pet, check, true) as { properties: Record<string, JsonSchema> };
    expect(prepared.properties.name).toEqual({ const: 'Rex' });
    expect(prepared.properties.size).toEqual({ const: 4 });
    expect((pet as { properties: Record<string, JsonSchema> }).properties.name).toEqual({
      type: 'string',
      examples: ['Rex'],
    });
  });

  it('pins nothing when drawing afresh, and keeps generated ids non-empty and positive either way', () => {
    for (const pin of [false, true]) {
      const prepared = prepareGiven(
        {
          type: 'object',
          properties: { id: { type: 'string' }, ownerId: { type: 'integer' }, idle: { type: 'string' } },
        },
        always,
        pin,
      ) as { properties: Record<string, JsonSchema> };
      expect(prepared.properties).toEqual({
        id: { type: 'string', minLength: 1 },
        ownerId: { type: 'integer', minimum: 1 },
        idle: { type: 'string' },
      });
    }
    expect((prepareGiven(pet, always, false) as { properties: Record<string, JsonSchema> }).properties.name).toEqual({
      type: 'string',
      examples: ['Rex'],
    });
  });

  it('keeps an object’s default from hiding its properties’ examples', () => {
    const prepared = prepareGiven({ ...pet, default: {} }, always, true) as { properties: Record<string, JsonSchema> };
    expect(prepared.properties.name).toEqual({ const: 'Rex' });
  });

  it('makes a list of items with one given id hold one item', () => {
    const list = prepareGiven(
      { type: 'array', items: { type: 'object', properties: { id: { type: 'integer', examples: [7] } } } },
      always,
      true,
    );
    expect(list).toMatchObject({ maxItems: 1 });
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../../spec/openapi-types.js';
import { formFields } from './media.js';
import { parameterReader } from './parameter-values.js';
import { itemSchema, propertySchemas, scalar, valueTypes } from './text-typing.js';

type Schema = Exclude<JsonSchema, boolean>;

/** A value of one JSON type, with the schema of that type and the text a form or a query sends for it. */
const typedValue = fc.oneof(
  fc.integer().map((value) => ({ value, base: { type: 'integer' } as Schema })),
  fc
    .double({ noNaN: true, noDefaultInfinity: true })
    .filter((value) => !Object.is(value, -0))
    .map((value) => ({ value, base: { type: 'number' } as Schema })),
  fc.boolean().map((value) => ({ value, base: { type: 'boolean' } as Schema })),
  // Non-empty: an empty text is null where null is allowed.
  fc.string({ minLength: 1 }).map((value) => ({ value, base: { type: 'string' } as Schema })),
  fc
    .dictionary(
      fc.string().filter((key) => key !== '__proto__'),
      fc.oneof(fc.integer(), fc.string(), fc.boolean(), fc.constant(null)),
      { maxKeys: 4 },
    )
    .map((value) => ({ value: value as unknown, base: { type: 'object' } as Schema })),
  fc.constant({ value: null as unknown, base: { type: 'null' } as Schema }),
);

const textOf = (value: unknown): string =>
  value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);

/** Ways a document wraps a schema without changing the values it allows (beyond null where it says so). */
const wrappers: fc.Arbitrary<(schema: Schema, value: unknown) => Schema> = fc.constantFrom(
  (schema: Schema) => ({ allOf: [schema] }),
  (schema: Schema) => ({ allOf: [{ description: 'no type of its own' }, schema] }),
  (schema: Schema) => ({ anyOf: [schema] }),
  (schema: Schema) => ({ oneOf: [schema, { type: 'null' }] }),
  (schema: Schema) => ({ anyOf: [schema, schema] }),
  (schema: Schema) => ({ title: 'a $ref resolved: the same object shared', allOf: [schema], oneOf: [schema] }),
  (schema: Schema, value: unknown) => ({ ...schema, enum: [value, null] }),
  (schema: Schema, value: unknown) => ({ allOf: [schema, { const: value }] }),
  // 3.0's nullable, as normalise-openapi writes it.
  (schema: Schema) =>
    typeof schema.type === 'string'
      ? { ...schema, type: [schema.type, 'null'] }
      : { anyOf: [schema, { type: 'null' }] },
  // A wider type beside a narrower one (number and integer share integer).
  (schema: Schema) => (schema.type === 'integer' ? { allOf: [{ type: 'number' }, schema] } : { allOf: [{}, schema] }),
);

describe('valueTypes and scalar: a text read as its whole schema says', () => {
  it('reads back every value of a type through any wrapping of its schema', () => {
    fc.assert(
      fc.property(typedValue, fc.array(wrappers, { maxLength: 5 }), ({ value, base }, wraps) => {
        const schema = wraps.reduce<Schema>((inner, wrap) => wrap(inner, value), base);
        expect(scalar(textOf(value), valueTypes(schema))).toEqual(value);
      }),
    );
  });

  it('keeps the text where no part of the schema gives a type', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        for (const schema of [{}, { description: 'anything' }, { allOf: [{}, { minLength: 1 }] }, { anyOf: [{}] }])
          expect(scalar(text, valueTypes(schema))).toBe(text);
      }),
    );
    // Any type in one branch: the text stays text, as the schema allows it.
    expect(valueTypes({ anyOf: [{ type: 'integer' }, {}] })).toEqual([]);
  });

  it('gives no type where the members contradict each other (the text stays text, validation refuses it)', () => {
    expect(valueTypes({ allOf: [{ type: 'string' }, { type: 'integer' }] })).toEqual([]);
    expect(valueTypes({ type: 'integer', enum: ['a'] })).toEqual([]);
  });

  it('reads null from an empty text, and from `null` unless a string is allowed', () => {
    expect(scalar('null', valueTypes({ type: ['integer', 'null'] }))).toBeNull();
    expect(scalar('', valueTypes({ oneOf: [{ type: 'integer' }, { type: 'null' }] }))).toBeNull();
    expect(scalar('null', valueTypes({ type: ['string', 'null'] }))).toBe('null');
    expect(scalar('null', valueTypes({ type: 'integer' }))).toBe('null');
  });

  it('types const and enum values, and walks a recursive schema once', () => {
    expect(scalar('2', valueTypes({ enum: [1, 2, 3] }))).toBe(2);
    expect(scalar('true', valueTypes({ const: true }))).toBe(true);
    expect(valueTypes({ enum: ['a', null] })).toEqual(['string', 'null']);
    const node: Schema = { type: 'object', properties: {} };
    (node.properties as Record<string, Schema>).child = { anyOf: [node, { type: 'null' }] };
    const cycle: Schema = { allOf: [] };
    (cycle.allOf as Schema[]).push({ oneOf: [cycle, node] });
    expect(valueTypes({ allOf: [node] })).toEqual(['object']);
    expect(valueTypes(cycle)).toEqual(['object']);
    expect(valueTypes((node.properties as Record<string, Schema>).child)).toEqual(['object', 'null']);
  });
});

describe('propertySchemas and itemSchema', () => {
  it('gathers properties through allOf (all must hold) and oneOf (of the branches that declare one)', () => {
    const properties = propertySchemas({
      allOf: [{ properties: { n: { type: 'number' } } }, { properties: { n: { type: 'integer' } } }],
      oneOf: [
        { properties: { kind: { const: 1 } } },
        { properties: { kind: { const: 2 }, extra: { type: 'boolean' } } },
      ],
    });
    expect([...properties.keys()].sort()).toEqual(['extra', 'kind', 'n']);
    expect(valueTypes(properties.get('n'))).toEqual(['integer']);
    expect(valueTypes(properties.get('kind'))).toEqual(['integer']);
    expect(valueTypes(properties.get('extra'))).toEqual(['boolean']);
  });

  it("finds an array's items through its members", () => {
    expect(itemSchema({ type: 'array', items: { type: 'integer' } })).toEqual({ type: 'integer' });
    const items = itemSchema({ anyOf: [{ type: 'array', items: { type: 'integer' } }, { type: 'null' }] });
    expect(valueTypes(items)).toEqual(['integer']);
    expect(itemSchema({ type: 'array' })).toBeUndefined();
  });
});

describe('form fields and parameters read through the whole schema', () => {
  const session: Schema = { type: 'object', properties: { model: { type: 'string' } } };
  const fields = formFields(
    {
      type: 'object',
      properties: {
        n: { type: ['integer', 'null'], minimum: 1 },
        session: { title: 'Session', allOf: [session] },
        meta: { description: 'no type; its part is declared JSON' },
        note: { description: 'no type at all' },
        ids: { anyOf: [{ type: 'array', items: { type: 'integer' } }, { type: 'null' }] },
        size: { enum: [256, 512] },
      },
    },
    { meta: { contentType: 'application/json' } },
  );
  const read = (name: string, ...values: string[]) => fields.get(name)!(values);

  it('types each field by its property schema, nullable, allOf, enum and declared encoding included', () => {
    expect([read('n', '3'), read('n', 'null'), read('n', '')]).toEqual([3, null, null]);
    expect(read('session', '{"model":"m"}')).toEqual({ model: 'm' });
    expect(read('meta', '{"a":[1]}')).toEqual({ a: [1] });
    expect(read('note', '{"a":1}')).toBe('{"a":1}');
    expect([read('ids', '1', '2'), read('ids', '3,4')]).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(read('size', '512')).toBe(512);
  });

  it('reads a parameter by its whole schema too', () => {
    const query = (schema: JsonSchema, search: string) =>
      parameterReader({ name: 'p', in: 'query', schema, style: undefined, explode: undefined, content: false })({
        pathParams: {},
        query: new URLSearchParams(search),
        headers: {},
      });
    expect(query({ allOf: [{ type: 'integer' }] }, 'p=4')).toBe(4);
    expect(query({ anyOf: [{ type: 'boolean' }, { type: 'null' }] }, 'p=true')).toBe(true);
    expect(query({ oneOf: [{ type: 'array', items: { enum: [1, 2] } }] }, 'p=1&p=2')).toEqual([1, 2]);
    expect(query({ allOf: [{ type: 'object', properties: { a: { type: 'integer' } } }] }, 'a=1&b=2')).toEqual({ a: 1 });
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../../spec/openapi-types.js';
import { standaloneValidator } from '../../../spec/schema-validator.js';
import { formFields } from './media.js';
import { parameterReader } from './parameter-values.js';
import { itemSchema, propertySchemas, textValue, valueTypes } from './text-typing.js';

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
        expect(textValue(textOf(value), schema)).toEqual(value);
      }),
    );
  });

  it('keeps the text where no part of the schema gives a type', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        for (const schema of [{}, { description: 'anything' }, { allOf: [{}, { minLength: 1 }] }, { anyOf: [{}] }])
          expect(textValue(text, schema)).toBe(text);
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
    expect(textValue('null', { type: ['integer', 'null'] })).toBeNull();
    expect(textValue('', { oneOf: [{ type: 'integer' }, { type: 'null' }] })).toBeNull();
    expect(textValue('null', { type: ['string', 'null'] })).toBe('null');
    expect(textValue('null', { type: 'integer' })).toBe('null');
  });

  it('types const and enum values, and walks a recursive schema once', () => {
    expect(textValue('2', { enum: [1, 2, 3] })).toBe(2);
    expect(textValue('true', { const: true })).toBe(true);
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

describe('a text read as any value its schema allows (the declared string first, then the typed value)', () => {
  const read = (text: string, schema: JsonSchema) => textValue(text, schema);

  it('keeps a numeric text a string where the enum or const names that string', () => {
    expect([read('1', { enum: ['1', 2] }), read('2', { enum: ['1', 2] })]).toEqual(['1', 2]);
    expect(['007', 'x', '3', '7'].map((text) => read(text, { enum: ['007', 'x', 3] }))).toEqual(['007', 'x', 3, 7]);
    expect(['1', '2'].map((text) => read(text, { oneOf: [{ const: '1' }, { type: 'integer' }] }))).toEqual(['1', 2]);
    expect(read('1', { type: ['string', 'integer'], enum: ['1', 2] })).toBe('1');
    expect(read('true', { enum: ['true', false] })).toBe('true');
    expect(read('false', { enum: ['true', false] })).toBe(false);
  });

  it('reads null spelled as text where the schema names null and not that string (3.0 nullable included)', () => {
    const nullableEnum: Schema = { type: ['string', 'null'], enum: ['a', null] };
    expect([read('null', nullableEnum), read('', nullableEnum), read('a', nullableEnum)]).toEqual([null, null, 'a']);
    expect(read('null', { enum: ['null', null] })).toBe('null');
    expect(read('', { enum: ['', null] })).toBe('');
    // An open string keeps `null` as text (a form has no null of its own), as before.
    expect(read('null', { type: ['string', 'null'] })).toBe('null');
  });

  it('keeps a text the number reading breaks as the string the schema also allows', () => {
    // 1.5 is no integer: the string it is fits the type list.
    expect(read('1.5', { type: ['string', 'integer'] })).toBe('1.5');
    expect(read('12', { type: ['integer', 'string'] })).toBe(12);
    expect(read('12', { anyOf: [{ enum: [1, 2] }, { type: 'string' }] })).toBe('12');
  });

  it('still reads a text no value of the schema spells as the type the schema asks for, for validation to refuse', () => {
    expect(read('9', { enum: ['1', 2] })).toBe(9);
    expect(read('x', { enum: [1, 2] })).toBe('x');
    expect(read('1.5', { type: 'integer' })).toBe(1.5);
  });

  it('reads the declared string in a form part, a multipart part and a parameter alike', () => {
    const schema: Schema = { type: 'object', properties: { code: { enum: ['1', 2] } } };
    const field = formFields(schema).get('code')!;
    const parameter = (location: 'query' | 'path' | 'header', text: string) =>
      parameterReader({
        name: 'code',
        in: location,
        schema: { enum: ['1', 2] },
        style: undefined,
        explode: undefined,
        content: false,
      })({
        pathParams: { code: text },
        query: new URLSearchParams({ code: text }),
        headers: { code: text },
      });
    expect([field(['1']), field(['2'])]).toEqual(['1', 2]);
    for (const location of ['query', 'path', 'header'] as const)
      expect([parameter(location, '1'), parameter(location, '2')]).toEqual(['1', 2]);
    const list = parameterReader({
      name: 'codes',
      in: 'query',
      schema: { type: 'array', items: { enum: ['1', 2] } },
      style: undefined,
      explode: undefined,
      content: false,
    });
    expect(list({ pathParams: {}, query: new URLSearchParams('codes=1&codes=2'), headers: {} })).toEqual(['1', 2]);
  });
});

/** A member of a mixed enum: texts that spell numbers, booleans and null beside the values they spell. */
const member = fc.oneof(
  fc.constantFrom('1', '2', '007', '1.0', 'true', 'false', 'null', '', '-3', '1e3', 'x'),
  fc.string({ maxLength: 3 }),
  fc.integer({ min: -5, max: 1000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -10, max: 10 }).filter((value) => !Object.is(value, -0)),
  fc.boolean(),
  fc.constant(null),
);

/** A text a form or a query sends: near misses of the members included. */
const sentText = fc.oneof(
  fc.constantFrom('1', '2', '01', '007', '7', '1.0', '1.5', 'true', 'True', 'false', 'null', '', '-3', '1e3', 'x', 'y'),
  fc.string({ maxLength: 3 }),
  fc.integer({ min: -5, max: 1000 }).map(String),
);

const jsonTypeOf = (value: unknown): string =>
  value === null ? 'null' : typeof value === 'number' ? (Number.isInteger(value) ? 'integer' : 'number') : typeof value;

/** The ways a document says "one of these values": enum, consts in oneOf or anyOf, a type list beside the enum, 3.0 nullable. */
const closedSchemas: ((values: unknown[]) => Schema)[] = [
  (values) => ({ enum: values }),
  (values) => ({ oneOf: values.map((value) => ({ const: value })) }),
  (values) => ({ anyOf: values.map((value) => ({ const: value })) }),
  (values) => ({ type: [...new Set(values.map(jsonTypeOf))], enum: values }),
  (values) => ({ allOf: [{ enum: values }, { description: 'no type of its own' }] }),
  (values) => ({ type: [...new Set([...values.map(jsonTypeOf), 'null'])], enum: [...values, null] }),
];

/** Does the text spell the value (as a form, a query or a header writes it)? */
const spells = (text: string, value: unknown): boolean => {
  if (typeof value === 'string') return text === value;
  if (typeof value === 'number') return /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text) && Number(text) === value;
  if (value === null) return text === '' || text === 'null';
  return text === String(value);
};

describe('mixed enums and consts, any reading: property', () => {
  const members = fc.uniqueArray(member, { minLength: 1, maxLength: 6, selector: (value) => JSON.stringify(value) });

  it('accepts the text of every member, and refuses a text that spells none, whatever the form of the schema', () => {
    fc.assert(
      fc.property(members, fc.constantFrom(...closedSchemas.keys()), sentText, (values, form, text) => {
        const schema = closedSchemas[form]!(values);
        const validator = standaloneValidator(schema, 'a mixed enum');
        const allowed = form === 5 ? [...values, null] : values;
        for (const value of allowed) {
          const sent = value === null ? 'null' : String(value);
          expect(
            validator.isValid(textValue(sent, schema)),
            `${JSON.stringify(sent)} of ${JSON.stringify(schema)}`,
          ).toBe(true);
        }
        expect(validator.isValid(textValue(text, schema)), `${JSON.stringify(text)} of ${JSON.stringify(schema)}`).toBe(
          allowed.some((value) => spells(text, value)),
        );
      }),
      { numRuns: 150 },
    );
  });
});

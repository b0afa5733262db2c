import { describe, expect, it } from 'vitest';
import type { JsonSchema } from './openapi-types.js';
import { enforcedKeywords } from './schema-keywords.js';
import { knownFormats, standaloneValidator } from './schema-validator.js';

/** keyword -> [schema, a value it accepts, a value it refuses]: every enforced keyword is really checked. */
const cases: Record<string, [JsonSchema, unknown, unknown]> = {
  type: [{ type: 'integer' }, 3, 3.5],
  enum: [{ enum: ['a', 1] }, 1, 'b'],
  const: [{ const: { a: 1 } }, { a: 1 }, { a: 2 }],
  multipleOf: [{ multipleOf: 0.5 }, 1.5, 1.2],
  maximum: [{ maximum: 3 }, 3, 4],
  exclusiveMaximum: [{ exclusiveMaximum: 3 }, 2.9, 3],
  minimum: [{ minimum: 3 }, 3, 2],
  exclusiveMinimum: [{ exclusiveMinimum: 3 }, 3.1, 3],
  maxLength: [{ maxLength: 2 }, '😀😀', 'abc'],
  minLength: [{ minLength: 2 }, 'ab', 'a'],
  pattern: [{ pattern: '^[a-z]+$' }, 'abc', 'aBc'],
  format: [{ format: 'email' }, 'a@example.com', 'not an address'],
  maxItems: [{ maxItems: 1 }, [1], [1, 2]],
  minItems: [{ minItems: 1 }, [1], []],
  uniqueItems: [{ uniqueItems: true }, [1, 2], [{ a: 1 }, { a: 1 }]],
  maxContains: [{ contains: { type: 'string' }, maxContains: 1 }, ['a', 1], ['a', 'b']],
  minContains: [{ contains: { type: 'string' }, minContains: 2 }, ['a', 'b'], ['a', 1]],
  items: [{ items: { type: 'string' } }, ['a'], ['a', 1]],
  prefixItems: [{ prefixItems: [{ type: 'string' }, { type: 'integer' }] }, ['a', 1, true], [1, 'a']],
  contains: [{ contains: { const: 7 } }, [1, 7], [1, 2]],
  unevaluatedItems: [{ prefixItems: [{ type: 'string' }], unevaluatedItems: false }, ['a'], ['a', 'b']],
  maxProperties: [{ maxProperties: 1 }, { a: 1 }, { a: 1, b: 2 }],
  minProperties: [{ minProperties: 1 }, { a: 1 }, {}],
  required: [{ required: ['a'] }, { a: null }, { b: 1 }],
  dependentRequired: [{ dependentRequired: { card: ['address'] } }, { card: 1, address: 'x' }, { card: 1 }],
  properties: [{ properties: { a: { type: 'string' } } }, { a: 'x' }, { a: 1 }],
  patternProperties: [{ patternProperties: { '^n_': { type: 'integer' } } }, { n_a: 1 }, { n_a: 'x' }],
  additionalProperties: [{ properties: { a: {} }, additionalProperties: false }, { a: 1 }, { a: 1, b: 2 }],
  propertyNames: [{ propertyNames: { maxLength: 2 } }, { ab: 1 }, { abc: 1 }],
  dependentSchemas: [{ dependentSchemas: { a: { required: ['b'] } } }, { a: 1, b: 2 }, { a: 1 }],
  unevaluatedProperties: [
    { allOf: [{ properties: { a: {} } }], unevaluatedProperties: false },
    { a: 1 },
    { a: 1, b: 2 },
  ],
  allOf: [{ allOf: [{ minimum: 1 }, { maximum: 2 }] }, 2, 3],
  anyOf: [{ anyOf: [{ type: 'string' }, { type: 'boolean' }] }, true, 1],
  oneOf: [{ oneOf: [{ minimum: 1 }, { maximum: 2 }] }, 5, 1.5],
  not: [{ not: { type: 'string' } }, 1, 'a'],
  if: [{ if: { minimum: 10 }, then: { multipleOf: 10 }, else: { maximum: 5 } }, 20, 15],
  then: [{ if: { type: 'string' }, then: { minLength: 2 } }, 'ab', 'a'],
  else: [{ if: { type: 'string' }, else: { type: 'integer' } }, 1, 1.5],
  $ref: [{ $defs: { s: { type: 'string' } }, $ref: '#/$defs/s' }, 'a', 1],
  $defs: [{ $defs: { s: { type: 'string' } }, properties: { a: { $ref: '#/$defs/s' } } }, { a: 'x' }, { a: 1 }],
  definitions: [
    { definitions: { s: { type: 'string' } }, properties: { a: { $ref: '#/definitions/s' } } },
    { a: 'x' },
    { a: 1 },
  ],
  $schema: [{ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'string' }, 'a', 1],
};

describe('validators (ajv, JSON Schema 2020-12)', () => {
  it('have a case for every keyword the audit lets through as enforced', () => {
    expect(Object.keys(cases).sort()).toEqual([...enforcedKeywords].sort());
  });

  it.each(Object.entries(cases))('enforce %s', (keyword, [schema, valid, invalid]) => {
    const validator = standaloneValidator(schema, keyword);
    expect(validator.safeParse(valid).success, `${JSON.stringify(valid)} is valid`).toBe(true);
    expect(validator.safeParse(invalid).success, `${JSON.stringify(invalid)} is invalid`).toBe(false);
    // The hot path's verdict without issues is the same verdict.
    expect(validator.isValid(valid)).toBe(true);
    expect(validator.isValid(invalid)).toBe(false);
  });

  it('refuse a value nested deeper than the stack in isValid too, without throwing', () => {
    const validator = standaloneValidator(
      { $defs: { tree: { type: 'array', items: { $ref: '#/$defs/tree' } } }, $ref: '#/$defs/tree' },
      'tree',
    );
    let deep: unknown = [];
    for (let level = 0; level < 100_000; level += 1) deep = [deep];
    expect(validator.isValid(deep)).toBe(false);
    expect(validator.isValid([[[]]])).toBe(true);
  });

  it('say a schema nested past the stack cannot be compiled, once, never a RangeError', () => {
    // refuseDeepSchemas keeps a document's schemas far from this; a schema that stands alone is not a document's.
    let schema: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < 3_000; level += 1) schema = { type: 'array', items: schema };
    const deep = standaloneValidator(schema, 'deep');
    const message =
      'Failed to compile spec: the schema of deep cannot be compiled (it nests too deeply to compile: the stack ran out)';
    expect(() => deep.safeParse([])).toThrow(message);
    // Kept: the second use says the same without compiling again.
    expect(() => deep.isValid([])).toThrow(message);
  });

  it('say a schema cannot be compiled from isValid as from safeParse', () => {
    const broken = standaloneValidator({ $ref: '#/$defs/missing' }, 'broken');
    expect(() => broken.isValid(1)).toThrow(/^Failed to compile spec: the schema of broken cannot be compiled/);
  });

  it.each([
    ['int32', 2 ** 31, 1],
    ['int64', 1.5, 2 ** 40],
    ['date-time', '2026-13-01T00:00:00Z', '2026-01-01T00:00:00Z'],
    ['uuid', 'nope', '123e4567-e89b-12d3-a456-426614174000'],
    ['byte', 'not base64!', 'aGVsbG8='],
  ])('check the OpenAPI and JSON Schema format %s', (format, invalid, valid) => {
    expect(knownFormats.has(format)).toBe(true);
    const validator = standaloneValidator({ format }, format);
    expect(validator.safeParse(valid).success).toBe(true);
    expect(validator.safeParse(invalid).success).toBe(false);
  });

  it('word their issues the way users read them, never quoting the value', () => {
    const validator = standaloneValidator(
      {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string' }, tags: { type: 'array', items: { enum: ['a', 'b'] } } },
        additionalProperties: false,
      },
      'body',
    );
    const issues = (value: unknown) => {
      const result = validator.safeParse(value);
      return result.success ? [] : result.error.issues.map((issue) => [issue.path.join('.'), issue.message]);
    };
    expect(issues({ name: 5 })).toEqual([['name', 'expected string, received number']]);
    expect(issues({})).toEqual([['name', 'required property is missing']]);
    expect(issues({ name: 'x', tags: ['c'] })).toEqual([['tags.0', 'expected one of "a", "b"']]);
    expect(issues({ name: 'x', secret: 'do-not-echo' })).toEqual([
      ['secret', 'unexpected property (the schema allows no other properties)'],
    ]);
    expect(JSON.stringify(issues({ name: 'do-not-echo'.repeat(3), extra: 1 }))).not.toContain('do-not-echo');
  });

  it('ignore annotations and extensions', () => {
    const validator = standaloneValidator(
      { type: 'string', description: 'd', example: 1, 'x-faker': 'animal.type', deprecated: true },
      'annotated',
    );
    expect(validator.safeParse('a').success).toBe(true);
  });
});

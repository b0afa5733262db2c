import { describe, expect, it } from 'vitest';
import { likelyMeant } from './keyword-spelling.js';
import type { JsonSchema, OpenApiDocument } from './openapi-types.js';
import { auditSchemas, stripAnnotations } from './schema-keywords.js';
import { knownFormats } from './schema-validator.js';

const documentWith = (schema: unknown, extra: Partial<OpenApiDocument> = {}): OpenApiDocument => ({
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: {
    '/toys': {
      get: {
        parameters: [{ name: 'q', in: 'query', schema: { type: 'string' } }],
        responses: {
          '200': {
            description: 'ok',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Toy' } } },
          },
        },
      },
    },
  },
  components: { schemas: { Toy: schema as JsonSchema } },
  ...extra,
});
const audit = (schema: unknown, extra?: Partial<OpenApiDocument>) => () =>
  auditSchemas(documentWith(schema, extra), knownFormats);

describe('auditSchemas', () => {
  it.each([
    [
      'a pattern that is not a regular expression',
      { type: 'string', pattern: '([a-z]' },
      'pattern',
      /^pattern "\(\[a-z\]" is not a valid regular expression/,
    ],
    [
      'the draft 7 list form of items',
      { type: 'array', items: [{ type: 'string' }] },
      'items',
      /^items must be a schema \(the list form is draft 7; in 2020-12 use prefixItems\)$/,
    ],
    ['a type that is not a JSON type', { type: 'int' }, 'type', /^type "int" is not a JSON type/],
    [
      'a negative minLength',
      { type: 'string', minLength: -1 },
      'minLength',
      /^minLength must be a non-negative integer, found -1$/,
    ],
    [
      'a boolean exclusiveMinimum (3.0 style, in a 3.1 document)',
      { type: 'number', minimum: 1, exclusiveMinimum: true },
      'exclusiveMinimum',
      /^exclusiveMinimum must be a number, found true \(the boolean form is OpenAPI 3.0\)$/,
    ],
    ['an empty anyOf', { anyOf: [] }, 'anyOf', /^anyOf must be a non-empty list of schemas/],
  ])('serves %s without the keyword, saying what and where', (_, schema, keyword, problem) => {
    const { dropped } = audit(schema)();
    expect(dropped).toEqual([{ pointer: '/components/schemas/Toy', keyword, problem: expect.stringMatching(problem) }]);
  });

  it('reads a format it does not know as an annotation, naming it and where it is first used', () => {
    expect(
      audit({
        type: 'object',
        properties: { phone: { type: 'string', format: 'phone' }, other: { type: 'string', format: 'phone' } },
      })().unknownFormats,
    ).toEqual(new Map([['phone', expect.stringMatching(/^\/components\/schemas\/Toy\/properties\/(phone|other)$/)]]));
    expect(audit({ type: 'string', format: 'date-time' })().unknownFormats.size).toBe(0);
  });

  it('accepts enforced keywords, annotations and extensions', () => {
    expect(
      audit({
        type: 'object',
        description: 'd',
        example: { a: 1 },
        discriminator: { propertyName: 'kind' },
        xml: { name: 'toy' },
        externalDocs: { url: 'https://x' },
        'x-faker': 'animal.type',
        properties: { age: { type: 'integer', format: 'int32', readOnly: true, deprecated: true } },
      }),
    ).not.toThrow();
  });

  it.each([
    [
      'nullable (OpenAPI 3.0)',
      { type: 'string', nullable: true },
      'Failed to compile spec: keyword "nullable" is not supported (it is OpenAPI 3.0; in 3.1 write type: [<type>, "null"]) at #/components/schemas/Toy',
    ],
    [
      '$id',
      { $id: 'https://example.com/toy.json', type: 'object' },
      /keyword "\$id" is not supported .* at #\/components\/schemas\/Toy$/,
    ],
    ['$dynamicRef', { $dynamicRef: '#node' }, /keyword "\$dynamicRef" is not supported/],
    [
      'a schema that is a string',
      { type: 'object', properties: { a: 'string' } },
      /a schema must be an object or a boolean, found string at #\/components\/schemas\/Toy\/properties\/a$/,
    ],
    [
      'a cycle that never nests (left recursion)',
      { anyOf: [{ $ref: '#/components/schemas/Toy' }, { type: 'string' }] },
      /^Failed to compile spec: the schema refers to itself without nesting .* at #\/components\/schemas\/Toy$/,
    ],
    [
      'another dialect',
      { $schema: 'http://json-schema.org/draft-07/schema#' },
      /\$schema "http:\/\/json-schema.org\/draft-07\/schema#" is not supported/,
    ],
  ])('refuses %s with one line naming it and where it is', (_, schema, message) => {
    let thrown: Error | undefined;
    try {
      audit(schema)();
    } catch (error) {
      thrown = error as Error;
    }
    expect(thrown?.message).toMatch(
      message instanceof RegExp ? message : new RegExp(`^${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`),
    );
    expect(thrown?.message).not.toContain('\n');
  });

  it('audits parameter schemas and whatever a $ref points to, outside components too', () => {
    const document = documentWith({ $ref: '#/x-library/Toy' }, {
      'x-library': { Toy: { type: 'string', formatt: 'x', $anchor: 'toy' } },
    } as Partial<OpenApiDocument>);
    expect(() => auditSchemas(document, knownFormats)).toThrow(
      /keyword "\$anchor" is not supported .* at #\/x-library\/Toy$/,
    );
    const parameter = documentWith({ type: 'string' });
    parameter.paths!['/toys']!.get!.parameters![0]!.schema = { type: 'string', maxLenght: 3 } as JsonSchema;
    expect(auditSchemas(parameter, knownFormats).unknownKeywords).toEqual(
      new Map([['maxLenght', '/paths/~1toys/get/parameters/0/schema']]),
    );
  });

  it('reads a keyword JSON Schema 2020-12 does not know as an annotation, named with where it is first used', () => {
    // OpenAI's document: `optional: true` beside a property's schema.
    const document = documentWith({
      type: 'object',
      properties: { age: { type: 'integer', minimun: 1, optional: true }, name: { type: 'string', optional: true } },
    });
    const { unknownKeywords } = auditSchemas(document, knownFormats);
    expect(unknownKeywords.get('minimun')).toBe('/components/schemas/Toy/properties/age');
    expect(unknownKeywords.get('optional')).toMatch(/^\/components\/schemas\/Toy\/properties\/(age|name)$/);
    expect(unknownKeywords.size).toBe(2);
    expect(likelyMeant('minimun')).toBe('minimum');
    expect(likelyMeant('maxLenght')).toBe('maxLength');
    expect(likelyMeant('MinLength')).toBe('minLength');
    expect(likelyMeant('optional')).toBeUndefined();
  });

  it('refuses a jsonSchemaDialect other than 2020-12', () => {
    expect(audit({ type: 'string' }, { jsonSchemaDialect: 'http://json-schema.org/draft-04/schema#' })).toThrow(
      /jsonSchemaDialect .* is not supported/,
    );
  });

  it('takes property names for names, not keywords', () => {
    expect(
      audit({
        type: 'object',
        properties: { nullable: { type: 'boolean' }, $id: { type: 'string' }, format: { type: 'string' } },
      }),
    ).not.toThrow();
  });
});

describe('stripAnnotations', () => {
  it('drops annotations and extensions but keeps field names that look like them', () => {
    expect(
      stripAnnotations({
        type: 'object',
        description: 'd',
        'x-faker': 'a',
        properties: { description: { type: 'string', example: 'x' } },
      }),
    ).toEqual({ type: 'object', properties: { description: { type: 'string' } } });
  });

  it('copes with recursive (cyclic) schemas, keeping the cycle', () => {
    const node: Record<string, unknown> = { type: 'object', description: 'a list' };
    node.properties = { next: node };
    const stripped = stripAnnotations(node as JsonSchema) as { properties: { next: unknown }; description?: string };
    expect(stripped.description).toBeUndefined();
    expect(stripped.properties.next).toBe(stripped);
  });
});

import { describe, expect, it } from 'vitest';
import { compileSpecDefinition } from './compile-spec.js';
import { normaliseOpenApi } from './normalise-openapi.js';
import type { OpenApiDocument } from './openapi-types.js';

const document30 = (schemas: Record<string, unknown>, extra: Record<string, unknown> = {}): OpenApiDocument =>
  ({
    openapi: '3.0.3',
    info: { title: 't', version: '1' },
    paths: {},
    components: { schemas },
    ...extra,
  }) as unknown as OpenApiDocument;

describe('normaliseOpenApi (OpenAPI 3.0 read as 3.1)', () => {
  it('turns nullable into a null type, a null enum value, or anyOf null where there is no type', () => {
    const document = normaliseOpenApi(
      document30({
        Name: { type: 'string', nullable: true },
        Colour: { type: 'string', enum: ['red', 'blue'], nullable: true },
        Owner: { $ref: '#/components/schemas/Name', nullable: true, description: 'kept outside' },
        Plain: { type: 'integer', nullable: false },
      }),
    );
    const schemas = document.components!.schemas!;
    expect(document.openapi).toBe('3.1.1');
    expect(schemas.Name).toEqual({ type: ['string', 'null'] });
    expect(schemas.Colour).toEqual({ type: ['string', 'null'], enum: ['red', 'blue', null] });
    expect(schemas.Owner).toEqual({
      description: 'kept outside',
      anyOf: [{ $ref: '#/components/schemas/Name' }, { type: 'null' }],
    });
    expect(schemas.Plain).toEqual({ type: 'integer' });
  });

  it('turns draft-4 forms into 2020-12: boolean exclusive bounds, example, items lists, dependencies', () => {
    const document = normaliseOpenApi(
      document30({
        Age: { type: 'integer', minimum: 0, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: false, example: 3 },
        Pair: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }], additionalItems: false },
        Card: { type: 'object', dependencies: { number: ['expiry'], billing: { required: ['address'] } } },
      }),
    );
    const schemas = document.components!.schemas!;
    expect(schemas.Age).toEqual({ type: 'integer', exclusiveMinimum: 0, maximum: 10, examples: [3] });
    expect(schemas.Pair).toEqual({
      type: 'array',
      prefixItems: [{ type: 'string' }, { type: 'integer' }],
      items: false,
    });
    expect(schemas.Card).toEqual({
      type: 'object',
      dependentRequired: { number: ['expiry'] },
      dependentSchemas: { billing: { required: ['address'] } },
    });
  });

  it('finds schemas by structure, leaving data alone: a property named example, examples holding nullable', () => {
    const document = normaliseOpenApi(
      document30(
        {
          Thing: {
            type: 'object',
            properties: { example: { type: 'string', nullable: true }, nullable: { type: 'boolean' } },
            example: { nullable: true, type: 'x' },
          },
        },
        {
          paths: {
            '/t': {
              get: {
                responses: {
                  '200': {
                    description: 'ok',
                    content: {
                      'application/json': {
                        schema: { type: 'string', nullable: true },
                        example: { type: 'string', nullable: true },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      ),
    );
    const thing = document.components!.schemas!.Thing as Record<string, any>;
    expect(thing.properties).toEqual({ example: { type: ['string', 'null'] }, nullable: { type: 'boolean' } });
    expect(thing.examples).toEqual([{ nullable: true, type: 'x' }]);
    const media = (document.paths as any)['/t'].get.responses['200'].content['application/json'];
    expect(media.schema).toEqual({ type: ['string', 'null'] });
    expect(media.example).toEqual({ type: 'string', nullable: true });
  });

  it('gives a document the compiler serves, and reads the 3.0 habit of nullable in a 3.1 document too', () => {
    const document = normaliseOpenApi({
      ...document30({ Pet: { type: 'object', properties: { tag: { type: 'string', nullable: true } } } }),
      openapi: '3.1.0',
    });
    const validator = compileSpecDefinition(document).validatorFor(
      compileSpecDefinition(document).componentSchemas.Pet!,
      'Pet',
    );
    expect(validator.safeParse({ tag: null }).success).toBe(true);
    expect(validator.safeParse({ tag: 1 }).success).toBe(false);
  });

  it("reads draft 2019-09's $recursiveRef under a $recursiveAnchor as a $ref to that component (OpenAI's filters)", () => {
    const document = normaliseOpenApi({
      ...document30({
        Comparison: { type: 'object', required: ['key'], properties: { key: { type: 'string' } } },
        Compound: {
          $recursiveAnchor: true,
          type: 'object',
          additionalProperties: false,
          properties: {
            filters: {
              type: 'array',
              items: { oneOf: [{ $ref: '#/components/schemas/Comparison' }, { $recursiveRef: '#' }] },
            },
          },
        },
      }),
      openapi: '3.1.0',
    });
    const compound = document.components!.schemas!.Compound as Record<string, any>;
    expect(compound.$recursiveAnchor).toBeUndefined();
    expect(compound.properties.filters.items.oneOf[1]).toEqual({ $ref: '#/components/schemas/Compound' });
    const definition = compileSpecDefinition(document);
    expect(definition.warnings.join(' ')).not.toContain('$recursive');
    const validator = definition.validatorFor(definition.componentSchemas.Compound!, 'Compound');
    // As an annotation, the second branch matched every value: a comparison matched both, and oneOf refused it.
    expect(validator.safeParse({ filters: [{ key: 'a' }, { filters: [{ key: 'b' }] }] }).success).toBe(true);
    expect(validator.safeParse({ filters: [{ filters: [{ nokey: 1 }] }] }).success).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from './openapi-types.js';
import { deepestSchema, maxSchemaDepth, refuseDeepSchemas } from './schema-depth.js';

const documentWith = (schemas: Record<string, unknown>): OpenApiDocument =>
  ({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {}, components: { schemas } }) as OpenApiDocument;

/** `levels` schemas, each holding the next by `wrap`. */
function nested(levels: number, wrap: (inner: unknown) => unknown): unknown {
  let schema: unknown = { type: 'string' };
  for (let level = 1; level < levels; level += 1) schema = wrap(schema);
  return schema;
}

/** Components A0 -> A1 -> ... -> A(links), each a bare reference to the next. */
function chain(links: number): Record<string, unknown> {
  const schemas: Record<string, unknown> = {};
  for (let index = 0; index < links; index += 1) schemas[`A${index}`] = { $ref: `#/components/schemas/A${index + 1}` };
  schemas[`A${links}`] = { type: 'string' };
  return schemas;
}

describe('deepestSchema: levels through subschemas and references', () => {
  it.each([
    ['properties', (inner: unknown) => ({ type: 'object', properties: { x: inner } })],
    ['items', (inner: unknown) => ({ type: 'array', items: inner })],
    ['allOf', (inner: unknown) => ({ allOf: [inner] })],
    ['oneOf', (inner: unknown) => ({ oneOf: [{ type: 'null' }, inner] })],
    ['additionalProperties', (inner: unknown) => ({ additionalProperties: inner })],
  ])('counts each level of %s', (_keyword, wrap) => {
    expect(deepestSchema(documentWith({ Deep: nested(37, wrap) }))).toEqual({
      pointer: '/components/schemas/Deep',
      depth: 37,
    });
  });

  it('counts each reference followed, and names the component a chain starts from', () => {
    expect(deepestSchema(documentWith(chain(40)))).toEqual({ pointer: '/components/schemas/A0', depth: 41 });
  });

  it('counts a recursive schema once round its cycle, and a shared one once', () => {
    const tree = {
      type: 'object',
      properties: { children: { type: 'array', items: { $ref: '#/components/schemas/Tree' } } },
    };
    const shared = { allOf: [{ $ref: '#/components/schemas/Tree' }, { $ref: '#/components/schemas/Tree' }] };
    // Tree, children, items ($ref), and Tree again: the cycle ends there.
    expect(deepestSchema(documentWith({ Tree: tree }))?.depth).toBe(3);
    expect(deepestSchema(documentWith({ Tree: tree, Forest: shared }))?.depth).toBe(5);
  });

  it('is undefined for a document without schemas', () => {
    expect(deepestSchema({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {} } as OpenApiDocument)).toBe(
      undefined,
    );
  });
});

describe('refuseDeepSchemas', () => {
  it('serves a schema at the limit', () => {
    expect(() => refuseDeepSchemas(documentWith(chain(maxSchemaDepth - 1)))).not.toThrow();
  });

  it.each([maxSchemaDepth, 320, 1_000, 5_000, 50_000])(
    'refuses a chain of %i references in one line naming its start and the limit',
    (links) => {
      expect(() => refuseDeepSchemas(documentWith(chain(links)))).toThrow(
        `Failed to compile spec: the schema at #/components/schemas/A0 nests more than ${maxSchemaDepth} levels deep (through $ref, properties, items, allOf and the like): no real API nests so deep, and the validator could not compile it; flatten the nesting`,
      );
    },
  );

  it('measures 100,000 levels of inline nesting without a stack overflow, stopping past the limit', () => {
    const document = documentWith({ Deep: nested(100_000, (inner) => ({ items: inner })) });
    expect(deepestSchema(document)).toEqual({ pointer: '/components/schemas/Deep', depth: maxSchemaDepth + 1 });
    expect(() => refuseDeepSchemas(document)).toThrow(
      /^Failed to compile spec: the schema at #\/components\/schemas\/Deep nests more than/,
    );
  });
});

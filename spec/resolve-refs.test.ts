import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from './openapi-types.js';
import { resolveRefs } from './resolve-refs.js';

const base = { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {} };

describe('resolveRefs', () => {
  it('replaces local references, keeping sibling keywords', () => {
    const document = {
      ...base,
      components: { schemas: { A: { type: 'string' }, B: { $ref: '#/components/schemas/A', description: 'b' } } },
    } as OpenApiDocument;
    expect(resolveRefs(document).components!.schemas!.B).toEqual({ type: 'string', description: 'b' });
  });

  it('shares what it resolved: every reference to one target is the same object', () => {
    const document = {
      ...base,
      components: {
        schemas: {
          A: { type: 'string' },
          B: { type: 'array', items: { $ref: '#/components/schemas/A' } },
          C: { $ref: '#/components/schemas/A' },
        },
      },
    } as OpenApiDocument;
    const schemas = resolveRefs(document).components!.schemas! as Record<string, { items?: unknown }>;
    expect(schemas.B!.items).toBe(schemas.A);
    expect(schemas.C).toBe(schemas.A);
  });

  it('resolves a recursive schema into a cycle', () => {
    const document = {
      ...base,
      components: {
        schemas: { Node: { type: 'object', properties: { next: { $ref: '#/components/schemas/Node' } } } },
      },
    } as OpenApiDocument;
    const node = resolveRefs(document).components!.schemas!.Node as { properties: { next: unknown } };
    expect(node.properties.next).toBe(node);
  });

  it('refuses external references and cycles of references alone with a clear message', () => {
    expect(() =>
      resolveRefs({ ...base, 'x-tooling': { $ref: 'http://elsewhere/schema.json' } } as OpenApiDocument),
    ).not.toThrow();
    expect(() =>
      resolveRefs({
        ...base,
        components: { schemas: { A: { $ref: 'http://elsewhere/schema.json' } } },
      } as OpenApiDocument),
    ).toThrow(/\$ref http:\/\/elsewhere\/schema.json at #\/components\/schemas\/A: external references/);
    expect(() =>
      resolveRefs({ ...base, components: { schemas: { A: { $ref: 'other.yaml#/Pet' } } } } as OpenApiDocument),
    ).toThrow(/other.yaml#\/Pet .*external references .* are refused/);
    expect(() =>
      resolveRefs({
        ...base,
        components: { schemas: { A: { $ref: '#/components/schemas/B' }, B: { $ref: '#/components/schemas/A' } } },
      } as OpenApiDocument),
    ).toThrow(/refers to itself/);
  });

  it('leaves a $ref inside example data alone', () => {
    const document = {
      ...base,
      components: { schemas: { A: { type: 'object', example: { $ref: 'not a reference' } } } },
    } as OpenApiDocument;
    expect((resolveRefs(document).components!.schemas!.A as { example: unknown }).example).toEqual({
      $ref: 'not a reference',
    });
  });

  it('resolves a referenced example even when it is named like a keyword ("default", "value")', () => {
    const document = {
      ...base,
      paths: {
        '/x': {
          get: {
            responses: {
              '200': {
                description: 'ok',
                content: {
                  'application/json': {
                    examples: {
                      default: { $ref: '#/components/examples/One' },
                      value: { $ref: '#/components/examples/One' },
                    },
                  },
                },
              },
            },
          },
        },
      },
      components: { examples: { One: { value: 1 } } },
    } as unknown as OpenApiDocument;
    const examples = resolveRefs(document).paths!['/x']!.get!.responses!['200']!.content!['application/json']!
      .examples! as Record<string, unknown>;
    expect(examples.default).toEqual({ value: 1 });
    expect(examples.value).toEqual({ value: 1 });
  });

  it('keeps a __proto__ key in a document as plain data', () => {
    const document = JSON.parse(
      '{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{},"y":{"__proto__":{"polluted":true}}}',
    ) as OpenApiDocument;
    const resolved = resolveRefs(document) as unknown as { y: object };
    expect(Object.hasOwn(resolved.y, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

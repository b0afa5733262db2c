import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from './openapi-types.js';
import { resolveRefs } from './resolve-refs.js';

const base = { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {} };

describe('resolveRefs', () => {
  it('replaces local references, keeping sibling keywords', () => {
    const document = { ...base, components: { schemas: { A: { type: 'string' }, B: { $ref: '#/components/schemas/A', description: 'b' } } } } as OpenApiDocument;
    expect(resolveRefs(document).components!.schemas!.B).toEqual({ type: 'string', description: 'b' });
  });

  it('refuses remote references and cycles with a clear message', () => {
    expect(() => resolveRefs({ ...base, x: { $ref: 'http://elsewhere/schema.json' } } as OpenApiDocument)).toThrow(/only local references/);
    expect(() => resolveRefs({ ...base, components: { schemas: { A: { $ref: '#/components/schemas/B' }, B: { $ref: '#/components/schemas/A' } } } } as OpenApiDocument)).toThrow(/refers to itself/);
  });

  it('keeps a __proto__ key in a document as plain data', () => {
    const document = JSON.parse('{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{},"x":{"__proto__":{"polluted":true}}}') as OpenApiDocument;
    const resolved = resolveRefs(document) as unknown as { x: object };
    expect(Object.hasOwn(resolved.x, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

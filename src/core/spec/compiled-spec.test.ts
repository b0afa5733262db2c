import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../../../spec/openapi-types.js';
import { specDocument } from '../../../test/support/core-test-app.js';
import { compileSpec } from './compiled-spec.js';

describe('compileSpec', () => {
  const spec = compileSpec(specDocument);

  it('reads the four operations of the interface with their security and statuses', () => {
    const summary = spec.operations.map((operation) => [
      operation.operationId,
      operation.method,
      operation.pathTemplate,
      operation.requiresAuth,
      [...operation.responses.keys()],
    ]);
    expect(summary).toEqual([
      ['listCategories', 'GET', '/categories', true, [200, 401, 429]],
      ['createCategory', 'POST', '/categories', true, [201, 400, 401, 429]],
      ['getPetById', 'GET', '/pets/{petId}', true, [200, 401, 429]],
      ['listStoreOrders', 'GET', '/store/orders', true, [200, 401, 429]],
    ]);
    expect(spec.basePath).toBe('/v1');
  });

  it("reads a category body's declared properties: all a created category keeps", () => {
    const create = spec.operations.find((operation) => operation.operationId === 'createCategory')!;
    expect(create.requestBody?.declaredProperties).toEqual(['name', 'description']);
  });

  it('reads deprecation and its placeholder dates', () => {
    const pet = spec.operations.find((operation) => operation.operationId === 'getPetById')!;
    expect(pet.deprecated).toBe(true);
    expect(pet.deprecation).toMatchObject({
      deprecatedAt: '2026-01-01T00:00:00Z',
      sunset: '2027-12-31T23:59:59Z',
      placeholder: true,
    });
  });

  it('declares the rate-limit headers on every response of every operation', () => {
    for (const operation of spec.operations) {
      for (const response of operation.responses.values()) {
        expect(response.headerNames, `${operation.operationId} ${response.status}`).toEqual(
          expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']),
        );
        if (response.status === 429) expect(response.headerNames).toContain('Retry-After');
      }
    }
  });

  it('says what is wrong with a document it cannot serve', () => {
    const broken = (change: (document: OpenApiDocument) => void) => {
      const document = structuredClone(specDocument);
      change(document);
      return () => compileSpec(document);
    };
    expect(
      broken((document) => {
        document.paths!['/categories']!.get!.responses = { '200': { $ref: '#/components/responses/Nope' } as never };
      }),
    ).toThrow(/Failed to resolve \$ref #\/components\/responses\/Nope/);
    expect(
      broken((document) => {
        document.paths!['/store/orders']!.get!.operationId = 'listCategories';
      }),
    ).toThrow(/operationId listCategories is used twice/);
    expect(
      broken((document) => {
        document.components!.schemas!.Loop = { $ref: '#/components/schemas/Loop' };
      }),
    ).toThrow(/refers to itself through references alone/);
    expect(
      broken((document) => {
        document.components!.schemas!.Pet = { $ref: 'pets.yaml#/Pet' };
      }),
    ).toThrow(/^Failed to resolve \$ref pets.yaml#\/Pet at #\/components\/schemas\/Pet: external references/);
    expect(
      broken((document) => {
        (document.components!.schemas!.NewCategory as { properties: Record<string, unknown> }).properties.name = {
          type: 'string',
          nullable: true,
        };
      }),
    ).toThrow(/keyword "nullable" is not supported .* at #\/components\/schemas\/NewCategory\/properties\/name$/);
  });

  it('serves a recursive schema (legal in OpenAPI 3.1)', () => {
    const document = structuredClone(specDocument);
    document.components!.schemas!.Category = {
      type: 'object',
      required: ['id', 'name'],
      properties: {
        id: { type: 'integer' },
        name: { type: 'string' },
        parent: { $ref: '#/components/schemas/Category' },
      },
    };
    const compiled = compileSpec(document);
    const create = compiled.operations.find((operation) => operation.operationId === 'createCategory')!;
    const list = create.responses.get(201)!.schema as { properties: { parent: unknown } };
    expect(list.properties.parent).toBe(list);
  });
});

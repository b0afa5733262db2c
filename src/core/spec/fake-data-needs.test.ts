import { describe, expect, it } from 'vitest';
import { readSpecFile } from '../../../spec/load-spec.js';
import type { OpenApiDocument } from '../../../spec/openapi-types.js';
import { compileSpec } from './compiled-spec.js';
import { specDrawsFakeData } from './fake-data-needs.js';

const petstore = await readSpecFile();

/** A one-operation document whose 200 answer is `response`. */
function withResponse(response: Record<string, unknown>): OpenApiDocument {
  return {
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: { '/things': { get: { operationId: 'listThings', responses: { '200': response } } } },
  } as OpenApiDocument;
}

describe('specDrawsFakeData', () => {
  it('is false for the kit spec: every answer has an example, the required headers are the rate limiter’s', () => {
    expect(specDrawsFakeData(compileSpec(petstore))).toBe(false);
  });

  it('is true for a body with a schema and no example, or only an example its schema refuses', () => {
    const schema = { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } };
    expect(
      specDrawsFakeData(compileSpec(withResponse({ description: 'ok', content: { 'application/json': { schema } } }))),
    ).toBe(true);
    expect(
      specDrawsFakeData(
        compileSpec(
          withResponse({ description: 'ok', content: { 'application/json': { schema, example: { id: 'one' } } } }),
        ),
      ),
    ).toBe(true);
    expect(
      specDrawsFakeData(
        compileSpec(
          withResponse({ description: 'ok', content: { 'application/json': { schema, example: { id: 1 } } } }),
        ),
      ),
    ).toBe(false);
  });

  it('is true for a required header of the success answer with a schema and no example, not for the rate-limit ones', () => {
    const header = (name: string) =>
      withResponse({ description: 'ok', headers: { [name]: { required: true, schema: { type: 'string' } } } });
    expect(specDrawsFakeData(compileSpec(header('X-Request-Id')))).toBe(true);
    expect(specDrawsFakeData(compileSpec(header('X-RateLimit-Remaining')))).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { GenericRequestBuilder, genericOperations } from '../../contract-tests/lib/generic-requests.js';
import { compileSpecDefinition } from '../../spec/compile-spec.js';
import { createDataGenerator } from '../../spec/data-generator.js';
import { parseSpecText } from '../../spec/load-spec.js';
import { replayAgainstMockApp } from '../../src/cli/replay-command.js';
import { parseMockConfig } from '../../src/core/config/mock-config.js';
import type { CompiledOperation } from '../../src/core/spec/compiled-spec.js';
import { createRouter } from '../../src/core/spec/router.js';
import { fastestSync } from '../support/fastest-run.js';

// Red team of issue 42's query path keys (`/responses?beta=true`): a hostile document with thousands
// of keys on one path, or keys with long queries, must not make a request cost keys x query pairs.

const keyed = (method: string, key: string): CompiledOperation =>
  ({
    method,
    pathTemplate: key,
    operationId: `${method} ${key}`,
    parameters: [],
    parameterNames: [...(key.split('?')[0] ?? '').matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!),
  }) as unknown as CompiledOperation;

const idOf = (route: ReturnType<typeof createRouter>, path: string, query: string) => {
  const match = route('GET', path, query);
  return match.kind === 'operation' ? match.operation.operationId : match.kind;
};

describe('query path keys under hostile documents and requests', () => {
  // Linear: a few ms; keys x pairs (2,000 x 8,000, or one key of 4,000 against 12,000) took ~250 ms.
  const budgetMs = 60;

  it('routes among 2,000 keys of one path with a query of 8,000 pairs in linear time', () => {
    const route = createRouter([
      keyed('GET', '/m'),
      ...Array.from({ length: 2000 }, (_, index) => keyed('GET', `/m?k${index}=1`)),
    ]);
    // 16 KiB of request head: about 8,000 pairs, none of them a key's.
    const query = Array.from({ length: 8000 }, () => 'z').join('&');
    expect(idOf(route, '/m', query)).toBe('GET /m');
    expect(idOf(route, '/m', `${query}&k1999=1`)).toBe('GET /m?k1999=1');
    const elapsed = fastestSync(2, () => route('GET', '/m', query));
    expect(elapsed, `one route took ${elapsed.toFixed(1)} ms`).toBeLessThan(budgetMs);
  });

  it('checks a key of 4,000 pairs against a query of 8,000 in linear time', () => {
    const condition = Array.from({ length: 4000 }, (_, index) => `c${index}`).join('&');
    const route = createRouter([keyed('GET', '/m'), keyed('GET', `/m?${condition}`)]);
    const query = `${Array.from({ length: 8000 }, () => 'z').join('&')}&${condition}`;
    expect(idOf(route, '/m', query)).toBe(`GET /m?${condition}`);
    const elapsed = fastestSync(2, () => route('GET', '/m', query));
    expect(elapsed, `one route took ${elapsed.toFixed(1)} ms`).toBeLessThan(budgetMs);
  });
});

/** The kit's view of one operation under the key `/search?q={q}`, whose q is a required integer. */
function templatedKeyOperation() {
  const document = `openapi: 3.1.0
info: {title: Templated key query, version: '1'}
paths:
  /search?q={q}:
    get:
      operationId: search
      parameters: [{name: q, in: query, required: true, schema: {type: integer}, example: 7}]
      responses: {'200': {description: ok}}
`;
  return genericOperations(compileSpecDefinition(parseSpecText(document)))[0]!;
}

describe('a path key whose query names a parameter (`/search?q={q}`, as some generators write it)', () => {
  it('routes any value of the named parameter to the key, not only the text {q}', () => {
    const route = createRouter([keyed('GET', '/search?q={q}'), keyed('GET', '/items/{id}?view={view}&beta=true')]);
    expect(idOf(route, '/search', 'q=cats')).toBe('GET /search?q={q}');
    expect(idOf(route, '/search', 'q=')).toBe('GET /search?q={q}');
    expect(idOf(route, '/search', '')).toBe('not-found');
    expect(idOf(route, '/items/7', 'view=full&beta=true')).toBe('GET /items/{id}?view={view}&beta=true');
    expect(idOf(route, '/items/7', 'view=full')).toBe('not-found');
  });

  it('has the kit fill the parameter in the key rather than send the text {q} beside it', () => {
    const operation = templatedKeyOperation();
    const request = new GenericRequestBuilder(operation, createDataGenerator(1)).valid({ kind: 'none' });
    expect(request.path).toBe('/search?q=7');
  });
});

describe('the kit on a key that names its query parameter', () => {
  it('never sends a required one absent to that key (the URL would be another operation)', () => {
    const operation = templatedKeyOperation();
    const cases = new GenericRequestBuilder(operation, createDataGenerator(1)).invalid('key', 100);
    expect(cases.map((entry) => entry.label)).not.toContain('query parameter q: absent (required)');
    const wrong = cases.find((entry) => entry.label.startsWith('query parameter q:'));
    expect(wrong?.request.path).toMatch(/^\/search\?q=[^{&]*$/);
  });
});

describe('a replay of requests to query path keys', () => {
  it('counts each request for the operation the mock answered, its query included', async () => {
    const document = `openapi: 3.1.0
info: {title: Replayed query keys, version: '1'}
paths:
  /items:
    get: {operationId: plainItems, responses: {'200': {description: ok}}}
  /items?beta=true:
    get: {operationId: betaItems, responses: {'200': {description: ok}}}
  /preview?channel=early:
    get: {operationId: preview, responses: {'200': {description: ok}}}
`;
    const recorded = (index: number, url: string) => ({
      atMs: Date.UTC(2026, 0, 1) + index * 1000,
      method: 'GET',
      url,
      headers: {},
      body: null,
      client: 'anonymous recorded-client',
      kind: 'anonymous' as const,
      plan: 'anonymous',
      limits: null,
      key: null,
      clientAddress: '203.0.113.7',
    });
    const requests = [recorded(0, '/items'), recorded(1, '/items?beta=true'), recorded(2, '/preview?channel=early')];
    const result = await replayAgainstMockApp(
      requests as unknown as Parameters<typeof replayAgainstMockApp>[0],
      parseMockConfig({}),
      parseSpecText(document),
    );
    const counted = result.report.coverage.operations.map((entry) => [entry.operationId, entry.statuses]);
    expect(counted).toEqual([
      ['betaItems', [{ status: 200, organic: 1, forced: 0 }]],
      ['plainItems', [{ status: 200, organic: 1, forced: 0 }]],
      ['preview', [{ status: 200, organic: 1, forced: 0 }]],
    ]);
  });
});

describe('a literal path that only a query key names', () => {
  // OpenAI: `POST /responses/compact?beta=true` beside `GET|DELETE|POST /responses/{id}`.
  const route = createRouter([
    keyed('GET', '/responses/{id}'),
    keyed('DELETE', '/responses/{id}'),
    keyed('POST', '/responses/compact?beta=true'),
  ]);

  it('leaves the other methods of the URL to the template that has them', () => {
    expect(idOf(route, '/responses/compact', '')).toBe('GET /responses/{id}');
    expect(route('DELETE', '/responses/compact', 'beta=true')).toMatchObject({
      kind: 'operation',
      pathParams: { id: 'compact' },
    });
    expect(route('POST', '/responses/compact', 'beta=true')).toMatchObject({ kind: 'operation' });
  });

  it('answers 405 with the methods of both for a method neither has', () => {
    expect(route('PUT', '/responses/compact', '')).toEqual({ kind: 'method-not-allowed', allow: ['POST'] });
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CompiledOperation } from './compiled-spec.js';
import { createRouter } from './router.js';

const operation = (method: string, pathTemplate: string): CompiledOperation =>
  ({
    operationId: `${method} ${pathTemplate}`,
    method,
    pathTemplate,
    parameterNames: [...pathTemplate.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!),
  }) as CompiledOperation;

const operations = [
  operation('GET', '/categories'),
  operation('POST', '/categories'),
  operation('GET', '/pets/{petId}'),
  operation('DELETE', '/pets/{petId}'),
  operation('GET', '/pets/mine'),
  operation('GET', '/pets/{petId}/toys/{toyId}'),
  operation('PUT', '/pets/{id}/toys/{toyId}'),
  operation('GET', '/files/{name}.json'),
  operation('GET', '/a/{x}/c'),
  operation('GET', '/a/b/{y}'),
];
const route = createRouter(operations);
const matched = (method: string, path: string) => {
  const match = route(method, path);
  return match.kind === 'operation' ? [match.operation.operationId, match.pathParams] : match;
};

describe('createRouter', () => {
  it('matches literal and templated paths, decoding parameters', () => {
    expect(matched('GET', '/categories')).toEqual(['GET /categories', {}]);
    expect(matched('GET', '/pets/7')).toEqual(['GET /pets/{petId}', { petId: '7' }]);
    expect(matched('GET', '/pets/a%20b')).toEqual(['GET /pets/{petId}', { petId: 'a b' }]);
    expect(matched('GET', '/pets/%E0%A4%A')).toEqual(['GET /pets/{petId}', { petId: '%E0%A4%A' }]);
    expect(matched('GET', '/pets/7/toys/9')).toEqual(['GET /pets/{petId}/toys/{toyId}', { petId: '7', toyId: '9' }]);
    expect(matched('GET', '/files/report.json')).toEqual(['GET /files/{name}.json', { name: 'report' }]);
  });

  it('prefers a literal path to a template, and of two templates the more specific one that has the method', () => {
    expect(matched('GET', '/pets/mine')).toEqual(['GET /pets/mine', {}]);
    expect(matched('DELETE', '/pets/mine')).toEqual({ kind: 'method-not-allowed', allow: ['GET', 'HEAD'] });
    // A literal segment wins over a parameter from the left, as routers read paths.
    expect(matched('GET', '/a/b/c')).toEqual(['GET /a/b/{y}', { y: 'c' }]);
    expect(matched('GET', '/a/z/c')).toEqual(['GET /a/{x}/c', { x: 'z' }]);
    // Same shape, two spellings: the one with the method answers; else the first one's methods are the path's.
    expect(matched('PUT', '/pets/1/toys/2')).toEqual(['PUT /pets/{id}/toys/{toyId}', { id: '1', toyId: '2' }]);
    expect(matched('PATCH', '/pets/1/toys/2')).toEqual({ kind: 'method-not-allowed', allow: ['GET', 'HEAD'] });
  });

  it('finds the template that has the method when a less specific one matches too', () => {
    const route = createRouter([operation('POST', '/media/{id}/{status}'), operation('GET', '/media/{id}/watch_data')]);
    expect(route('GET', '/media/7/watch_data')).toMatchObject({
      kind: 'operation',
      operation: { operationId: 'GET /media/{id}/watch_data' },
    });
    expect(route('POST', '/media/7/watch_data')).toMatchObject({
      kind: 'operation',
      operation: { operationId: 'POST /media/{id}/{status}' },
    });
    expect(route('DELETE', '/media/7/watch_data')).toEqual({ kind: 'method-not-allowed', allow: ['GET', 'HEAD'] });
  });

  it('routes HEAD to the GET operation where the path has GET and no HEAD of its own (RFC 9110 §9.3.2)', () => {
    expect(matched('HEAD', '/categories')).toEqual(['GET /categories', {}]);
    expect(matched('HEAD', '/pets/7/toys/9')).toEqual(['GET /pets/{petId}/toys/{toyId}', { petId: '7', toyId: '9' }]);
    expect(matched('HEAD', '/pets/mine')).toEqual(['GET /pets/mine', {}]);
    expect(matched('HEAD', '/files/report.xml')).toEqual({ kind: 'not-found' });
    // A path with no GET has no HEAD either: 405, and its Allow names neither.
    const postOnly = createRouter([operation('POST', '/uploads'), operation('DELETE', '/uploads/{id}')]);
    expect(postOnly('HEAD', '/uploads')).toEqual({ kind: 'method-not-allowed', allow: ['POST'] });
    expect(postOnly('HEAD', '/uploads/1')).toEqual({ kind: 'method-not-allowed', allow: ['DELETE'] });
    // A document's own HEAD operation answers HEAD, in place of its GET.
    const ownHead = createRouter([operation('GET', '/files/{id}'), operation('HEAD', '/files/{id}')]);
    expect(ownHead('HEAD', '/files/3')).toMatchObject({ operation: { operationId: 'HEAD /files/{id}' } });
    expect(ownHead('PUT', '/files/3')).toEqual({ kind: 'method-not-allowed', allow: ['GET', 'HEAD'] });
  });

  it('answers 405 with the allowed methods, sorted, and 404 for unknown paths', () => {
    expect(matched('PATCH', '/categories')).toEqual({ kind: 'method-not-allowed', allow: ['GET', 'HEAD', 'POST'] });
    expect(matched('POST', '/pets/7')).toEqual({ kind: 'method-not-allowed', allow: ['DELETE', 'GET', 'HEAD'] });
    expect(matched('GET', '/pets')).toEqual({ kind: 'not-found' });
    expect(matched('GET', '/pets/7/toys')).toEqual({ kind: 'not-found' });
    expect(matched('GET', '/pets//toys/9')).toEqual({ kind: 'not-found' });
    expect(matched('GET', '/files/report.xml')).toEqual({ kind: 'not-found' });
    expect(matched('GET', '/categories/extra')).toEqual({ kind: 'not-found' });
  });

  it('gives a repeated request the same answer as a first one, whatever came before', () => {
    const methods = ['GET', 'POST', 'DELETE', 'PUT', 'PATCH'];
    const paths = [
      '/categories',
      '/pets/7',
      '/pets/8',
      '/pets/mine',
      '/pets/7/toys/9',
      '/files/a.json',
      '/a/b/c',
      '/a/b/d',
      '/pets',
      '/nowhere',
    ];
    // Paths built at run time, as requests bring them: equal text, never the same string object.
    const request = fc.tuple(
      fc.constantFrom(...methods),
      fc.constantFrom(...paths).map((path) => [...path].join('')),
    );
    fc.assert(
      fc.property(fc.array(request, { minLength: 1, maxLength: 30 }), (requests) => {
        const cached = createRouter(operations);
        for (const [method, path] of requests) {
          const answer = cached(method, path);
          expect(answer).toEqual(createRouter(operations)(method, path));
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('path keys with a query of their own (OpenAI: /responses?beta=true)', () => {
  const keyed = (method: string, key: string): CompiledOperation =>
    ({ ...operation(method, key), parameters: [] }) as unknown as CompiledOperation;
  const route = createRouter([
    keyed('POST', '/responses'),
    keyed('POST', '/responses?beta=true'),
    keyed('GET', '/responses/{id}'),
    keyed('GET', '/responses/{id}?beta=true'),
    keyed('POST', '/responses/compact?beta=true'),
    keyed('POST', '/responses/{id}'),
    keyed('GET', '/only?preview'),
    keyed('GET', '/search?kind=a+b'),
    keyed('GET', '/search?kind=a+b&deep=1'),
  ]);
  const chosen = (method: string, path: string, query?: string) => {
    const match = route(method, path, query);
    return match.kind === 'operation' ? [match.operation.operationId, match.pathParams] : match;
  };

  it('routes a request that carries the key query to the key, and one without it to the plain twin', () => {
    expect(chosen('POST', '/responses', 'beta=true')).toEqual(['POST /responses?beta=true', {}]);
    expect(chosen('POST', '/responses', 'stream=1&beta=true')).toEqual(['POST /responses?beta=true', {}]);
    expect(chosen('POST', '/responses')).toEqual(['POST /responses', {}]);
    expect(chosen('POST', '/responses', 'beta=false')).toEqual(['POST /responses', {}]);
    expect(chosen('GET', '/responses/r1', 'beta=true')).toEqual(['GET /responses/{id}?beta=true', { id: 'r1' }]);
    expect(chosen('GET', '/responses/r1')).toEqual(['GET /responses/{id}', { id: 'r1' }]);
    // HEAD chooses among GET's keys as GET does.
    expect(chosen('HEAD', '/responses/r1', 'beta=true')).toEqual(['GET /responses/{id}?beta=true', { id: 'r1' }]);
    expect(chosen('HEAD', '/responses/r1')).toEqual(['GET /responses/{id}', { id: 'r1' }]);
  });

  it('routes a key with no plain twin only when its query holds, else what the path alone matches', () => {
    expect(chosen('POST', '/responses/compact', 'beta=true')).toEqual(['POST /responses/compact?beta=true', {}]);
    // Without beta=true, /responses/compact is a response id.
    expect(chosen('POST', '/responses/compact')).toEqual(['POST /responses/{id}', { id: 'compact' }]);
    expect(chosen('GET', '/only', 'preview=')).toEqual(['GET /only?preview', {}]);
    expect(chosen('GET', '/only', 'preview=yes')).toEqual(['GET /only?preview', {}]);
    expect(chosen('GET', '/only')).toEqual({ kind: 'not-found' });
    expect(chosen('DELETE', '/only', 'preview')).toEqual({ kind: 'method-not-allowed', allow: ['GET', 'HEAD'] });
  });

  it('reads the key query as a query is read, and prefers the key that asks most of it', () => {
    expect(chosen('GET', '/search', 'kind=a%20b')).toEqual(['GET /search?kind=a+b', {}]);
    expect(chosen('GET', '/search', 'deep=1&kind=a+b')).toEqual(['GET /search?kind=a+b&deep=1', {}]);
    expect(chosen('GET', '/search', 'kind=a')).toEqual({ kind: 'not-found' });
  });

  it('routes to the key exactly when the request carries every pair of its query, whatever else it carries', () => {
    const name = fc.stringMatching(/^[a-z]{1,6}$/);
    const pairs = fc.uniqueArray(fc.tuple(name, name), { minLength: 1, maxLength: 4, selector: ([key]) => key });
    fc.assert(
      fc.property(pairs, fc.array(fc.tuple(name, name), { maxLength: 3 }), fc.nat(), (condition, others, drop) => {
        const key = condition.map(([key, value]) => `${key}=${value}`).join('&');
        const route = createRouter([keyed('GET', '/x'), keyed('GET', `/x?${key}`)]);
        const extra = others.filter(([other]) => !condition.some(([key]) => key === other));
        const full = new URLSearchParams([...extra, ...condition]).toString();
        const lacking = new URLSearchParams([
          ...extra,
          ...condition.filter((_, index) => index !== drop % condition.length),
        ]);
        const idOf = (query: string) => {
          const match = route('GET', '/x', query);
          return match.kind === 'operation' ? match.operation.operationId : match.kind;
        };
        expect(idOf(full)).toBe(`GET /x?${key}`);
        expect(idOf(lacking.toString())).toBe('GET /x');
      }),
    );
  });
});

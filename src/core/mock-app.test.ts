import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../../spec/openapi-types.js';
import { call, createTestApp, request, specDocument, testEpochMs } from './test-helpers.js';

const epochSeconds = testEpochMs / 1000;

function expectError(response: Awaited<ReturnType<typeof call>>, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers['Content-Type']).toBe('application/json');
  expect(response.json).toEqual({ code, message: expect.any(String), status });
}

function expectRateHeaders(response: Awaited<ReturnType<typeof call>>) {
  for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) expect(response.headers[name], name).toMatch(/^\d+$/);
}

function cloneSpec(): OpenApiDocument {
  return structuredClone(specDocument);
}

describe('authentication (interface §5)', () => {
  const app = createTestApp();

  it.each([
    ['no Authorization header', {}, /Missing API key/],
    ['another scheme', { authorization: 'Basic ZGVtbzpmcmVl' }, /Unsupported authorization scheme Basic/],
    ['a scheme without a token', { authorization: 'Bearer' }, /Malformed/],
    ['a token with spaces', { authorization: 'Bearer demo free' }, /Malformed/],
    ['an unknown key', { authorization: 'Bearer sk_nope' }, /Invalid API key/],
  ])('answers 401 with an Error for %s, on every operation', async (_, headers, message) => {
    for (const [method, url] of [['GET', '/v1/categories'], ['POST', '/v1/categories'], ['GET', '/v1/pets/1'], ['GET', '/v1/store/orders']] as const) {
      const response = (await call(app, method, url, { headers, json: method === 'POST' ? { name: 'x' } : undefined }));
      expectError(response, 401, 'unauthorized');
      expect(response.json.message).toMatch(message);
      expectRateHeaders(response);
    }
  });

  it('accepts the scheme word in any case', async () => {
    expect((await call(app, 'GET', '/v1/categories', { headers: { authorization: 'bearer demo-pro' } })).status).toBe(200);
    expect((await call(app, 'GET', '/v1/categories', { headers: { authorization: 'BEARER demo-pro' } })).status).toBe(200);
  });

  it('counts requests without a valid key against the anonymous budget of the client', async () => {
    const local = createTestApp({ config: { anonymous: { perMinute: 2, perDay: 100 } } });
    expect((await call(local, 'GET', '/v1/categories', { clientAddress: '127.0.0.2' })).headers['X-RateLimit-Remaining']).toBe('1');
    (await call(local, 'GET', '/v1/categories', { key: 'wrong', clientAddress: '127.0.0.2' }));
    expectError((await call(local, 'GET', '/v1/categories', { clientAddress: '127.0.0.2' })), 429, 'rate_limited');
    expect((await call(local, 'GET', '/v1/categories', { clientAddress: '127.0.0.3' })).status).toBe(401);
  });
});

describe('createCategory (interface §4)', () => {
  it('answers 201 with the category, an integer id, a Location, and lists it afterwards', async () => {
    const app = createTestApp({ initialCategories: [] });
    const created = (await call(app, 'POST', '/v1/categories', { key: 'demo-free', json: { name: 'dog', description: 'Good boys' } }));
    expect(created.status).toBe(201);
    expect(created.json).toEqual({ id: 1, name: 'dog', description: 'Good boys' });
    expect(created.headers.Location).toBe('/v1/categories/1');
    const second = (await call(app, 'POST', '/v1/categories', { key: 'demo-free', json: { name: 'cat' } }));
    expect(second.json).toEqual({ id: 2, name: 'cat' });
    expect((await call(app, 'GET', '/v1/categories', { key: 'demo-free' })).json).toEqual([created.json, second.json]);
  });

  it('stores only the fields the spec declares', async () => {
    const app = createTestApp({ initialCategories: [] });
    const created = (await call(app, 'POST', '/v1/categories', { key: 'demo-free', body: '{"name":"x","id":99,"admin":true,"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}', headers: { 'content-type': 'application/json' } }));
    expect(created.json).toEqual({ id: 1, name: 'x' });
    expect(Object.getPrototypeOf(created.json)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  const bad: [string, { body?: string | Uint8Array; json?: unknown; headers?: Record<string, string> }, string, RegExp][] = [
    ['no body', { headers: { 'content-type': 'application/json' } }, 'body_required', /body is required/],
    ['an empty body', { body: '', headers: { 'content-type': 'application/json' } }, 'body_required', /body is required/],
    ['a blank body', { body: '  \n', headers: { 'content-type': 'application/json' } }, 'body_required', /blank/],
    ['malformed JSON', { body: '{"name": "dog"', headers: { 'content-type': 'application/json' } }, 'malformed_json', /malformed JSON/],
    ['invalid UTF-8', { body: new Uint8Array([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), headers: { 'content-type': 'application/json' } }, 'malformed_json', /UTF-8/],
    ['a JSON array', { json: [{ name: 'dog' }] }, 'validation_failed', /must be a JSON object, got an array/],
    ['a JSON string', { json: 'dog' }, 'validation_failed', /must be a JSON object, got string/],
    ['JSON null', { body: 'null', headers: { 'content-type': 'application/json' } }, 'validation_failed', /got null/],
    ['no name', { json: { description: 'x' } }, 'validation_failed', /name is required/],
    ['a null name', { json: { name: null } }, 'validation_failed', /name: expected string, received null/],
    ['a numeric name', { json: { name: 5 } }, 'validation_failed', /name: expected string, received number/],
    ['a non-string description', { json: { name: 'dog', description: ['x'] } }, 'validation_failed', /description: expected string/],
    ['deeply nested JSON', { body: `{"name":"x","description":${'['.repeat(200_000)}${']'.repeat(200_000)}}`, headers: { 'content-type': 'application/json' } }, 'validation_failed', /description/],
  ];
  it.each(bad)('answers 400 with an Error naming the problem for %s', async (_, options, code, message) => {
    const app = createTestApp();
    const response = (await call(app, 'POST', '/v1/categories', { key: 'demo-free', ...options }));
    expectError(response, 400, code);
    expect(response.json.message).toMatch(message);
    expectRateHeaders(response);
    expect((await app.controls.categories())).toHaveLength(3);
  });

  it.each([
    ['text/plain', 'text/plain;charset=UTF-8'],
    ['form data', 'application/x-www-form-urlencoded'],
    ['JSON in another charset', 'application/json; charset=iso-8859-1'],
  ])('answers 415 for %s', async (_, contentType) => {
    const response = (await call(createTestApp(), 'POST', '/v1/categories', { key: 'demo-free', body: '{"name":"dog"}', headers: { 'content-type': contentType } }));
    expectError(response, 415, 'unsupported_media_type');
  });

  it('answers 415 for a body without Content-Type', async () => {
    expectError((await call(createTestApp(), 'POST', '/v1/categories', { key: 'demo-free', body: '{"name":"dog"}' })), 415, 'unsupported_media_type');
  });

  it('accepts JSON with a UTF-8 charset and +json types', async () => {
    const app = createTestApp();
    expect((await call(app, 'POST', '/v1/categories', { key: 'demo-free', body: '{"name":"ü"}', headers: { 'content-type': 'application/json; charset=UTF-8' } })).status).toBe(201);
    expect((await call(app, 'POST', '/v1/categories', { key: 'demo-free', body: '{"name":"y"}', headers: { 'content-type': 'application/vnd.petstore+json' } })).status).toBe(201);
  });

  it('answers 413 when the transport refused an oversized body', async () => {
    const response = (await createTestApp().handle({ ...request('POST', '/v1/categories', { key: 'demo-free' }), bodyTooLarge: true }));
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body!)).toMatchObject({ code: 'payload_too_large', status: 413 });
    expect(response.headers['X-RateLimit-Remaining']).toBe('59');
  });
});

describe('listCategories and seeded data', () => {
  it('seeds categories with faker, the same for the same seed', async () => {
    const first = (await call(createTestApp({ seed: 7 }), 'GET', '/v1/categories', { key: 'demo-free' })).json;
    const again = (await call(createTestApp({ seed: 7 }), 'GET', '/v1/categories', { key: 'demo-free' })).json;
    const other = (await call(createTestApp({ seed: 8 }), 'GET', '/v1/categories', { key: 'demo-free' })).json;
    expect(first).toEqual(again);
    expect(first).not.toEqual(other);
    expect(first).toHaveLength(3);
    for (const category of first) expect(category).toEqual({ id: expect.any(Number), name: expect.any(String), description: expect.any(String) });
  });
});

describe('rate limits (interface §8)', () => {
  it('puts X-RateLimit-* on every kind of response', async () => {
    const app = createTestApp();
    const responses = [
      (await call(app, 'GET', '/v1/categories', { key: 'demo-pro' })),
      (await call(app, 'POST', '/v1/categories', { key: 'demo-pro', json: { name: 'x' } })),
      (await call(app, 'POST', '/v1/categories', { key: 'demo-pro', json: {} })),
      (await call(app, 'GET', '/v1/categories', { key: 'nope' })),
      (await call(app, 'GET', '/v1/nothing', { key: 'demo-pro' })),
      (await call(app, 'DELETE', '/v1/categories', { key: 'demo-pro' })),
      (await call(app, 'POST', '/v1/categories', { key: 'demo-pro', body: 'x', headers: { 'content-type': 'text/plain' } })),
      (await call(app, 'GET', '/v1/categories', { key: 'demo-pro', headers: { prefer: 'code=429' } })),
      (await call(app, 'GET', '/elsewhere')),
    ];
    expect(responses.map((response) => response.status)).toEqual([200, 201, 400, 401, 404, 405, 415, 429, 404]);
    responses.forEach(expectRateHeaders);
  });

  it('allows the Free plan 60 requests a minute, then 429 with Retry-After and Remaining 0', async () => {
    const app = createTestApp({ config: { ban: { enabled: false } } });
    const remaining: number[] = [];
    for (let index = 0; index < 60; index += 1) remaining.push(Number((await call(app, 'GET', '/v1/categories', { key: 'demo-free' })).headers['X-RateLimit-Remaining']));
    expect(remaining).toEqual(Array.from({ length: 60 }, (_, index) => 59 - index));
    const limited = (await call(app, 'GET', '/v1/categories', { key: 'demo-free' }));
    expectError(limited, 429, 'rate_limited');
    expect(limited.headers).toMatchObject({ 'Retry-After': '60', 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': String(epochSeconds + 60) });
    (await app.controls.advanceClock(30));
    expect((await call(app, 'GET', '/v1/categories', { key: 'demo-free' })).headers['Retry-After']).toBe('30');
    (await app.controls.advanceClock(30));
    expect((await call(app, 'GET', '/v1/categories', { key: 'demo-free' }))).toMatchObject({ status: 200, headers: { 'X-RateLimit-Remaining': '59' } });
  });

  it('enforces the daily limit of the plan and reports it when it is the tighter window', async () => {
    const app = createTestApp({ config: { ban: { enabled: false } } });
    for (let minute = 0; minute < 17; minute += 1) {
      for (let index = 0; index < 60; index += 1) if (minute * 60 + index < 1000) (await call(app, 'GET', '/v1/categories', { key: 'demo-free' }));
      (await app.controls.advanceClock(60));
    }
    const limited = (await call(app, 'GET', '/v1/categories', { key: 'demo-free' }));
    expectError(limited, 429, 'rate_limited');
    expect(limited.headers).toMatchObject({ 'X-RateLimit-Limit': '1000', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': String(epochSeconds + 86_400), 'Retry-After': String(86_400 - 17 * 60) });
  });

  it.each([
    ['demo-pro', 300],
    ['demo-business', 1000],
  ])('gives %s its plan limit of %i a minute', async (key, limit) => {
    const app = createTestApp();
    expect((await call(app, 'GET', '/v1/categories', { key })).headers['X-RateLimit-Limit']).toBe(String(limit));
  });

  it('bans a key that keeps sending after a 429, never serving it a 2xx, and lifts the ban after its duration', async () => {
    const app = createTestApp({ config: { keys: [{ key: 'tiny', limits: { perMinute: 1, perDay: 100 } }], ban: { threshold: 3, durationSeconds: 600 } } });
    expect((await call(app, 'GET', '/v1/categories', { key: 'tiny' })).status).toBe(200);
    expect([(await call(app, 'GET', '/v1/categories', { key: 'tiny' })).json.code, (await call(app, 'GET', '/v1/categories', { key: 'tiny' })).json.code, (await call(app, 'GET', '/v1/categories', { key: 'tiny' })).json.code]).toEqual(['rate_limited', 'rate_limited', 'rate_limited']);
    const banned = (await call(app, 'GET', '/v1/categories', { key: 'tiny' }));
    expectError(banned, 429, 'key_banned');
    expect(banned.headers).toMatchObject({ 'Retry-After': '600', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': String(epochSeconds + 600) });
    (await app.controls.advanceClock(120));
    expect((await call(app, 'GET', '/v1/categories', { key: 'tiny', headers: { prefer: 'code=200' } })).json.code).toBe('key_banned');
    expect((await call(app, 'POST', '/v1/categories', { key: 'tiny', json: { name: 'x' } })).status).toBe(429);
    (await app.controls.advanceClock(480));
    expect((await call(app, 'GET', '/v1/categories', { key: 'tiny' })).status).toBe(200);
  });

  it('keeps a ban however many anonymous clients come and go', async () => {
    const app = createTestApp({ config: { keys: [{ key: 'tiny', limits: { perMinute: 1, perDay: 100 } }], ban: { threshold: 1 }, maxTrackedClients: 10 } });
    (await call(app, 'GET', '/v1/categories', { key: 'tiny' }));
    (await call(app, 'GET', '/v1/categories', { key: 'tiny' }));
    expect((await call(app, 'GET', '/v1/categories', { key: 'tiny' })).json.code).toBe('key_banned');
    for (let index = 0; index < 100; index += 1) (await call(app, 'GET', '/v1/categories', { clientAddress: `192.0.2.${index}` }));
    expect((await call(app, 'GET', '/v1/categories', { key: 'tiny' })).json.code).toBe('key_banned');
  });
});

describe('routing', () => {
  const app = createTestApp();

  it('answers 404 for unknown paths inside and outside the API', async () => {
    expectError((await call(app, 'GET', '/v1/dogs', { key: 'demo-pro' })), 404, 'not_found');
    const outside = (await call(app, 'GET', '/categories', { key: 'demo-pro' }));
    expectError(outside, 404, 'not_found');
    expect(outside.json.message).toMatch(/served under \/v1/);
  });

  it('answers 405 with Allow for a known path and another method', async () => {
    const response = (await call(app, 'PUT', '/v1/pets/3', { key: 'demo-pro' }));
    expectError(response, 405, 'method_not_allowed');
    expect(response.headers.Allow).toBe('GET');
  });

  it('ignores a trailing slash and the query string', async () => {
    expect((await call(app, 'GET', '/v1/categories/?page=2', { key: 'demo-pro' })).status).toBe(200);
  });

  it('answers a CORS preflight without counting it, reporting the anonymous budget', async () => {
    const response = (await app.handle(request('OPTIONS', '/v1/categories', { headers: { 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' } })));
    expect(response.status).toBe(204);
    expect(response.headers).toMatchObject({ 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Headers': 'authorization, content-type' });
    expect(response.headers).toMatchObject({ 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '60' });
    expect((await call(app, 'GET', '/v1/categories')).headers['X-RateLimit-Remaining']).toBe('59');
  });
});

describe('deprecation (interface §9)', () => {
  it('marks GET /pets/{petId} with RFC 9745 Deprecation and RFC 8594 Sunset from the spec', async () => {
    const response = (await call(createTestApp(), 'GET', '/v1/pets/7', { key: 'demo-pro' }));
    expect(response.status).toBe(200);
    expect(response.headers.Deprecation).toBe(`@${Date.parse('2026-01-01T00:00:00Z') / 1000}`);
    expect(response.headers.Sunset).toBe('Fri, 31 Dec 2027 23:59:59 GMT');
  });

  it('takes the dates from the config when given', async () => {
    const app = createTestApp({ config: { deprecation: { getPetById: { deprecatedAt: '2026-06-01T00:00:00Z', sunset: '2026-12-31T00:00:00Z' } } } });
    const response = (await call(app, 'GET', '/v1/pets/7', { key: 'demo-pro' }));
    expect(response.headers.Deprecation).toBe(`@${Date.parse('2026-06-01T00:00:00Z') / 1000}`);
    expect(response.headers.Sunset).toBe('Thu, 31 Dec 2026 00:00:00 GMT');
  });

  it('refuses dates it could not put in a header, and overrides for operations that are not deprecated', async () => {
    expect(() => createTestApp({ config: { deprecation: { getPetById: { sunset: 'March 7' } } } })).toThrow(/deprecation\.getPetById\.sunset: must be an ISO 8601 date/);
    expect(() => createTestApp({ config: { deprecation: { getPetByIdTypo: { sunset: '2027-01-01' } } } })).toThrow(/deprecation\.getPetByIdTypo: no operation has that operationId/);
    expect(() => createTestApp({ config: { deprecation: { listCategories: { sunset: '2027-01-01' } } } })).toThrow(/not deprecated in the spec/);
    const spec = cloneSpec();
    spec.paths!['/pets/{petId}']!.get!['x-deprecation'] = { sunset: 'TBD' };
    expect(() => createTestApp({ spec })).toThrow(/x-deprecation\.sunset "TBD"; expected an ISO 8601 date/);
  });

  it('sends no deprecation headers on operations that are not deprecated', async () => {
    expect((await call(createTestApp(), 'GET', '/v1/categories', { key: 'demo-pro' })).headers.Deprecation).toBeUndefined();
  });
});

describe('Prefer (forced responses)', () => {
  it('forces 429 with Retry-After, Remaining 0 and an Error body', async () => {
    const response = (await call(createTestApp(), 'POST', '/v1/categories', { key: 'demo-pro', headers: { prefer: 'code=429' }, json: { name: 'x' } }));
    expectError(response, 429, 'rate_limited');
    expect(response.headers).toMatchObject({ 'Retry-After': '60', 'X-RateLimit-Remaining': '0' });
  });

  it.each([
    [401, 'unauthorized'],
    [400, 'validation_failed'],
  ])('forces %i with the catalogue error', async (status, code) => {
    const response = (await call(createTestApp(), 'POST', '/v1/categories', { key: 'demo-pro', headers: { prefer: `code=${status}` }, json: { name: 'x' } }));
    expectError(response, status, code);
  });

  it('does not store anything for a forced response', async () => {
    const app = createTestApp();
    (await call(app, 'POST', '/v1/categories', { key: 'demo-pro', headers: { prefer: 'code=400' }, json: { name: 'x' } }));
    expect((await app.controls.categories())).toHaveLength(3);
  });

  it('picks a named example', async () => {
    const app = createTestApp();
    expect((await call(app, 'GET', '/v1/categories', { key: 'demo-pro', headers: { prefer: 'example=empty' } })).json).toEqual([]);
    expect((await call(app, 'POST', '/v1/categories', { key: 'demo-pro', headers: { prefer: 'code=400, example=malformedJson' }, json: { name: 'x' } })).json).toMatchObject({ code: 'malformed_json' });
  });

  it('serves the real state when the forced code is the normal success', async () => {
    const app = createTestApp({ initialCategories: [{ name: 'only' }] });
    expect((await call(app, 'GET', '/v1/categories', { key: 'demo-pro', headers: { prefer: 'code=200' } })).json).toEqual([{ id: 1, name: 'only' }]);
  });

  it('generates data from the schema with dynamic=true', async () => {
    const body = (await call(createTestApp(), 'GET', '/v1/categories', { key: 'demo-pro', headers: { prefer: 'dynamic=true' } })).json;
    expect(Array.isArray(body)).toBe(true);
  });

  it.each([
    ['code=418', /code=418 is not declared for listCategories; declared: 200, 401, 429/],
    ['code=abc', /must be an HTTP status/],
    ['example=nope', /example=nope is not an example of listCategories 200; examples: default, empty/],
    ['cod=429', /unknown preference "cod"/],
    ['return=minimal, code=abc', /must be an HTTP status/],
    ['dynamic=maybe', /dynamic must be true or false/],
  ])('refuses Prefer: %s with a 400 saying why', async (prefer, message) => {
    const response = (await call(createTestApp(), 'GET', '/v1/categories', { key: 'demo-pro', headers: { prefer } }));
    expectError(response, 400, 'invalid_prefer');
    expect(response.json.message).toMatch(message);
  });

  it.each(['return=minimal', 'return=representation', 'respond-async', 'respond-async, wait=5', 'handling=strict'])('ignores Prefer: %s (registered by RFC 7240, not ours) and serves the normal response', async (prefer) => {
    const app = createTestApp();
    const plain = (await call(app, 'GET', '/v1/categories', { key: 'demo-pro' }));
    const preferred = (await call(app, 'GET', '/v1/categories', { key: 'demo-pro', headers: { prefer } }));
    expect(preferred.status).toBe(200);
    expect(preferred.body).toBe(plain.body);
    const created = (await call(app, 'POST', '/v1/categories', { key: 'demo-pro', json: { name: 'kept' }, headers: { prefer } }));
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ name: 'kept' });
  });

  it('still authenticates before forcing', async () => {
    expectError((await call(createTestApp(), 'GET', '/v1/categories', { headers: { prefer: 'code=200' } })), 401, 'unauthorized');
  });
});

describe('the spec drives the mock', () => {
  it('serves an operation added to the spec, with data generated from its schema, repeatable under a seed', async () => {
    const spec = cloneSpec();
    spec.paths!['/toys'] = {
      get: {
        operationId: 'listToys',
        responses: { '200': { description: 'toys', content: { 'application/json': { schema: { type: 'array', minItems: 2, maxItems: 2, items: { type: 'object', required: ['id', 'label'], properties: { id: { type: 'integer' }, label: { type: 'string', 'x-faker': 'commerce.productName' } } } } } } } },
      },
    };
    const first = (await call(createTestApp({ spec, seed: 5 }), 'GET', '/v1/toys', { key: 'demo-pro' }));
    const again = (await call(createTestApp({ spec, seed: 5 }), 'GET', '/v1/toys', { key: 'demo-pro' }));
    expect(first.status).toBe(200);
    expect(first.json).toHaveLength(2);
    for (const toy of first.json) expect(toy).toEqual({ id: expect.any(Number), label: expect.any(String) });
    expect(first.json).toEqual(again.json);
    expectError((await call(createTestApp({ spec }), 'GET', '/v1/toys')), 401, 'unauthorized');
  });

  it('follows a change of the request schema in the spec', async () => {
    const spec = cloneSpec();
    (spec.components!.schemas!.NewCategory as { required: string[] }).required = ['name', 'description'];
    const response = (await call(createTestApp({ spec }), 'POST', '/v1/categories', { key: 'demo-pro', json: { name: 'dog' } }));
    expectError(response, 400, 'validation_failed');
    expect(response.json.message).toMatch(/description is required/);
  });

  it('serves public operations (security: []) without a key', async () => {
    const spec = cloneSpec();
    spec.paths!['/store/orders']!.get!.security = [];
    expect((await call(createTestApp({ spec }), 'GET', '/v1/store/orders')).status).toBe(200);
  });

  it('marks operations with x-stability', async () => {
    const spec = cloneSpec();
    spec.paths!['/store/orders']!.get!['x-stability'] = 'beta';
    expect((await call(createTestApp({ spec }), 'GET', '/v1/store/orders', { key: 'demo-pro' })).headers['X-Stability']).toBe('beta');
  });

  it('refuses to start on an x-stability value the interface does not define', async () => {
    const spec = cloneSpec();
    spec.paths!['/store/orders']!.get!['x-stability'] = 'alpha';
    expect(() => createTestApp({ spec })).toThrow(/x-stability "alpha"; expected experimental or beta/);
  });
});

describe('controls (/__mock)', () => {
  it('reset brings back the seeded state: data, counters, bans and the log', async () => {
    const app = createTestApp({ config: { keys: [{ key: 'tiny', limits: { perMinute: 1, perDay: 5 } }], ban: { threshold: 1 } } });
    const seeded = (await call(app, 'GET', '/v1/categories', { key: 'demo-pro' })).json;
    (await call(app, 'POST', '/v1/categories', { key: 'demo-pro', json: { name: 'new' } }));
    (await call(app, 'GET', '/v1/categories', { key: 'tiny' }));
    (await call(app, 'GET', '/v1/categories', { key: 'tiny' }));
    expect((await call(app, 'GET', '/v1/categories', { key: 'tiny' })).json.code).toBe('key_banned');
    const reset = (await call(app, 'POST', '/__mock/reset'));
    expect(reset).toMatchObject({ status: 200, json: { reset: true, categories: 3 } });
    expect((await call(app, 'GET', '/v1/categories', { key: 'demo-pro' })).json).toEqual(seeded);
    expect((await call(app, 'GET', '/v1/categories', { key: 'tiny' })).status).toBe(200);
    expect((await app.controls.requests())).toHaveLength(3);
  });

  it('reads and advances the virtual clock', async () => {
    const app = createTestApp();
    expect((await call(app, 'GET', '/__mock/clock')).json).toEqual({ now: '2026-01-01T00:00:00.000Z', epochSeconds, offsetSeconds: 0 });
    expect((await call(app, 'POST', '/__mock/clock', { json: { advanceSeconds: 90 } })).json).toEqual({ now: '2026-01-01T00:01:30.000Z', epochSeconds: epochSeconds + 90, offsetSeconds: 90 });
  });

  it.each([
    ['a negative step', { advanceSeconds: -1 }],
    ['a string', { advanceSeconds: '60' }],
    ['an unknown field', { advanceSeconds: 1, rewind: true }],
  ])('refuses to move the clock by %s', async (_, json) => {
    expectError((await call(createTestApp(), 'POST', '/__mock/clock', { json })), 400, 'invalid_control_request');
  });

  it('adds keys with a plan or custom limits and lists them masked', async () => {
    const app = createTestApp();
    expect((await call(app, 'POST', '/__mock/keys', { json: { key: 'team-key-123456', plan: 'business' } }))).toMatchObject({ status: 201, json: { key: 'team…(15)', plan: 'business', limits: { perMinute: 1000, perDay: 100_000 } } });
    expect((await call(app, 'POST', '/__mock/keys', { json: { key: 'custom-key-1', limits: { perMinute: 2, perDay: 3 } } })).json).toMatchObject({ plan: 'custom' });
    expect((await call(app, 'GET', '/v1/categories', { key: 'custom-key-1' })).headers['X-RateLimit-Limit']).toBe('2');
    expect((await call(app, 'POST', '/__mock/keys', { json: { key: 'team-key-123456', plan: 'pro' } })).status).toBe(200);
    const listed = (await call(app, 'GET', '/__mock/keys')).json as { key: string }[];
    expect(listed.map((entry) => entry.key)).toContain('team…(15)');
    expect(JSON.stringify(listed)).not.toContain('team-key-123456');
    expectError((await call(app, 'POST', '/__mock/keys', { json: { key: 'k', plan: 'platinum' } })), 400, 'invalid_control_request');
  });

  it('logs recent requests with keys masked', async () => {
    const app = createTestApp();
    (await call(app, 'GET', '/v1/categories', { key: 'demo-business' }));
    (await call(app, 'GET', '/v1/categories', { key: 'sk_live_secret_value' }));
    const log = (await call(app, 'GET', '/__mock/requests')).json;
    expect(log).toEqual([
      { time: '2026-01-01T00:00:00.000Z', method: 'GET', path: '/v1/categories', operationId: 'listCategories', plan: 'business', key: 'demo…(13)', status: 200, code: null },
      { time: '2026-01-01T00:00:00.000Z', method: 'GET', path: '/v1/categories', operationId: 'listCategories', plan: 'anonymous', key: 'sk_l…(20)', status: 401, code: 'unauthorized' },
    ]);
  });

  it('is never counted against rate limits', async () => {
    const app = createTestApp({ config: { anonymous: { perMinute: 1, perDay: 1 } } });
    for (let index = 0; index < 5; index += 1) expect((await call(app, 'GET', '/__mock/clock')).status).toBe(200);
    expect((await call(app, 'GET', '/v1/categories')).status).toBe(401);
  });

  it('refuses non-loopback clients unless allowed, and needs the token when one is set', async () => {
    expectError((await call(createTestApp(), 'POST', '/__mock/reset', { clientAddress: '10.1.2.3' })), 403, 'control_forbidden');
    expect((await call(createTestApp({ config: { allowRemoteControl: true } }), 'POST', '/__mock/reset', { clientAddress: '10.1.2.3' })).status).toBe(200);
    expect((await call(createTestApp(), 'POST', '/__mock/reset', { clientAddress: '::ffff:127.0.0.1' })).status).toBe(200);
    const guarded = createTestApp({ config: { controlToken: 's3cret' } });
    expectError((await call(guarded, 'POST', '/__mock/reset')), 403, 'control_forbidden');
    expectError((await call(guarded, 'POST', '/__mock/reset', { headers: { 'x-mock-control-token': 'wrong' } })), 403, 'control_forbidden');
    expect((await call(guarded, 'POST', '/__mock/reset', { headers: { 'x-mock-control-token': 's3cret' } })).status).toBe(200);
  });

  it('refuses plan names that are not plans, even ones every object has', async () => {
    const app = createTestApp();
    for (const plan of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expectError((await call(app, 'POST', '/__mock/keys', { json: { key: `k-${plan}`, plan } })), 400, 'invalid_control_request');
    }
    expect(() => createTestApp({ config: { keys: [{ key: 'k', plan: 'valueOf' }] } })).toThrow(/keys\.0\.plan: unknown plan "valueOf"/);
  });

  it('refuses requests that web pages of other origins make the browser send, and sends no CORS headers', async () => {
    const app = createTestApp();
    expectError((await call(app, 'POST', '/__mock/reset', { clientAddress: '127.0.0.1', headers: { origin: 'https://evil.example' } })), 403, 'control_forbidden');
    const local = (await call(app, 'POST', '/__mock/reset', { clientAddress: '127.0.0.1', headers: { origin: 'http://localhost:5173' } }));
    expect(local.status).toBe(200);
    expect(local.headers['Access-Control-Allow-Origin']).toBeUndefined();
    const preflight = (await app.handle(request('OPTIONS', '/__mock/keys', { clientAddress: '127.0.0.1', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } })));
    expect(preflight.status).not.toBe(204);
    expect(preflight.headers['Access-Control-Allow-Origin']).toBeUndefined();
  });

  it('answers an oversized control body with 413', async () => {
    const response = (await createTestApp().handle({ ...request('POST', '/__mock/keys'), bodyTooLarge: true }));
    expect(response.status).toBe(413);
  });

  it('answers unknown controls with 404 and wrong methods with 405', async () => {
    const app = createTestApp();
    expectError((await call(app, 'GET', '/__mock/nothing')), 404, 'not_found');
    expect((await call(app, 'DELETE', '/__mock/clock')).headers.Allow).toBe('GET, POST');
  });
});

describe('seeded categories', () => {
  it('have distinct names where faker offers enough of them', async () => {
    for (const seed of [1, 2, 3, 42]) {
      const names = (await createTestApp({ seed, config: { seedCategories: 10 } }).controls.categories()).map((category) => category.name);
      expect(new Set(names).size, `seed ${seed}: ${names.join(', ')}`).toBe(10);
    }
  });
});

describe('IETF RateLimit fields (opt-in)', () => {
  it('are not sent by default: X-RateLimit-* only', async () => {
    const response = (await call(createTestApp(), 'GET', '/v1/categories', { key: 'demo-free' }));
    expect(response.headers['X-RateLimit-Limit']).toBe('60');
    expect(response.headers.RateLimit).toBeUndefined();
    expect(response.headers['RateLimit-Policy']).toBeUndefined();
  });

  it('are sent next to X-RateLimit-* with rateLimitHeaders: [x-ratelimit, ietf], on success, errors, 429 and preflights, and exposed to CORS', async () => {
    const app = createTestApp({ config: { rateLimitHeaders: ['x-ratelimit', 'ietf'], keys: [{ key: 'tiny', limits: { perMinute: 2, perDay: 50 } }] } });
    const first = (await call(app, 'GET', '/v1/categories', { key: 'tiny' }));
    expect(first.headers['X-RateLimit-Remaining']).toBe('1');
    expect(first.headers['RateLimit-Policy']).toBe('"minute";q=2;w=60, "day";q=50;w=86400');
    expect(first.headers.RateLimit).toBe('"minute";r=1;t=60, "day";r=49;t=86400');
    expect(first.headers['Access-Control-Expose-Headers']).toMatch(/X-RateLimit-Limit.*, RateLimit, RateLimit-Policy$/);
    expect((await call(app, 'GET', '/v1/nope', { key: 'tiny' })).headers.RateLimit).toBe('"minute";r=0;t=60, "day";r=48;t=86400');
    const limited = (await call(app, 'GET', '/v1/categories', { key: 'tiny' }));
    expect(limited.status).toBe(429);
    expect(limited.headers.RateLimit).toBe('"minute";r=0;t=60, "day";r=48;t=86400');
    const anonymous = (await call(app, 'GET', '/v1/categories', {}));
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['RateLimit-Policy']).toMatch(/^"minute";q=\d+;w=60, "day";q=\d+;w=86400$/);
    const preflight = (await call(app, 'OPTIONS', '/v1/categories', { headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' } }));
    expect(preflight.status).toBe(204);
    expect(preflight.headers.RateLimit).toMatch(/^"minute";r=\d+;t=\d+, "day";r=\d+;t=\d+$/);
  });

  it('show the reported window spent on a forced 429', async () => {
    const app = createTestApp({ config: { rateLimitHeaders: ['x-ratelimit', 'ietf'] } });
    const forced = (await call(app, 'GET', '/v1/categories', { key: 'demo-free', headers: { prefer: 'code=429' } }));
    expect(forced.status).toBe(429);
    expect(forced.headers['X-RateLimit-Remaining']).toBe('0');
    expect(forced.headers.RateLimit).toBe('"minute";r=0;t=60, "day";r=999;t=86400');
  });

  it('refuses a config without x-ratelimit or with an unknown style, naming the field', async () => {
    expect(() => createTestApp({ config: { rateLimitHeaders: ['ietf'] } })).toThrow(/rateLimitHeaders: must include x-ratelimit/);
    expect(() => createTestApp({ config: { rateLimitHeaders: ['x-ratelimit', 'draft-7'] as never } })).toThrow(/rateLimitHeaders\.1/);
  });
});

describe('replaceSpec (petstore-mock --watch)', () => {
  it('serves the new spec and keeps keys, counters, data and the log', async () => {
    const app = createTestApp();
    (await app.controls.addKey({ key: 'added-key', plan: 'pro' }));
    expect((await call(app, 'POST', '/v1/categories', { key: 'demo-free', json: { name: 'kept' } })).status).toBe(201);
    const renamed = structuredClone(specDocument) as OpenApiDocument;
    renamed.info.title = 'Renamed';
    renamed.servers = [{ url: 'http://127.0.0.1:4010/v2' }];
    app.replaceSpec(renamed);
    expect(app.spec.title).toBe('Renamed');
    expect(app.basePath).toBe('/v2');
    const listed = (await call(app, 'GET', '/v2/categories', { key: 'demo-free' }));
    expect(listed.status).toBe(200);
    expect(listed.json.map((category: { name: string }) => category.name)).toContain('kept');
    expect(listed.headers['X-RateLimit-Remaining']).toBe('58');
    expect((await call(app, 'GET', '/v2/categories', { key: 'added-key' })).status).toBe(200);
    expect((await call(app, 'GET', '/v1/categories', { key: 'demo-free' })).status).toBe(404);
    expect((await app.controls.requests()).length).toBe(4);
  });

  it('changes nothing when the new spec cannot be served', async () => {
    const app = createTestApp({ config: { deprecation: { getPetById: { sunset: '2027-12-31T23:59:59Z' } } } });
    const withoutPets = structuredClone(specDocument) as OpenApiDocument;
    delete (withoutPets.paths as Record<string, unknown>)['/pets/{petId}'];
    expect(() => app.replaceSpec(withoutPets)).toThrow(/deprecation\.getPetById: no operation has that operationId/);
    expect(app.spec.operations.some((operation) => operation.operationId === 'getPetById')).toBe(true);
    expect((await call(app, 'GET', '/v1/pets/1', { key: 'demo-free' })).headers.Sunset).toBe('Fri, 31 Dec 2027 23:59:59 GMT');
  });
});

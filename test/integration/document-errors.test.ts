import { describe, expect, it } from 'vitest';
import { parseSpecText } from '../../spec/load-spec.js';
import { createMockApp } from '../../src/core/mock-app.js';
import type { MockRequest } from '../../src/core/types.js';

// Errors in the shape the document declares for that status on that operation (its exact status,
// else 4XX, else default), filled with the real reason; the API's own Error shape where it declares
// none. And rate limits as the document declares them: its fields, or none at all.

const problem = `{application/problem+json: {schema: {type: object, required: [type, title, status, detail], properties: {type: {type: string}, title: {type: string}, status: {type: integer}, detail: {type: string}, instance: {type: string}}}}}`;
const documentText = (version: string) => `openapi: ${version}
info: {title: Errors, version: '1'}
security: [{bearer: []}]
paths:
  /problems:
    get:
      parameters: [{name: limit, in: query, required: true, schema: {type: integer, maximum: 10}}]
      responses:
        '200': {description: ok, content: {application/json: {schema: {type: array}, example: []}}}
        '400': {description: bad, content: ${problem}}
        '401': {description: who, content: ${problem}}
        '404': {description: none, content: ${problem}}
        '429': {description: slow down, headers: {Retry-After: {schema: {type: integer}}, RateLimit: {schema: {type: string}}, RateLimit-Policy: {schema: {type: string}}}, content: ${problem}}
  /wrapped:
    get:
      parameters: [{name: limit, in: query, required: true, schema: {type: integer}}]
      responses:
        '200': {description: ok}
        4XX: {description: error, content: {application/json: {schema: {type: object, required: [error], properties: {error: {type: object, required: [code, message], properties: {code: {type: string}, message: {type: string}}}}}}}}
  /matrix:
    get:
      parameters: [{name: limit, in: query, required: true, schema: {type: integer}}]
      responses:
        '200': {description: ok}
        default: {description: error, content: {application/json: {schema: {type: object, required: [errcode], properties: {errcode: {type: string}, error: {type: string}}}}}}
  /plain:
    get:
      parameters: [{name: limit, in: query, required: true, schema: {type: integer}}]
      responses:
        '200': {description: ok}
        '400': {description: bad, content: {text/plain: {schema: {type: string}}}}
  /ours:
    get:
      parameters: [{name: limit, in: query, required: true, schema: {type: integer}}]
      responses:
        '200': {description: ok}
        '400': {description: bad, content: {application/json: {schema: {type: object, properties: {code: {type: string}, message: {type: string}, status: {type: integer}}}}}}
components:
  securitySchemes:
    bearer: {type: http, scheme: bearer}
`;

describe.each(['3.0.3', '3.1.0'])('error shapes of an OpenAPI %s document', (version) => {
  const app = createMockApp({
    spec: parseSpecText(documentText(version)),
    config: { keys: [{ key: 'tiny', limits: { perMinute: 2, perDay: 100 } }] },
  });
  const get = (url: string, key: string | null = 'demo-free') =>
    app.handle({
      method: 'GET',
      url,
      headers: key === null ? {} : { authorization: `Bearer ${key}` },
      body: null,
      clientAddress: '127.0.0.1',
    } satisfies MockRequest);
  const json = (answer: { body: string | null }) => JSON.parse(answer.body!) as unknown;

  it('answers 400, 401 and 429 as RFC 9457 problem details where the operation declares them, filled with the reason', async () => {
    const invalid = await get('/problems?limit=99');
    expect([invalid.status, invalid.headers['Content-Type']]).toEqual([400, 'application/problem+json']);
    expect(json(invalid)).toEqual({
      type: 'about:blank',
      title: 'A path or query parameter is invalid',
      status: 400,
      detail: 'Invalid query parameter limit: must be <= 10',
    });
    const anonymous = await get('/problems?limit=1', null);
    expect(json(anonymous)).toEqual({
      type: 'about:blank',
      title: 'API key missing or invalid',
      status: 401,
      detail: 'Missing API key; send Authorization: Bearer <API_KEY>',
    });
    expect(anonymous.headers['WWW-Authenticate']).toBe('Bearer realm="Errors"');
    await get('/problems?limit=1', 'tiny');
    await get('/problems?limit=1', 'tiny');
    const limited = await get('/problems?limit=1', 'tiny');
    expect([limited.status, limited.headers['Content-Type']]).toEqual([429, 'application/problem+json']);
    expect(json(limited)).toMatchObject({
      type: 'about:blank',
      title: 'Rate limit exceeded',
      status: 429,
      detail: expect.stringMatching(/^Rate limit exceeded; retry after \d+ seconds/),
    });
  });

  it('fills a nested shape declared for 4XX, and a default one by the roles of its fields', async () => {
    expect(json(await get('/wrapped'))).toEqual({
      error: { code: 'invalid_parameter', message: 'Missing required query parameter limit' },
    });
    expect(json(await get('/matrix'))).toEqual({
      errcode: 'invalid_parameter',
      error: 'Missing required query parameter limit',
    });
  });

  it("writes a text error as its reason, and keeps the API's own shape where the document declares that one or none", async () => {
    const text = await get('/plain');
    expect([text.status, text.headers['Content-Type'], text.body]).toEqual([
      400,
      'text/plain',
      'Missing required query parameter limit',
    ]);
    expect(json(await get('/ours'))).toEqual({
      code: 'invalid_parameter',
      message: 'Missing required query parameter limit',
      status: 400,
    });
  });

  it('answers a path no operation has in the first shape the document declares for 404', async () => {
    const missing = await get('/nowhere');
    expect([missing.status, missing.headers['Content-Type']]).toEqual([404, 'application/problem+json']);
    expect(json(missing)).toEqual({
      type: 'about:blank',
      title: 'No such resource',
      status: 404,
      detail: 'No resource at /nowhere',
    });
  });

  it('emits the rate-limit fields the document declares (here the IETF ones and Retry-After), not X-RateLimit-*', async () => {
    const answer = await get('/problems?limit=1', 'demo-pro');
    expect(answer.headers['RateLimit-Policy']).toBe('"minute";q=300;w=60, "day";q=10000;w=86400');
    expect(answer.headers.RateLimit).toMatch(/^"minute";r=\d+;t=\d+, "day";r=\d+;t=\d+$/);
    expect(answer.headers['X-RateLimit-Limit']).toBeUndefined();
  });
});

describe('rate limits of a document that declares none', () => {
  const quiet = `openapi: 3.1.0
info: {title: Quiet, version: '1'}
paths:
  /things: {get: {responses: {'200': {description: ok}}}}
`;

  it('sends no rate-limit fields and never 429, unless the config asks for them', async () => {
    const app = createMockApp({ spec: parseSpecText(quiet) });
    for (let index = 0; index < 80; index += 1) {
      const answer = await app.handle({
        method: 'GET',
        url: '/things',
        headers: {},
        body: null,
        clientAddress: '10.0.0.1',
      });
      expect(answer.status).toBe(200);
      expect(Object.keys(answer.headers).filter((name) => /ratelimit|retry-after/i.test(name))).toEqual([]);
    }
    const asked = createMockApp({
      spec: parseSpecText(quiet),
      config: { rateLimitHeaders: ['x-ratelimit'], anonymous: { perMinute: 1, perDay: 10 } },
    });
    const first = await asked.handle({
      method: 'GET',
      url: '/things',
      headers: {},
      body: null,
      clientAddress: '10.0.0.1',
    });
    expect(first.headers['X-RateLimit-Limit']).toBe('1');
    const second = await asked.handle({
      method: 'GET',
      url: '/things',
      headers: {},
      body: null,
      clientAddress: '10.0.0.1',
    });
    expect([second.status, second.headers['Retry-After']]).toEqual([429, expect.stringMatching(/^\d+$/)]);
  });
});

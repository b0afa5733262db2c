import { describe, expect, it } from 'vitest';
import { parseSpecText } from '../../spec/load-spec.js';
import { createMockApp } from '../../src/core/mock-app.js';
import type { MockRequest } from '../../src/core/types.js';

// Security read from the document, every scheme, in OpenAPI 3.0 and 3.1: the effective requirement
// per operation (its own over the document's; [] and {} mean none), alternatives (OR) and combined
// schemes (AND); 401 with WWW-Authenticate naming the schemes (RFC 9110 11.6.1); 403 for a scope the
// config does not give the key.

const operation = (security?: string) =>
  `      responses: {'200': {description: ok, content: {application/json: {schema: {type: object}, example: {ok: true}}}}}${security === undefined ? '' : `\n      security: ${security}`}`;
const paths = {
  '/default': undefined,
  '/bearer': '[{bearer: []}]',
  '/basic': '[{basic: []}]',
  '/header-key': '[{headerKey: []}]',
  '/query-key': '[{queryKey: []}]',
  '/cookie-key': '[{cookieKey: []}]',
  '/either': '[{bearer: []}, {headerKey: []}]',
  '/both': '[{headerKey: [], queryKey: []}]',
  '/open': '[]',
  '/optional': '[{}, {bearer: []}]',
  '/scoped': "[{oauth: ['read:pets']}]",
  '/oidc': "[{oidc: ['openid']}]",
};
const documentText = (version: string) => `openapi: ${version}
info: {title: Secure Pets, version: '1'}
security: [{bearer: []}]
paths:
${Object.entries(paths)
  .map(([path, security]) => `  ${path}:\n    get:\n${operation(security)}`)
  .join('\n')}
components:
  securitySchemes:
    bearer: {type: http, scheme: bearer}
    basic: {type: http, scheme: basic}
    headerKey: {type: apiKey, in: header, name: X-API-Key}
    queryKey: {type: apiKey, in: query, name: api_key}
    cookieKey: {type: apiKey, in: cookie, name: session}
    oauth: {type: oauth2, flows: {clientCredentials: {tokenUrl: 'https://auth.example/token', scopes: {'read:pets': read, 'write:pets': write}}}}
    oidc: {type: openIdConnect, openIdConnectUrl: 'https://auth.example/.well-known/openid-configuration'}
`;

const config = {
  keys: [
    { key: 'reader', plan: 'free', scopes: ['read:pets', 'openid'] },
    { key: 'writer', plan: 'free', scopes: ['write:pets'] },
    { key: 'alice:secret', plan: 'pro' },
  ],
};
const basic = (text: string) => `Basic ${btoa(text)}`;

describe.each(['3.0.3', '3.1.0'])('security from an OpenAPI %s document', (version) => {
  const app = createMockApp({ spec: parseSpecText(documentText(version)), config });
  const get = (path: string, headers: Record<string, string> = {}, query = '') =>
    app.handle({
      method: 'GET',
      url: `${path}${query}`,
      headers,
      body: null,
      clientAddress: '127.0.0.1',
    } satisfies MockRequest);

  it.each([
    [
      'the document-wide requirement',
      '/default',
      { authorization: 'Bearer demo-free' },
      '',
      'Bearer realm="Secure Pets"',
    ],
    ['HTTP bearer', '/bearer', { authorization: 'Bearer demo-free' }, '', 'Bearer realm="Secure Pets"'],
    [
      'HTTP basic, user:password from the config',
      '/basic',
      { authorization: basic('alice:secret') },
      '',
      'Basic realm="Secure Pets", charset="UTF-8"',
    ],
    [
      'HTTP basic, a key as the password',
      '/basic',
      { authorization: basic('api:demo-pro') },
      '',
      'Basic realm="Secure Pets", charset="UTF-8"',
    ],
    [
      'an API key in a header',
      '/header-key',
      { 'x-api-key': 'demo-free' },
      '',
      'ApiKey realm="Secure Pets", in="header", name="X-API-Key"',
    ],
    [
      'an API key in the query',
      '/query-key',
      {},
      '?api_key=demo-free',
      'ApiKey realm="Secure Pets", in="query", name="api_key"',
    ],
    [
      'an API key in a cookie',
      '/cookie-key',
      { cookie: 'theme=dark; session=demo-free' },
      '',
      'ApiKey realm="Secure Pets", in="cookie", name="session"',
    ],
    [
      'OAuth2 as a bearer token',
      '/scoped',
      { authorization: 'Bearer reader' },
      '',
      'Bearer realm="Secure Pets", scope="read:pets"',
    ],
    [
      'OpenID Connect as a bearer token',
      '/oidc',
      { authorization: 'Bearer demo-free' },
      '',
      'Bearer realm="Secure Pets", scope="openid"',
    ],
  ])(
    '%s: 200 with the credentials, 401 naming the scheme without them or with wrong ones',
    async (_, path, good, query, challenge) => {
      expect((await get(path, good, query)).status).toBe(200);
      const missing = await get(path);
      expect(missing.status).toBe(401);
      expect(missing.headers['WWW-Authenticate']).toBe(challenge);
      expect(JSON.parse(missing.body!)).toMatchObject({ code: 'unauthorized', status: 401 });
      const wrong = await get(
        path,
        Object.fromEntries(
          Object.entries(good).map(([name, value]) => [
            name,
            value
              .replace('demo-free', 'nope')
              .replace('demo-pro', 'nope')
              .replace('reader', 'nope')
              .replace(/^Basic .*/, basic('alice:wrong')),
          ]),
        ),
        query.replace('demo-free', 'nope'),
      );
      expect(wrong.status).toBe(401);
      expect(wrong.headers['WWW-Authenticate']).toBe(challenge);
    },
  );

  it('lets in either alternative (OR) and names both in the challenge', async () => {
    expect((await get('/either', { authorization: 'Bearer demo-free' })).status).toBe(200);
    expect((await get('/either', { 'x-api-key': 'demo-free' })).status).toBe(200);
    const missing = await get('/either');
    expect(missing.status).toBe(401);
    expect(missing.headers['WWW-Authenticate']).toBe(
      'Bearer realm="Secure Pets", ApiKey realm="Secure Pets", in="header", name="X-API-Key"',
    );
  });

  it('needs every scheme of a combined requirement (AND)', async () => {
    expect((await get('/both', { 'x-api-key': 'demo-free' }, '?api_key=demo-pro')).status).toBe(200);
    expect((await get('/both', { 'x-api-key': 'demo-free' })).status).toBe(401);
    expect((await get('/both', {}, '?api_key=demo-pro')).status).toBe(401);
    const wrongSecond = await get('/both', { 'x-api-key': 'demo-free' }, '?api_key=nope');
    expect(wrongSecond.status).toBe(401);
    expect(JSON.parse(wrongSecond.body!).message).toBe('Invalid credentials for queryKey');
  });

  it('lets anyone in where the operation says [] or lists {}', async () => {
    expect((await get('/open')).status).toBe(200);
    expect((await get('/optional')).status).toBe(200);
    expect((await get('/optional', { authorization: 'Bearer demo-free' })).status).toBe(200);
  });

  it('answers 403 insufficient_scope when the config gives the key other scopes, and lets a key without a scope list in', async () => {
    const refused = await get('/scoped', { authorization: 'Bearer writer' });
    expect(refused.status).toBe(403);
    expect(refused.headers['WWW-Authenticate']).toBe('Bearer error="insufficient_scope", scope="read:pets"');
    expect(JSON.parse(refused.body!)).toEqual({
      code: 'insufficient_scope',
      message: 'The key lacks the scopes read:pets',
      status: 403,
    });
    expect((await get('/scoped', { authorization: 'Bearer demo-free' })).status).toBe(200);
  });

  it("counts each credential against its key's plan, whatever the scheme", async () => {
    const viaQuery = await get('/query-key', {}, '?api_key=demo-pro');
    expect(viaQuery.headers['X-RateLimit-Limit']).toBeUndefined(); // the document declares no rate-limit fields
    const limited = createMockApp({
      spec: parseSpecText(documentText(version)),
      config: { ...config, rateLimitHeaders: ['x-ratelimit'] },
    });
    const answer = await limited.handle({
      method: 'GET',
      url: '/query-key?api_key=demo-pro',
      headers: {},
      body: null,
      clientAddress: '127.0.0.1',
    });
    expect(answer.headers['X-RateLimit-Limit']).toBe('300');
  });
});

describe('schemes the mock cannot check', () => {
  const withScheme = (scheme: string) => `openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /secret:
    get:
      operationId: readSecret
      security: [{tls: []}]
      responses: {'200': {description: ok}}
components:
  securitySchemes:
    tls: ${scheme}
`;

  it.each([
    [
      'mutual TLS',
      '{type: mutualTLS}',
      'Failed to compile spec: readSecret requires security scheme "tls", mutual TLS, which the mock cannot check (it sees no client certificates); serve the operation without it',
    ],
    [
      'HTTP digest',
      '{type: http, scheme: digest}',
      'Failed to compile spec: readSecret requires security scheme "tls", an HTTP "digest" scheme, which the mock cannot check (it checks bearer and basic)',
    ],
  ])('refuses %s at start, naming the operation', (_, scheme, message) => {
    expect(() => createMockApp({ spec: parseSpecText(withScheme(scheme)) })).toThrow(message);
  });

  it('refuses a requirement naming no declared scheme', () => {
    expect(() =>
      createMockApp({
        spec: parseSpecText(withScheme('{type: http, scheme: bearer}').replace('[{tls: []}]', '[{missing: []}]')),
      }),
    ).toThrow(
      'Failed to compile spec: readSecret requires security scheme "missing", which components.securitySchemes does not declare',
    );
  });
});

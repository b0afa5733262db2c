import { describe, expect, it } from 'vitest';
import { parseSpecText, readSpecFile } from '../../spec/load-spec.js';
import { createMockApp } from '../../src/core/mock-app.js';
import { specDocument } from '../support/core-test-app.js';
import { fastest } from '../support/fastest-run.js';

// What a second reader of the change found in the mock, each pinned on the document that showed it
// or a small one of the same shape.

type App = ReturnType<typeof createMockApp>;
const send = (app: App, method: string, url: string, headers: Record<string, string> = {}, body?: string) =>
  app.handle({
    method,
    url,
    headers,
    body: body === undefined ? null : new TextEncoder().encode(body),
    clientAddress: '127.0.0.1',
  });

const petstoreV3 = () =>
  readSpecFile(new URL('../fixtures/specs/swagger-petstore-v3/openapi.yaml', import.meta.url).pathname);

describe('the second reading of the change', () => {
  it("answers errors with a reason where a document's `default` response is a success shape (Swagger Petstore v3: `default` of POST /user is a User)", async () => {
    const app = createMockApp({ spec: await petstoreV3() });
    const malformed = await send(app, 'POST', '/v3/user', { 'content-type': 'application/json' }, '{bad');
    const unknown = await send(app, 'GET', '/v3/nothing');
    for (const [answer, status, code] of [
      [malformed, 400, 'malformed_json'],
      [unknown, 404, 'not_found'],
    ] as const) {
      expect(answer.status).toBe(status);
      expect(JSON.parse(answer.body!)).toMatchObject({ code, status, message: expect.any(String) });
    }
  });

  it('serves a list as XML with one root element, its items named as the schema names them', async () => {
    const app = createMockApp({ spec: await petstoreV3() });
    const answer = await send(app, 'GET', '/v3/pet/findByStatus?status=sold', {
      accept: 'application/xml',
      authorization: 'Bearer demo-free',
    });
    expect(answer.status).toBe(200);
    const xml = answer.body!.replace(/^<\?xml[^>]*\?>\n/, '');
    expect(xml).toMatch(/^<pets>(<pet>.*<\/pet>)*<\/pets>$/s);
  });

  it('answers JSON to a client that takes anything (`Accept: */*`, as fetch sends) where the document lists XML first', async () => {
    const app = createMockApp({ spec: await petstoreV3() });
    for (const accept of [undefined, '*/*', 'application/xml, application/json']) {
      const answer = await send(app, 'GET', '/v3/pet/findByStatus?status=sold', {
        authorization: 'Bearer demo-free',
        ...(accept === undefined ? {} : { accept }),
      });
      expect(answer.status).toBe(200);
      expect(answer.headers['Content-Type']).toBe('application/json');
    }
  });

  it('sends no content with a 204, 205 or 304, whatever the document declares for it', async () => {
    const app = createMockApp({
      spec: parseSpecText(`
openapi: 3.1.0
info: { title: Items, version: '1' }
paths:
  /a:
    put:
      responses:
        '204': { description: done, content: { application/json: { schema: { type: object, properties: { ok: { type: boolean } } } } } }
        '304': { description: same, content: { application/json: { schema: { type: string } } } }
`),
    });
    for (const prefer of [undefined, 'code=304']) {
      const answer = await send(app, 'PUT', '/a', prefer === undefined ? {} : { prefer });
      expect([204, 304]).toContain(answer.status);
      expect(answer.body).toBeNull();
      expect(answer.bytes).toBeUndefined();
      expect(answer.headers['Content-Type']).toBeUndefined();
    }
  });

  it('routes to templates written with a trailing slash (Django, FastAPI)', async () => {
    const app = createMockApp({
      spec: parseSpecText(`
openapi: 3.1.0
info: { title: Items, version: '1' }
servers: [{ url: /api }]
paths:
  /items/:
    get: { responses: { '200': { description: ok, content: { application/json: { schema: { type: array } } } } } }
  /items/{id}/:
    get:
      parameters: [{ name: id, in: path, required: true, schema: { type: integer } }]
      responses: { '200': { description: ok, content: { application/json: { schema: { type: object } } } } }
`),
    });
    for (const url of ['/api/items/', '/api/items', '/api/items/3/', '/api/items/3'])
      expect((await send(app, 'GET', url)).status, url).toBe(200);
  });

  it('matches a segment of several parameters in time linear in its length, each taking the text up to its literal', async () => {
    const app = createMockApp({
      spec: parseSpecText(`
openapi: 3.1.0
info: { title: Files, version: '1' }
paths:
  /files/{a}-{b}-{c}.json:
    get:
      parameters:
        - { name: a, in: path, required: true, schema: { type: string } }
        - { name: b, in: path, required: true, schema: { type: string } }
        - { name: c, in: path, required: true, schema: { type: string } }
      responses: { '200': { description: ok, content: { application/json: { schema: { type: object } } } } }
`),
    });
    expect((await send(app, 'GET', '/files/x-y-z.json')).status).toBe(200);
    expect((await send(app, 'GET', '/files/x-y.json')).status).toBe(404);
    // 8,000 dashes took minutes with a backtracking pattern; a linear match is a blink (in CPU time: a
    // loaded machine stretches the wall clock, not the work).
    const cpuMs = await fastest(1, async () =>
      expect((await send(app, 'GET', `/files/${'-'.repeat(8_000)}x`)).status).toBe(404),
    );
    expect(cpuMs, `routed in ${cpuMs.toFixed(0)} ms of CPU`).toBeLessThan(2_000);
  });

  it('routes a path whose unreserved characters are percent-escaped as the same path (RFC 3986 6.2.2.2)', async () => {
    const app = createMockApp({ spec: specDocument });
    const answer = await send(app, 'GET', '/v1/%63ategories', { authorization: 'Bearer demo-pro' });
    expect(answer.status).toBe(200);
    expect((await send(app, 'GET', '/v1/categories%2Fx', { authorization: 'Bearer demo-pro' })).status).toBe(404);
  });

  it('names how to authenticate on a forced 401 as on a real one', async () => {
    const app = createMockApp({ spec: specDocument });
    const forced = await send(app, 'GET', '/v1/categories', { authorization: 'Bearer demo-pro', prefer: 'code=401' });
    const real = await send(app, 'GET', '/v1/categories');
    expect(forced.status).toBe(401);
    expect(forced.headers['WWW-Authenticate']).toBe(real.headers['WWW-Authenticate']);
  });

  it('reads array and object parameters as their style says (Swagger Petstore v3: ?tags=a&tags=b)', async () => {
    const v3 = createMockApp({ spec: await petstoreV3() });
    for (const query of ['tags=a&tags=b', 'tags=a'])
      expect((await send(v3, 'GET', `/v3/pet/findByTags?${query}`, { authorization: 'Bearer demo-free' })).status).toBe(
        200,
      );
    const app = createMockApp({
      spec: parseSpecText(`
openapi: 3.1.0
info: { title: Styles, version: '1' }
paths:
  /things/{ids}:
    get:
      parameters:
        - { name: ids, in: path, required: true, schema: { type: array, items: { type: integer } } }
        - { name: csv, in: query, explode: false, schema: { type: array, items: { type: integer } } }
        - { name: piped, in: query, style: pipeDelimited, schema: { type: array, items: { type: boolean } } }
        - { name: filter, in: query, style: deepObject, schema: { type: object, properties: { min: { type: integer } }, additionalProperties: false } }
        - { name: json, in: query, content: { application/json: { schema: { type: object, required: [a], properties: { a: { type: integer } } } } } }
      responses: { '200': { description: ok } }
`),
    });
    const status = async (url: string) => (await send(app, 'GET', url)).status;
    expect(await status('/things/1,2,3?csv=4,5&piped=true|false&filter[min]=3&json=%7B%22a%22%3A1%7D')).toBe(200);
    expect(await status('/things/1,x')).toBe(400);
    expect(await status('/things/1?csv=4,y')).toBe(400);
    expect(await status('/things/1?filter[min]=low')).toBe(400);
    expect(await status('/things/1?filter[max]=3')).toBe(400);
    expect(await status('/things/1?json=%7B%7D')).toBe(400);
  });

  it('validates header and cookie parameters as Prism does (not Accept, Content-Type or Authorization)', async () => {
    const app = createMockApp({
      spec: parseSpecText(`
openapi: 3.1.0
info: { title: Tenants, version: '1' }
paths:
  /a:
    get:
      parameters:
        - { name: X-Request-Id, in: header, required: true, schema: { type: string, format: uuid } }
        - { name: tenant, in: cookie, required: true, schema: { type: integer } }
        - { name: Accept, in: header, required: true, schema: { type: string, const: never } }
      responses: { '200': { description: ok } }
`),
    });
    const id = '0b6a3c9e-3f0a-4c53-9d3e-0a8f6b2f3c11';
    const status = async (headers: Record<string, string>) => (await send(app, 'GET', '/a', headers)).status;
    expect(await status({ 'x-request-id': id, cookie: 'theme=dark; tenant=42' })).toBe(200);
    expect(await status({ cookie: 'tenant=42' })).toBe(400);
    expect(await status({ 'x-request-id': 'not-a-uuid', cookie: 'tenant=42' })).toBe(400);
    expect(await status({ 'x-request-id': id, cookie: 'tenant=abc' })).toBe(400);
    expect(await status({ 'x-request-id': id })).toBe(400);
  });

  it('matches patterns in time linear in the value, whatever the pattern (a backtracking one took minutes)', async () => {
    const app = createMockApp({
      spec: parseSpecText(`
openapi: 3.1.0
info: { title: Patterns, version: '1' }
paths:
  /n/{id}:
    post:
      parameters: [{ name: id, in: path, required: true, schema: { type: string, pattern: '^(a+)+$' } }]
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                name: { type: string, pattern: '^(\\w+\\s?)*$' }
                code: { type: string, pattern: '^[A-Z0-9]*[0-9][A-Z0-9]*$' }
      responses: { '200': { description: ok } }
`),
    });
    const post = (id: string, body: object) =>
      send(app, 'POST', `/n/${id}`, { 'content-type': 'application/json' }, JSON.stringify(body));
    // Each pattern is its own: two in one document do not share a compiled one.
    expect((await post('aaa', { name: 'ok name', code: 'AB1' })).status).toBe(200);
    expect((await post('aaa', { code: 'ABC' })).status).toBe(400);
    const cpuMs = await fastest(1, async () => {
      expect((await post(`${'a'.repeat(5_000)}!`, {})).status).toBe(400);
      expect((await post('aaa', { name: `${'a'.repeat(5_000)}!` })).status).toBe(400);
    });
    expect(cpuMs, `both judged in ${cpuMs.toFixed(0)} ms of CPU`).toBeLessThan(2_000);
  });
});

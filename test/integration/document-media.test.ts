import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSpecText } from '../../spec/load-spec.js';
import { createMockApp } from '../../src/core/mock-app.js';
import type { MockRequest } from '../../src/core/types.js';
import { type RunningMockServer, startMockServer } from '../../src/server/start-server.js';

// Media types from the document, in OpenAPI 3.0 and 3.1: responses in the type Accept prefers
// (406 only when nothing declared fits), images and files as small valid files, text and XML from
// examples or written from data; request bodies in JSON, form and multipart validated against their
// schemas, any other declared type taken as it comes, an undeclared one refused with 415.

const documentText = (version: string) => `openapi: ${version}
info: {title: Media, version: '1'}
paths:
  /photo:
    get:
      responses: {'200': {description: a picture, content: {image/png: {schema: {type: string, format: binary}}}}}
  /any-image:
    get:
      responses: {'200': {description: some picture, content: {'image/*': {schema: {type: string, format: binary}}}}}
  /report:
    get:
      responses:
        '200':
          description: a report
          content:
            application/json: {schema: {type: object, properties: {total: {type: integer}}, required: [total]}, example: {total: 3}}
            application/xml: {example: '<report><total>3</total></report>'}
            text/csv: {example: "total\\n3\\n"}
  /pet:
    get:
      responses: {'200': {description: a pet, content: {application/xml: {schema: {type: object, xml: {name: Pet}, required: [name], properties: {name: {type: string, minLength: 1}}}}}}}
  /greeting:
    get:
      responses: {'200': {description: text, content: {text/plain: {schema: {type: string}, example: hello}}}}
  /invoice:
    get:
      responses: {'200': {description: a file, content: {application/pdf: {schema: {type: string, format: binary}}}}}
  /problem:
    get:
      responses: {'200': {description: json of its own type, content: {application/vnd.pets+json: {schema: {type: object, properties: {id: {type: integer}}, required: [id]}}}}}
  /nothing:
    delete:
      responses: {'204': {description: gone}}
  /form:
    post:
      requestBody:
        required: true
        content:
          application/x-www-form-urlencoded:
            schema: {type: object, required: [name], properties: {name: {type: string}, age: {type: integer, minimum: 0}, tags: {type: array, items: {type: string}}, vip: {type: boolean}}, additionalProperties: false}
      responses: {'201': {description: created}}
  /upload:
    post:
      requestBody:
        required: true
        content:
          multipart/form-data:
            schema: {type: object, required: [title, file], properties: {title: {type: string, maxLength: 20}, file: {type: string, format: binary}, count: {type: integer}}}
      responses: {'201': {description: stored}}
  /raw:
    put:
      requestBody: {required: true, content: {application/octet-stream: {schema: {type: string, format: binary}}, text/plain: {schema: {type: string, maxLength: 5}}}}
      responses: {'204': {description: stored}}
`;

const bytes = (text: string) => new TextEncoder().encode(text);
const pngSignature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

describe.each(['3.0.3', '3.1.0'])('media types of an OpenAPI %s document', (version) => {
  const app = createMockApp({ spec: parseSpecText(documentText(version)) });
  const call = (method: string, url: string, headers: Record<string, string> = {}, body: Uint8Array | null = null) =>
    app.handle({ method, url, headers, body, clientAddress: '127.0.0.1' } satisfies MockRequest);
  const form = async (entries: Record<string, string | Blob>) => {
    const data = new FormData();
    for (const [name, value] of Object.entries(entries)) data.append(name, value);
    const encoded = new Response(data);
    return { type: encoded.headers.get('content-type')!, body: new Uint8Array(await encoded.arrayBuffer()) };
  };

  it('serves an image as a small valid file of its type, for Accept image/* or */*, 406 for JSON only', async () => {
    for (const accept of [undefined, '*/*', 'image/*', 'image/png, application/json;q=0.5']) {
      const answer = await call('GET', '/photo', accept === undefined ? {} : { accept });
      expect(answer.status).toBe(200);
      expect(answer.headers['Content-Type']).toBe('image/png');
      expect([...answer.bytes!.slice(0, 8)]).toEqual(pngSignature);
    }
    const refused = await call('GET', '/photo', { accept: 'application/json' });
    expect(refused.status).toBe(406);
    expect(JSON.parse(refused.body!)).toEqual({
      code: 'not_acceptable',
      message: 'Accept application/json takes none of the media types declared for 200: image/png',
      status: 406,
    });
    const range = await call('GET', '/any-image');
    expect(range.headers['Content-Type']).toBe('image/png');
  });

  it('serves the type Accept prefers among those declared, from its example', async () => {
    expect(JSON.parse((await call('GET', '/report')).body!)).toEqual({ total: 3 });
    const xml = await call('GET', '/report', { accept: 'application/xml' });
    expect([xml.headers['Content-Type'], xml.body]).toEqual(['application/xml', '<report><total>3</total></report>']);
    const csv = await call('GET', '/report', { accept: 'text/csv, application/json;q=0.1' });
    expect([csv.headers['Content-Type'], csv.body]).toEqual(['text/csv', 'total\n3\n']);
  });

  it('writes XML from data where there is no example, text from its example, and JSON of its own type', async () => {
    const pet = await call('GET', '/pet');
    expect(pet.headers['Content-Type']).toBe('application/xml');
    expect(pet.body).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<Pet><name>[^<]+<\/name><\/Pet>$/);
    expect((await call('GET', '/greeting')).body).toBe('hello');
    const vendor = await call('GET', '/problem');
    expect(vendor.headers['Content-Type']).toBe('application/vnd.pets+json');
    expect(JSON.parse(vendor.body!)).toEqual({ id: expect.any(Number) });
    const pdf = await call('GET', '/invoice');
    expect(new TextDecoder().decode(pdf.bytes!)).toMatch(/^%PDF-1\.4\n[\s\S]*%%EOF\n$/);
  });

  it('answers a response that declares no body without one', async () => {
    const answer = await call('DELETE', '/nothing');
    expect([answer.status, answer.body, answer.bytes, answer.headers['Content-Type']]).toEqual([
      204,
      null,
      undefined,
      undefined,
    ]);
  });

  it('validates a form body against its schema, each field in its type', async () => {
    const type = { 'content-type': 'application/x-www-form-urlencoded' };
    expect((await call('POST', '/form', type, bytes('name=Rex&age=3&tags=a&tags=b&vip=true'))).status).toBe(201);
    const negative = await call('POST', '/form', type, bytes('name=Rex&age=-1'));
    expect([negative.status, JSON.parse(negative.body!).message]).toEqual([
      400,
      'Invalid request body: age: must be >= 0',
    ]);
    expect(JSON.parse((await call('POST', '/form', type, bytes('age=3'))).body!).message).toBe(
      'Invalid request body: name is required',
    );
    expect(JSON.parse((await call('POST', '/form', type, bytes('name=Rex&extra=1'))).body!).message).toBe(
      'Invalid request body: extra: unexpected property (the schema allows no other properties)',
    );
    const json = await call('POST', '/form', { 'content-type': 'application/json' }, bytes('{"name":"Rex"}'));
    expect([json.status, JSON.parse(json.body!).code]).toEqual([415, 'unsupported_media_type']);
    expect((await call('POST', '/form', type)).status).toBe(400);
  });

  it('validates a multipart body against its schema, files as their content', async () => {
    const good = await form({
      title: 'Holiday',
      file: new Blob([new Uint8Array([1, 2, 3])], { type: 'image/png' }),
      count: '2',
    });
    expect((await call('POST', '/upload', { 'content-type': good.type }, good.body)).status).toBe(201);
    const long = await form({ title: 'x'.repeat(21), file: new Blob(['a']) });
    expect(JSON.parse((await call('POST', '/upload', { 'content-type': long.type }, long.body)).body!).message).toBe(
      'Invalid request body: title: must NOT have more than 20 characters',
    );
    const missing = await form({ title: 'Holiday' });
    expect(
      JSON.parse((await call('POST', '/upload', { 'content-type': missing.type }, missing.body)).body!).message,
    ).toBe('Invalid request body: file is required');
    const broken = await call(
      'POST',
      '/upload',
      { 'content-type': 'multipart/form-data; boundary=nothing' },
      bytes('not multipart at all'),
    );
    expect([broken.status, JSON.parse(broken.body!).code]).toEqual([400, 'validation_failed']);
  });

  it('takes any declared type as it comes, validating text against a string schema', async () => {
    expect(
      (await call('PUT', '/raw', { 'content-type': 'application/octet-stream' }, new Uint8Array([0, 255, 7]))).status,
    ).toBe(204);
    expect((await call('PUT', '/raw', { 'content-type': 'text/plain; charset=utf-8' }, bytes('abc'))).status).toBe(204);
    expect((await call('PUT', '/raw', { 'content-type': 'text/plain' }, bytes('too long'))).status).toBe(400);
    const undeclared = await call('PUT', '/raw', { 'content-type': 'image/png' }, new Uint8Array([1]));
    expect(JSON.parse(undeclared.body!)).toEqual({
      code: 'unsupported_media_type',
      message:
        'Content-Type image/png is not declared for this operation; send one of: application/octet-stream, text/plain',
      status: 415,
    });
  });
});

describe('media types over node:http', () => {
  let server: RunningMockServer;
  beforeAll(async () => {
    server = await startMockServer({ port: 0, spec: parseSpecText(documentText('3.0.3')) });
  });
  afterAll(() => server.close());

  it('sends an image as its bytes with their length', async () => {
    const response = await fetch(`${server.origin}/photo`);
    const body = new Uint8Array(await response.arrayBuffer());
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(Number(response.headers.get('content-length'))).toBe(body.length);
    expect([...body.slice(0, 8)]).toEqual(pngSignature);
  });
});

describe("Accept on the kit's own spec", () => {
  it('is judged before any state changes: a POST whose answer the client refuses creates nothing', async () => {
    const { readSpecFile } = await import('../../spec/load-spec.js');
    const app = createMockApp({ spec: await readSpecFile(), config: { seedCategories: 0 } });
    const headers = { authorization: 'Bearer demo-free', 'content-type': 'application/json' };
    const refused = await app.handle({
      method: 'POST',
      url: '/v1/categories',
      headers: { ...headers, accept: 'text/html' },
      body: new TextEncoder().encode('{"name":"dog"}'),
    });
    expect([refused.status, JSON.parse(refused.body!).code]).toEqual([406, 'not_acceptable']);
    const list = await app.handle({
      method: 'GET',
      url: '/v1/categories',
      headers: { ...headers, accept: 'text/html, application/json;q=0.5' },
      body: null,
    });
    expect([list.status, list.body]).toEqual([200, '[]']);
  });
});

describe('media types over MSW', () => {
  it('hands an image to the page as its bytes', async () => {
    const { toResponse } = await import('../../mocks/handlers.js');
    const app = createMockApp({ spec: parseSpecText(documentText('3.1.0')) });
    const response = toResponse(await app.handle({ method: 'GET', url: '/photo', headers: {}, body: null }));
    expect(response.headers.get('content-type')).toBe('image/png');
    expect([...new Uint8Array(await response.arrayBuffer()).slice(0, 8)]).toEqual(pngSignature);
  });
});

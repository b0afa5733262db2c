import { afterAll, describe, expect, it } from 'vitest';
import { parseSpecText } from '../../spec/load-spec.js';
import { createMockApp } from '../../src/core/mock-app.js';
import type { MockResponse } from '../../src/core/types.js';

// Issue 42 item 4: a Swagger 2.0 operation's own `produces` and `consumes` kept (Scalar's upgrader
// reads the document's list first), literal path segments before templated ones, and the document's
// error shape for the errors the mock makes itself. The operations are cut down from Docker Engine's
// API (set2/swagger2_docker-engine.yaml, Apache 2.0) and Gotify's (set2/swagger2_gotify.json, MIT).
const docker = `swagger: '2.0'
info: {title: Docker Engine API excerpt, version: '1.56'}
basePath: /v1.56
produces: [application/json, text/plain]
consumes: [application/json, text/plain]
paths:
  /images/{name}/get:
    get:
      operationId: ImageGet
      produces: [application/x-tar]
      parameters: [{name: name, in: path, required: true, type: string}]
      responses:
        200: {description: A tar archive, schema: {type: string, format: binary}}
        500: {description: server error, schema: {$ref: '#/definitions/ErrorResponse'}}
  /containers/{id}/logs:
    get:
      operationId: ContainerLogs
      produces: [application/vnd.docker.raw-stream, application/vnd.docker.multiplexed-stream]
      parameters: [{name: id, in: path, required: true, type: string}]
      responses:
        200: {description: logs, schema: {type: string, format: binary}}
        404:
          description: no such container
          schema: {$ref: '#/definitions/ErrorResponse'}
          examples: {application/json: {message: 'No such container: c2ada9df5af8'}}
  /containers/{id}/export:
    get:
      operationId: ContainerExport
      produces: [application/octet-stream]
      parameters: [{name: id, in: path, required: true, type: string}]
      responses:
        200: {description: no error}
        404: {description: no such container, schema: {$ref: '#/definitions/ErrorResponse'}}
  /containers/{id}/archive:
    put:
      operationId: PutContainerArchive
      consumes: [application/x-tar, application/octet-stream]
      parameters:
        - {name: id, in: path, required: true, type: string}
        - {name: inputStream, in: body, required: true, schema: {type: string, format: binary}}
      responses:
        200: {description: The content was extracted successfully}
        400: {description: Bad parameter, schema: {$ref: '#/definitions/ErrorResponse'}}
  /containers/json:
    get:
      operationId: ContainerList
      parameters: [{name: all, in: query, type: boolean}]
      responses:
        200: {description: no error, schema: {type: array, items: {type: object}}, examples: {application/json: []}}
        400: {description: bad parameter, schema: {$ref: '#/definitions/ErrorResponse'}}
  /containers/{id}/json:
    get:
      operationId: ContainerInspect
      parameters: [{name: id, in: path, required: true, type: string}]
      responses:
        200: {description: no error, schema: {type: object, properties: {Id: {type: string, example: aa86eacfb3}}}}
  /containers/{id}:
    get:
      operationId: ContainerByName
      parameters: [{name: id, in: path, required: true, type: string}]
      responses:
        200: {description: one, schema: {type: string}, examples: {text/plain: templated}}
  /containers/mine:
    get:
      operationId: MyContainers
      responses:
        200: {description: mine, schema: {type: string}, examples: {text/plain: literal}}
  /config.yaml:
    get:
      operationId: Config
      produces: [application/x-yaml]
      responses:
        200: {description: the config, schema: {type: string, example: 'debug: true'}}
definitions:
  ErrorResponse:
    type: object
    required: [message]
    properties: {message: {type: string, description: The error message.}}
`;

const app = createMockApp({ spec: parseSpecText(docker), config: { seedCategories: 0 } });
afterAll(() => app.close());
const send = (method: string, url: string, headers: Record<string, string> = {}, body: string | null = null) =>
  app.handle({
    method,
    url: `/v1.56${url}`,
    headers: { accept: '*/*', ...headers },
    body: body === null ? null : new TextEncoder().encode(body),
  });
const head = (answer: MockResponse) => [answer.status, answer.headers['Content-Type']];

describe("a Swagger 2.0 operation's own produces and consumes", () => {
  it('answers each operation in the media type it produces, not the document’s JSON or text', async () => {
    expect(head(await send('GET', '/images/ubuntu/get'))).toEqual([200, 'application/x-tar']);
    expect(head(await send('GET', '/images/ubuntu/get', { accept: 'application/x-tar' }))).toEqual([
      200,
      'application/x-tar',
    ]);
    expect(head(await send('GET', '/containers/c1/logs'))).toEqual([200, 'application/vnd.docker.raw-stream']);
    expect(head(await send('GET', '/containers/c1/export'))).toEqual([200, 'application/octet-stream']);
    const yaml = await send('GET', '/config.yaml', { accept: 'application/x-yaml' });
    expect([...head(yaml), yaml.body]).toEqual([200, 'application/x-yaml', 'debug: true']);
  });

  it('refuses an Accept the operation does not produce, naming what it does', async () => {
    const answer = await send('GET', '/containers/c1/logs', { accept: 'application/json' });
    expect(answer.status).toBe(406);
    expect(answer.body).toContain('application/vnd.docker.raw-stream');
  });

  it('takes a body in the media type the operation consumes', async () => {
    const answer = await send('PUT', '/containers/c1/archive', { 'content-type': 'application/x-tar' }, 'tar bytes');
    expect(answer.status).toBe(200);
  });

  it('keeps the document’s JSON for the operation’s errors, and their examples', async () => {
    const answer = await send('GET', '/containers/c1/logs', { prefer: 'code=404' });
    expect(head(answer)).toEqual([404, 'application/json']);
  });
});

describe('paths as the document writes them', () => {
  it('routes a literal segment before a templated one, whatever the order they are written in, and / to no template', async () => {
    const mine = await send('GET', '/containers/mine', { accept: 'text/plain' });
    expect([...head(mine), mine.body]).toEqual([200, 'text/plain', 'literal']);
    expect((await send('GET', '/containers/c1', { accept: 'text/plain' })).body).toBe('templated');
    expect((await app.handle({ method: 'GET', url: '/v1.56/', headers: {}, body: null })).status).toBe(404);
    expect(JSON.parse((await send('GET', '/containers/c1/json')).body as string)).toEqual({ Id: 'aa86eacfb3' });
  });
});

describe("the document's error shape for the errors the mock makes itself", () => {
  it('answers a parameter 400 and a path no operation has as the document’s {message}', async () => {
    const invalid = await send('GET', '/containers/json?all=maybe');
    expect([...head(invalid), JSON.parse(invalid.body as string)]).toEqual([
      400,
      'application/json',
      { message: 'Invalid query parameter all: expected boolean, received string' },
    ]);
    const missing = await send('GET', '/nowhere');
    expect([missing.status, JSON.parse(missing.body as string)]).toEqual([
      404,
      { message: 'No resource at /v1.56/nowhere' },
    ]);
  });

  it('fills a shape with a title-like and a message-like field by their roles (Gotify: error, errorDescription)', async () => {
    const gotify = createMockApp({
      spec: parseSpecText(`swagger: '2.0'
info: {title: Gotify excerpt, version: '2'}
produces: [application/json]
paths:
  /application/{id}:
    delete:
      parameters: [{name: id, in: path, required: true, type: integer, format: int64}]
      responses:
        200: {description: Ok}
        400: {description: Bad Request, schema: {$ref: '#/definitions/Error'}}
        404: {description: Not Found, schema: {$ref: '#/definitions/Error'}}
definitions:
  Error:
    type: object
    required: [error, errorCode, errorDescription]
    properties:
      error: {type: string, example: Unauthorized}
      errorCode: {type: integer, format: int64, example: 401}
      errorDescription: {type: string, example: you need to provide a valid access token or user credentials to access this api}
`),
      config: { seedCategories: 0 },
    });
    const answer = await gotify.handle({ method: 'DELETE', url: '/application/abc', headers: {}, body: null });
    expect([answer.status, JSON.parse(answer.body as string)]).toEqual([
      400,
      {
        error: 'A path or query parameter is invalid',
        errorCode: 400,
        errorDescription: 'Invalid path parameter id: expected integer, received string',
      },
    ]);
    await gotify.close();
  });
});

describe('problem details for every error the mock makes, where the document writes its errors so', () => {
  const problem = `{application/problem+json: {schema: {type: object, required: [title, status], properties: {type: {type: string}, title: {type: string}, status: {type: integer}, detail: {type: string}}}}}`;
  const app = createMockApp({
    spec: parseSpecText(`openapi: 3.1.0
info: {title: Problems, version: '1'}
paths:
  /declared:
    get:
      parameters: [{name: limit, in: query, required: true, schema: {type: integer}}]
      responses: {'200': {description: ok}, '400': {description: bad, content: ${problem}}}
  /silent:
    get:
      parameters: [{name: limit, in: query, required: true, schema: {type: integer}}]
      responses: {'200': {description: ok}}
`),
    config: { seedCategories: 0 },
  });
  afterAll(() => app.close());
  const answer = async (method: string, url: string) => {
    const response = await app.handle({ method, url, headers: {}, body: null });
    return [response.status, response.headers['Content-Type'], JSON.parse(response.body as string)];
  };

  it('answers an operation that declares no error in the shape the document declares for that status elsewhere', async () => {
    expect(await answer('GET', '/silent')).toEqual([
      400,
      'application/problem+json',
      {
        type: 'about:blank',
        title: 'A path or query parameter is invalid',
        status: 400,
        detail: 'Missing required query parameter limit',
      },
    ]);
  });

  it('answers a status the document declares nowhere (405, 404) as its problem details, with that status', async () => {
    expect(await answer('DELETE', '/declared')).toEqual([
      405,
      'application/problem+json',
      expect.objectContaining({ status: 405, detail: expect.stringContaining('DELETE is not allowed') }),
    ]);
    expect(await answer('GET', '/nowhere')).toEqual([
      404,
      'application/problem+json',
      expect.objectContaining({ status: 404, detail: 'No resource at /nowhere' }),
    ]);
  });
});

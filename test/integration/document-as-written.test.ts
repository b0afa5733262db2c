import { afterAll, describe, expect, it } from 'vitest';
import { parseSpecText } from '../../spec/load-spec.js';
import { createMockApp } from '../../src/core/mock-app.js';

// Issue 42 item 4: a document served as it is written. Box declares `image/jpg` (not a registered
// type, but the name its clients compare with) and path keys with a `#fragment` for alternative
// operations on one URL; Sonarr's `GET /` declares a path parameter its template does not name.
const text = (example: string) =>
  `{'200': {description: ok, content: {text/plain: {schema: {type: string}, example: ${example}}}}}`;
const document = `openapi: 3.0.3
info: {title: As written, version: '1'}
paths:
  /thumbnail.jpg:
    get:
      responses: {'200': {description: ok, content: {image/jpg: {schema: {type: string, format: binary}}}}}
  /templates/schema:
    get: {responses: ${text('read')}}
  /templates/schema#add:
    put: {responses: ${text('added')}}
  /templates/schema#update:
    put: {responses: ${text('updated')}}
  /shared_items#folders:
    get: {responses: ${text('folder')}}
  /:
    get:
      parameters: [{name: path, in: path, required: true, schema: {type: string}}]
      responses: ${text('root')}
  /files/{id}:
    get: {responses: ${text('file-info')}}
  /files/{id}#get_shared_link:
    get:
      parameters: [{name: fields, in: query, required: true, schema: {type: string}}]
      responses: ${text('shared-link')}
  /session:
    post: {responses: {'101': {description: hijacked}, '400': {description: bad, content: {application/json: {schema: {type: object}}}}}}
  /moved:
    get: {responses: {'302': {description: elsewhere}, '404': {description: gone}}}
  /{path}:
    get:
      parameters: [{name: path, in: path, required: true, schema: {type: string}}]
      responses: ${text('file')}
`;
const app = createMockApp({ spec: parseSpecText(document) });
const send = (method: string, url: string, accept = '*/*') =>
  app.handle({ method, url, headers: { accept }, body: null, clientAddress: '10.0.0.8' });
afterAll(() => app.close());

describe('media type names as the document declares them', () => {
  it('serves an image/jpg response as image/jpg, with the bytes of a JPEG', async () => {
    const answer = await send('GET', '/thumbnail.jpg', 'image/jpg');
    expect([answer.status, answer.headers['Content-Type']]).toEqual([200, 'image/jpg']);
    expect([...(answer.bytes ?? []).slice(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
  });
});

describe('path keys as the document writes them', () => {
  it('routes a key with a #fragment at its path, the fragment a client never sends: the first written wins', async () => {
    const answers = await Promise.all([
      send('GET', '/templates/schema'),
      send('PUT', '/templates/schema'),
      send('GET', '/shared_items'),
    ]);
    expect(answers.map((answer) => [answer.status, answer.body])).toEqual([
      [200, 'read'],
      [200, 'added'],
      [200, 'folder'],
    ]);
  });

  it('chooses among #fragment alternatives of one URL by the required query parameters the request carries', async () => {
    const answers = await Promise.all([send('GET', '/files/7'), send('GET', '/files/7?fields=shared_link')]);
    expect(answers.map((answer) => [answer.status, answer.body])).toEqual([
      [200, 'file-info'],
      [200, 'shared-link'],
    ]);
  });

  it('answers GET / from the operation of /, not /{path}, when / declares a path parameter it cannot carry', async () => {
    const answers = await Promise.all([send('GET', '/'), send('GET', '/readme.txt')]);
    expect(answers.map((answer) => [answer.status, answer.body])).toEqual([
      [200, 'root'],
      [200, 'file'],
    ]);
  });
});

describe('only the statuses the document declares', () => {
  it('answers an operation with no 2xx its declared 3xx, or a 400 when it only switches protocols (101)', async () => {
    const [session, moved] = await Promise.all([send('POST', '/session'), send('GET', '/moved')]);
    expect([session.status, JSON.parse(session.body ?? '{}').message]).toEqual([
      400,
      'POST /session answers 101 (switching protocols) only, which the mock does not do',
    ]);
    expect(moved.status).toBe(302);
  });
});

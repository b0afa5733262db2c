import { afterAll, describe, expect, it, vi } from 'vitest';
import { parseSpecText } from '../../spec/load-spec.js';
import { createMockApp } from '../../src/core/mock-app.js';
import type { MockResponse } from '../../src/core/types.js';

// Issue 42 item 3: answers built from the document's examples first, the same bytes for the same
// request, `Prefer: dynamic=true` and `dynamic: true` (`--dynamic`) drawing afresh, an example that
// breaks its own schema said once and never served, and the declared headers sent.
const document = `openapi: 3.0.3
info: {title: Examples first, version: '1'}
paths:
  /pets:
    get:
      responses:
        '200':
          description: the pets
          headers:
            X-Total-Count: {schema: {type: integer}, example: 3}
            X-Request-Id: {schema: {type: string, format: uuid}}
          content: {application/json: {schema: {type: array, items: {$ref: '#/components/schemas/Pet'}}}}
    post:
      requestBody: {content: {application/json: {schema: {type: object}}}}
      responses:
        '201':
          description: created
          headers: {Location: {schema: {type: string}}}
          content: {application/json: {schema: {$ref: '#/components/schemas/Pet'}}}
  /pets/{petId}:
    get:
      parameters: [{name: petId, in: path, required: true, schema: {type: string}}]
      responses:
        '200': {description: a pet, content: {application/json: {schema: {$ref: '#/components/schemas/Pet'}}}}
  /owners/{ownerId}:
    get:
      parameters: [{name: ownerId, in: path, required: true, schema: {type: string}}]
      responses:
        '200': {description: an owner, content: {application/json: {schema: {$ref: '#/components/schemas/Owner'}}}}
  /jobs/{jobId}:
    get:
      parameters: [{name: jobId, in: path, required: true, schema: {type: string}}]
      responses:
        '200': {description: done, content: {application/json: {schema: {type: object}, example: {}}}}
        '202': {description: running, content: {application/json: {schema: {$ref: '#/components/schemas/Owner'}}}}
  /media-example:
    get:
      responses:
        '200':
          description: the media type's example wins
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Pet'}
              example: {id: 99, name: Whole, status: sold, tag: from-media}
components:
  schemas:
    Pet:
      type: object
      required: [id, name, status]
      properties:
        id: {type: integer, format: int64, example: 7}
        name: {type: string, example: Rex}
        status: {type: string, enum: [available, pending, sold]}
        tag: {type: string, default: friendly}
        kind: {type: string, const: dog}
        weight: {type: number, minimum: 1, example: -3}
    Owner:
      type: object
      required: [id, nickname, age, ownerId]
      properties:
        id: {type: string}
        ownerId: {type: string}
        nickname: {type: string, maxLength: 12}
        age: {type: integer}
`;

const warnings: string[] = [];
const logger = { debug: () => {}, info: () => {}, warn: (line: string) => void warnings.push(line), error: () => {} };
const app = createMockApp({ spec: parseSpecText(document), logger, config: { seedCategories: 0 } });
const dynamicApp = createMockApp({ spec: parseSpecText(document), config: { seedCategories: 0, dynamic: true } });
afterAll(() => Promise.all([app.close(), dynamicApp.close()]));

const get = (url: string, headers: Record<string, string> = {}, on = app) =>
  on.handle({ method: 'GET', url, headers: { accept: 'application/json', ...headers }, body: null });
const json = (answer: MockResponse) => JSON.parse(answer.body as string) as Record<string, unknown>;

describe('the document’s examples first', () => {
  it('builds a pet from its property examples, default, enum’s first value and const', async () => {
    const pet = json(await get('/pets/1'));
    expect(pet).toMatchObject({ id: 7, name: 'Rex', status: 'available', kind: 'dog' });
    if ('tag' in pet) expect(pet.tag).toBe('friendly');
  });

  it('never serves an example that breaks its own schema: weight is drawn within minimum 1', async () => {
    for (const url of ['/pets/1', '/pets/2', '/pets']) {
      const answer = json(await get(url));
      const pets = Array.isArray(answer) ? answer : [answer];
      for (const pet of pets as { weight?: number }[])
        if ('weight' in pet) expect(pet.weight).toBeGreaterThanOrEqual(1);
    }
  });

  it('never repeats a given id down a list: a list of such items holds one', async () => {
    expect(JSON.parse((await get('/pets')).body as string)).toEqual([expect.objectContaining({ id: 7, name: 'Rex' })]);
  });

  it('serves the media type’s own example before the schema’s', async () => {
    expect(json(await get('/media-example'))).toEqual({ id: 99, name: 'Whole', status: 'sold', tag: 'from-media' });
  });

  it('says an example that breaks its schema once, after the start, naming where it is', async () => {
    await vi.waitFor(() => expect(warnings.some((line) => line.includes('weight'))).toBe(true), { timeout: 15_000 });
    const weight = warnings.filter((line) => line.includes('/components/schemas/Pet/properties/weight'));
    expect(weight).toEqual([expect.stringMatching(/example.*breaks its schema \(must be >= 1\): not served/)]);
  });
});

describe('stable data', () => {
  it('answers two identical GETs with the same bytes, and another resource with other data', async () => {
    const [first, second, other] = await Promise.all([get('/owners/a'), get('/owners/a'), get('/owners/b')]);
    expect(second.body).toBe(first.body);
    expect(other.body).not.toBe(first.body);
  });

  it('never generates an empty id, where the schema sets no minLength', async () => {
    for (const name of ['a', 'b', 'c', 'd', 'e', 'f']) {
      const owner = json(await get(`/owners/${name}`));
      expect(owner.id).not.toBe('');
      expect(owner.ownerId).not.toBe('');
    }
  });

  it('answers a status forced with Prefer: code= the same way for the same request', async () => {
    const [first, second] = await Promise.all([1, 2].map(() => get('/jobs/9', { prefer: 'code=202' })));
    expect([first!.status, second!.body]).toEqual([202, first!.body]);
  });

  it('draws afresh with Prefer: dynamic=true', async () => {
    const stable = (await get('/owners/a')).body;
    const dynamic = await Promise.all([1, 2, 3].map(() => get('/owners/a', { prefer: 'dynamic=true' })));
    expect(dynamic.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(new Set([stable, ...dynamic.map((answer) => answer.body)]).size).toBeGreaterThan(1);
  });

  it('draws afresh on every request with dynamic: true (--dynamic), property examples not used', async () => {
    const answers = await Promise.all([1, 2, 3].map(() => get('/owners/a', {}, dynamicApp)));
    expect(new Set(answers.map((answer) => answer.body)).size).toBeGreaterThan(1);
  });
});

describe('declared response headers', () => {
  it('sends each declared header: its example, else a value of its schema', async () => {
    const answer = await get('/pets');
    expect(answer.headers['X-Total-Count']).toBe('3');
    expect(answer.headers['X-Request-Id']).toMatch(/^[0-9a-f-]{36}$/);
    expect((await get('/pets')).headers['X-Request-Id']).toBe(answer.headers['X-Request-Id']);
  });

  it('points a 201’s Location at the created resource, where the document’s paths say where it lives', async () => {
    const answer = await app.handle({
      method: 'POST',
      url: '/pets',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: new TextEncoder().encode('{}'),
    });
    expect([answer.status, answer.headers.Location]).toEqual([201, '/pets/7']);
  });
});

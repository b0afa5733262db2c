import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { credentialsOf } from '../../contract-tests/lib/generic-requests.js';
import { specLayers } from '../../contract-tests/runner/spec-layers.js';
import { suiteAreas } from '../../contract-tests/suite/index.js';
import { defaultSpecPath } from '../../spec/load-spec.js';
import { type RunningMockServer, startMockServer } from '../../src/server/start-server.js';
import { listenOnLoopback } from './support/loopback.js';
import { idsWith, resultOf, runKit } from './support/run-kit.js';

/** A small document with an API key, a collection, and the operations that change one of its items. */
const toys = `
openapi: 3.0.3
info: { title: Toys, version: '1' }
servers: [{ url: /v1 }]
security: [{ key: [] }]
paths:
  /toys:
    get:
      operationId: listToys
      parameters: [{ name: limit, in: query, schema: { type: integer, minimum: 1 } }]
      responses:
        '200': { description: ok, content: { application/json: { schema: { type: array, items: { $ref: '#/components/schemas/Toy' } } } } }
    post:
      operationId: createToy
      requestBody: { required: true, content: { application/json: { schema: { $ref: '#/components/schemas/NewToy' } } } }
      responses:
        '201': { description: created, content: { application/json: { schema: { $ref: '#/components/schemas/Toy' } } } }
        '400': { description: bad, content: { application/json: { schema: { $ref: '#/components/schemas/Problem' } } } }
  /toys/{toyId}:
    delete:
      operationId: deleteToy
      parameters: [{ name: toyId, in: path, required: true, schema: { type: integer } }]
      responses: { '204': { description: gone } }
components:
  securitySchemes: { key: { type: apiKey, in: header, name: X-Toy-Key } }
  schemas:
    NewToy: { type: object, required: [name], properties: { name: { type: string } } }
    Toy: { type: object, required: [id, name], properties: { id: { type: integer }, name: { type: string } } }
    Problem: { type: object, required: [code, message], properties: { code: { type: integer }, message: { type: string } } }
`;

let directory: string;
let toysPath: string;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'generic-layer-'));
  toysPath = join(directory, 'toys.yaml');
  await writeFile(toysPath, toys);
});

describe('what runs on which document', () => {
  it('on the Petstore interface: its rule checks exactly as before, and no generic check (every operation has its rules)', async () => {
    const layers = await specLayers(defaultSpecPath);
    expect(layers.petstoreRules).toBe(true);
    expect(layers.genericOperations).toBe(0);
    expect(layers.areas).toEqual(suiteAreas);
  });

  it('on a later Petstore interface with one more operation: the rule checks, and the generic layer for the new operation before the checks over every response', async () => {
    const grown = parse(await readFile(defaultSpecPath, 'utf8')) as { paths: Record<string, unknown> };
    grown.paths['/pets'] = {
      post: {
        operationId: 'createPet',
        security: [{ bearerAuth: [] }],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
            },
          },
        },
        responses: { '201': { description: 'created' } },
      },
    };
    const path = join(directory, 'grown.yaml');
    await writeFile(path, stringify(grown));
    const layers = await specLayers(path);
    expect(layers.petstoreRules).toBe(true);
    const ids = layers.areas.flatMap((area) => area.checks.map((check) => check.id));
    expect(ids.filter((id) => id.startsWith('generic.'))).toEqual([
      'generic.no-credentials:createPet',
      'generic.wrong-credentials:createPet',
      'generic.valid-request:createPet',
      'generic.invalid-requests:createPet',
    ]);
    expect(layers.areas.at(-1)).toBe(suiteAreas.at(-1));
  });

  it('on another document: the generic layer only, reading and creating side by side, changing one at a time after them', async () => {
    const layers = await specLayers(toysPath);
    expect(layers.petstoreRules).toBe(false);
    expect(layers.areas.map((area) => [area.mode, area.checks.map((check) => check.id.split(':')[1])])).toEqual([
      [
        'concurrent',
        ['listToys', 'listToys', 'listToys', 'listToys', 'createToy', 'createToy', 'createToy', 'createToy'],
      ],
      ['sequential', ['deleteToy', 'deleteToy', 'deleteToy', 'deleteToy']],
    ]);
  });

  it('refuses an --operation the document does not declare, in one line', async () => {
    await expect(specLayers(toysPath, ['listToys', 'GET /nothing'])).rejects.toThrow(
      'Failed to use --operation "GET /nothing": the document declares no such operation',
    );
  });
});

describe('credentials for every scheme from --api-key', () => {
  it('fills each scheme of an alternative', () => {
    expect(credentialsOf([{ name: 'b', kind: 'basic' }], 'ana:s3cret').authorization).toBe(
      `Basic ${btoa('ana:s3cret')}`,
    );
    expect(credentialsOf([{ name: 'b', kind: 'basic' }], 'demo-pro').authorization).toBe(`Basic ${btoa('demo-pro:')}`);
    expect(credentialsOf([{ name: 'o', kind: 'bearer', scopes: ['read'] }], 'k').authorization).toBe('Bearer k');
    expect(
      credentialsOf(
        [
          { name: 'q', kind: 'apiKey', in: 'query', parameter: 'api_key' },
          { name: 'c', kind: 'apiKey', in: 'cookie', parameter: 'sid' },
          { name: 'h', kind: 'apiKey', in: 'header', parameter: 'X-App' },
        ],
        'k',
      ),
    ).toEqual({ headers: { 'x-app': 'k' }, query: [['api_key', 'k']], cookies: ['sid=k'] });
  });

  it('sends a cookie key as it is where a cookie may hold it (a base64 key), encoded only where it may not', () => {
    const cookie = (key: string) =>
      credentialsOf([{ name: 'c', kind: 'apiKey', in: 'cookie', parameter: 'sid' }], key).cookies;
    expect(cookie('ab+/cd==')).toEqual(['sid=ab+/cd==']);
    expect(cookie('a b;c')).toEqual([`sid=${encodeURIComponent('a b;c')}`]);
  });
});

describe('the generic layer against our mock', () => {
  let mock: RunningMockServer;
  beforeAll(async () => {
    mock = await startMockServer({
      port: 0,
      seed: 1,
      specPath: toysPath,
      logger: { info() {}, debug() {}, warn() {}, error() {} },
    });
  });
  afterAll(async () => {
    await mock?.close();
  });

  it('passes, and DELETE goes only to the toy the run created', async () => {
    const run = await runKit({ baseUrl: mock.baseUrl, apiKey: 'demo-pro', specPath: toysPath, runId: 'toys' });
    expect(idsWith(run, 'FAIL')).toEqual([]);
    expect(run.exitCode).toBe(0);
    expect(
      run.log.some((line) =>
        line.includes(
          'is not the Petstore interface: the Petstore rule checks do not run; the generic layer checks its 3 operation(s)',
        ),
      ),
    ).toBe(true);
    const created = run.report.results.find((result) => result.id === 'generic.valid-request:createToy');
    expect(created?.status).toBe('PASS');
    expect(resultOf(run, 'generic.valid-request:deleteToy').status).toBe('PASS');
    expect(resultOf(run, 'generic.invalid-requests:createToy').cases).toBeGreaterThan(0);
  });

  it('--read-only sends no POST and no DELETE: those checks are SKIP', async () => {
    const run = await runKit({ baseUrl: mock.baseUrl, apiKey: 'demo-pro', specPath: toysPath, readOnly: true });
    expect(idsWith(run, 'SKIP').sort()).toEqual(
      [
        'generic.invalid-requests:createToy',
        'generic.no-credentials:createToy',
        'generic.valid-request:createToy',
        'generic.wrong-credentials:createToy',
        ...[
          'generic.invalid-requests:deleteToy',
          'generic.no-credentials:deleteToy',
          'generic.valid-request:deleteToy',
          'generic.wrong-credentials:deleteToy',
        ],
      ].sort(),
    );
  });
});

describe('the generic layer against a server that breaks the document', () => {
  /** Lets every request in, crashes on bad JSON, creates toys without an id, deletes whatever it is asked to. */
  const deleted: string[] = [];
  const handler = (request: IncomingMessage, response: ServerResponse) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const send = (status: number, value?: unknown) => {
        response.writeHead(status, value === undefined ? {} : { 'content-type': 'application/json' });
        response.end(value === undefined ? undefined : JSON.stringify(value));
      };
      const url = new URL(request.url!, 'http://x');
      if (request.method === 'GET' && url.pathname === '/v1/toys') return send(200, []);
      if (request.method === 'POST' && url.pathname === '/v1/toys') {
        try {
          return send(201, { name: (JSON.parse(body) as { name?: unknown }).name });
        } catch {
          return send(500, { oops: true });
        }
      }
      if (request.method === 'DELETE') {
        deleted.push(url.pathname);
        return send(204);
      }
      send(404, { code: 404, message: 'no' });
    });
  };
  let server: { baseUrl: string; close: () => Promise<void> };
  beforeAll(async () => {
    server = await listenOnLoopback(createServer(handler));
  });
  afterAll(async () => {
    await server?.close();
  });

  it('fails security, the created body and the invalid requests (limit=text taken), and deletes nothing it did not create', async () => {
    const run = await runKit({ baseUrl: server.baseUrl, apiKey: 'k', specPath: toysPath });
    expect(run.exitCode).toBe(1);
    expect(idsWith(run, 'FAIL').sort()).toEqual([
      'generic.invalid-requests:createToy',
      'generic.invalid-requests:listToys',
      'generic.no-credentials:createToy',
      'generic.no-credentials:listToys',
      'generic.valid-request:createToy',
      'generic.wrong-credentials:createToy',
      'generic.wrong-credentials:listToys',
    ]);
    expect(resultOf(run, 'generic.valid-request:createToy').message).toContain('id: required property is missing');
    expect(resultOf(run, 'generic.invalid-requests:createToy').message).toMatch(/answered 500/);
    // The created toy had no id: nothing to address, so no DELETE was sent.
    expect(resultOf(run, 'generic.valid-request:deleteToy')).toMatchObject({
      status: 'SKIP',
      message: expect.stringContaining('--allow-destructive sends it anyway'),
    });
    expect(deleted).toEqual([]);
  });
});

describe('the generic layer against a server that fails a valid request with a 5xx the document declares', () => {
  const things = `
openapi: 3.0.3
info: { title: Things, version: '1' }
servers: [{ url: /v1 }]
paths:
  /things:
    get:
      operationId: listThings
      responses:
        '200': { description: ok, content: { application/json: { schema: { type: array } } } }
        '500': { description: broken, content: { application/json: { schema: { type: object } } } }
`;
  let server: { baseUrl: string; close: () => Promise<void> };
  beforeAll(async () => {
    server = await listenOnLoopback(
      createServer((_request, response) => {
        response.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"boom"}');
      }),
    );
  });
  afterAll(async () => {
    await server?.close();
  });

  it('fails it: a declared 500 gives a failure its shape, it does not make it a right answer (was INFO)', async () => {
    const path = join(directory, 'things.yaml');
    await writeFile(path, things);
    const run = await runKit({ baseUrl: server.baseUrl, apiKey: 'k', specPath: path });
    expect(resultOf(run, 'generic.valid-request:listThings')).toMatchObject({
      status: 'FAIL',
      message: expect.stringContaining('a valid request was answered 500'),
    });
    expect(run.exitCode).toBe(1);
  });
});

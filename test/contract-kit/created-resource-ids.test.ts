import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GenericRequestBuilder, genericOperations } from '../../contract-tests/lib/generic-requests.js';
import { RefusedRequest } from '../../contract-tests/lib/resource-path.js';
import { compileSpecDefinition } from '../../spec/compile-spec.js';
import { createDataGenerator } from '../../spec/data-generator.js';
import { parseSpecText } from '../../spec/load-spec.js';
import { listenOnLoopback } from './support/loopback.js';
import { resultOf, runKit } from './support/run-kit.js';

/**
 * The generic layer finds the id of what it created, and never sends an empty path segment. A
 * conforming server may name a created resource's id otherwise than `id`, nest it in an envelope,
 * answer a creation with another schema (a token), or give an empty string where its schema allows
 * one (Box and Mastodon served by our mock did: `PUT /lists/` then met a 405, reported as FAILs).
 * The server records every request as it arrived.
 */
const document = `
openapi: 3.0.3
info: { title: Ids, version: '1' }
servers: [{ url: /v1 }]
paths:
  /lists:
    post:
      operationId: createList
      responses: { '201': { description: created, content: { application/json: { schema: { type: object, properties: { id: { type: string } } } } } } }
  /lists/{list_id}:
    put:
      operationId: updateList
      parameters: [{ name: list_id, in: path, required: true, schema: { type: string }, example: '7' }]
      responses: { '200': { description: updated } }
    delete:
      operationId: deleteList
      parameters: [{ name: list_id, in: path, required: true, schema: { type: string }, example: '7' }]
      responses: { '204': { description: gone } }
  /lists/{list_id}/accounts:
    post:
      operationId: addListAccounts
      parameters: [{ name: list_id, in: path, required: true, schema: { type: string }, example: '7' }]
      responses: { '200': { description: added } }
  /notes:
    post:
      operationId: createNote
      responses: { '201': { description: created, content: { application/json: { schema: { type: object } } } } }
  /notes/{noteId}:
    delete:
      operationId: deleteNote
      parameters: [{ name: noteId, in: path, required: true, schema: { type: string } }]
      responses: { '204': { description: gone } }
  /accounts:
    post:
      operationId: register
      responses: { '200': { description: a token, not an account, content: { application/json: { schema: { type: object } } } } }
  /accounts/{id}:
    delete:
      operationId: deleteAccount
      parameters: [{ name: id, in: path, required: true, schema: { type: string }, example: '9' }]
      responses: { '204': { description: gone } }
`;

/** What each creation answers: an empty id, an id named otherwise and nested, a body of another schema. */
const creations: Record<string, unknown> = {
  '/v1/lists': { id: '', title: 'empty id' },
  '/v1/notes': { data: { note_id: 'n-1', owner: { id: 'someone-else' } } },
  '/v1/accounts': { access_token: 'token', token_type: 'Bearer' },
};
const received: { method: string; url: string }[] = [];

function handler(request: IncomingMessage, response: ServerResponse): void {
  request.resume();
  request.on('end', () => {
    const url = request.url ?? '';
    received.push({ method: request.method ?? '', url });
    const created = request.method === 'POST' ? creations[url] : undefined;
    if (created !== undefined) {
      response.writeHead(url === '/v1/accounts' ? 200 : 201, { 'content-type': 'application/json' });
      return void response.end(JSON.stringify(created));
    }
    response.writeHead(request.method === 'DELETE' ? 204 : 200);
    response.end();
  });
}

let directory: string;
let specPath: string;
let server: { baseUrl: string; close: () => Promise<void> };
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'created-ids-'));
  specPath = join(directory, 'ids.yaml');
  await writeFile(specPath, document);
  server = await listenOnLoopback(createServer(handler));
});
afterAll(async () => {
  await server?.close();
  await rm(directory, { recursive: true, force: true });
});

/** A path below the base with an empty segment: `//` inside, or a `/` just before the end or the query (the kit's probe of the base `/v1/` aside). */
const emptySegment = /^\/v1\/.*(\/\/|\/(\?|$))/;

describe('the id of a created resource, as the generic layer finds it', () => {
  for (const allowDestructive of [false, true])
    it(`sends no empty path segment and reports no FAIL${allowDestructive ? ', with --allow-destructive' : ''}`, async () => {
      received.length = 0;
      const run = await runKit({ baseUrl: server.baseUrl, apiKey: 'k', specPath, allowDestructive, runId: 'ids' });
      expect(received.filter((request) => emptySegment.test(request.url))).toEqual([]);
      expect(run.report.results.filter((result) => result.status === 'FAIL')).toEqual([]);
      // Nested and named otherwise: found, and the DELETE goes to it.
      expect(received).toContainEqual({ method: 'DELETE', url: '/v1/notes/n-1' });
      expect(resultOf(run, 'generic.valid-request:deleteNote').status).toBe('PASS');
      if (allowDestructive) return;
      // An empty id, or a creation answered with another schema: nothing sent, and the check says why.
      expect(received.filter((request) => /^\/v1\/(lists|accounts)\//.test(request.url))).toEqual([]);
      for (const id of ['updateList', 'deleteList', 'addListAccounts']) {
        const result = resultOf(run, `generic.valid-request:${id}`);
        expect(result.status, id).toBe('SKIP');
        expect(result.message).toContain('the 2xx to POST /lists gives id as an empty string');
      }
      expect(resultOf(run, 'generic.valid-request:deleteAccount').message).toContain(
        'the 2xx to POST /accounts names no id',
      );
    });

  it('a builder given an empty path value refuses to build the request', () => {
    const spec = compileSpecDefinition(parseSpecText(document));
    const update = genericOperations(spec).find((operation) => operation.id === 'updateList')!;
    const builder = new GenericRequestBuilder(update, createDataGenerator(1), { list_id: '' });
    expect(() => builder.valid({ kind: 'none' })).toThrow(RefusedRequest);
    expect(() => builder.valid({ kind: 'none' })).toThrow(/no value for its path parameter list_id/);
  });

  it('a path key with a #fragment is not sent, and the check says the fragment is why (not a dot segment)', () => {
    const fragments = `
openapi: 3.0.3
info: { title: Fragments, version: '1' }
paths:
  /shared_items#folders:
    get: { operationId: folders, responses: { '200': { description: a folder } } }
`;
    const [folders] = genericOperations(compileSpecDefinition(parseSpecText(fragments)));
    const builder = new GenericRequestBuilder(folders!, createDataGenerator(1));
    expect(() => builder.valid({ kind: 'none' })).toThrow(RefusedRequest);
    expect(() => builder.valid({ kind: 'none' })).toThrow(/#fragment, which no request carries/);
  });
});

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsedPath, pathSegment } from '../../contract-tests/lib/resource-path.js';
import { listenOnLoopback } from './support/loopback.js';
import { resultOf, runKit } from './support/run-kit.js';

/**
 * Issue 40, row 9 and item 6: the kit's destructive calls go only to what the run created. A server
 * that names a created resource `.` or `..` must not turn the kit's PUT and DELETE into requests on
 * the collection or on the API root (a URL parser removes dot segments), with or without
 * --allow-destructive. The server records every request exactly as it arrived.
 */
const things = `
openapi: 3.0.3
info: { title: Things, version: '1' }
servers: [{ url: /v1 }]
paths:
  /things:
    post:
      operationId: createThing
      requestBody: { required: true, content: { application/json: { schema: { type: object } } } }
      responses:
        '201': { description: created, content: { application/json: { schema: { type: object, required: [id], properties: { id: { type: string } } } } } }
  /things/{thingId}:
    put:
      operationId: replaceThing
      parameters: [{ name: thingId, in: path, required: true, schema: { type: string } }]
      requestBody: { required: true, content: { application/json: { schema: { type: object } } } }
      responses: { '200': { description: replaced } }
    delete:
      operationId: deleteThing
      parameters: [{ name: thingId, in: path, required: true, schema: { type: string } }]
      responses: { '204': { description: gone } }
`;

/** Every PUT and DELETE the server received: its raw target, and the path a normalising server would serve. */
const changes: { method: string; raw: string; normalised: string }[] = [];
let createdName = '.';

function handler(request: IncomingMessage, response: ServerResponse): void {
  request.resume();
  request.on('end', () => {
    const raw = request.url ?? '';
    if (request.method === 'PUT' || request.method === 'DELETE')
      changes.push({ method: request.method, raw, normalised: new URL(raw, 'http://x').pathname });
    if (request.method === 'POST' && raw === '/v1/things') {
      response.writeHead(201, { 'content-type': 'application/json' });
      return void response.end(JSON.stringify({ id: createdName }));
    }
    response.writeHead(request.method === 'DELETE' ? 204 : 200, { 'content-type': 'application/json' });
    response.end(request.method === 'DELETE' ? undefined : '{}');
  });
}

let directory: string;
let specPath: string;
let server: { baseUrl: string; close: () => Promise<void> };
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'created-paths-'));
  specPath = join(directory, 'things.yaml');
  await writeFile(specPath, things);
  server = await listenOnLoopback(createServer(handler));
});
afterAll(async () => {
  await server?.close();
  await rm(directory, { recursive: true, force: true });
});

describe('a created resource is addressed below its collection, or not at all', () => {
  for (const name of ['.', '..', '../x', '%2e%2e', '%2E', './..'])
    for (const allowDestructive of [false, true])
      it(`a resource named ${JSON.stringify(name)}${allowDestructive ? ', with --allow-destructive' : ''}: no PUT or DELETE reaches the collection or the API root`, async () => {
        createdName = name;
        changes.length = 0;
        const run = await runKit({ baseUrl: server.baseUrl, apiKey: 'k', specPath, allowDestructive, runId: 'dots' });
        for (const change of changes) {
          // Raw and as a normalising server reads it: one segment below /v1/things, never the collection or the root.
          expect(change.raw, `${change.method} ${change.raw}`).toMatch(/^\/v1\/things\/[^/?]+(\?|$)/);
          expect(change.normalised, `${change.method} ${change.raw}`).toMatch(/^\/v1\/things\/[^/]+$/);
        }
        const put = resultOf(run, 'generic.valid-request:replaceThing');
        const del = resultOf(run, 'generic.valid-request:deleteThing');
        if (name === '.' || name === '..') {
          // Not sent: the check says why, as INFO.
          expect(changes).toEqual([]);
          for (const result of [put, del]) {
            expect(result.status).toBe('INFO');
            expect(result.message).toMatch(/^not sent: (PUT|DELETE) \/things\/%2E(%2E)? would reach \//);
          }
        } else {
          expect(changes.map((change) => change.raw)).toContain(`/v1/things/${encodeURIComponent(name)}`);
        }
      });
});

describe('the path segment the kit writes', () => {
  it('encodes a value as one segment, a dots-only one included, and names what a parser would make of a path', () => {
    expect(pathSegment('..')).toBe('%2E%2E');
    expect(pathSegment('.')).toBe('%2E');
    expect(pathSegment('../x')).toBe('..%2Fx');
    expect(pathSegment('a.b')).toBe('a.b');
    expect(parsedPath('/things/%2E%2E')).toBe('/');
    expect(parsedPath('/things/%2e')).toBe('/things/');
    expect(parsedPath('/things/..%2Fx')).toBeUndefined();
    expect(parsedPath('/things/a%20b?x=1')).toBeUndefined();
  });
});

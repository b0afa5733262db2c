import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSpecText, readSpecFile } from '../../spec/load-spec.js';
import { replayAgainstMockApp } from '../../src/cli/replay-command.js';
import { parseMockConfig } from '../../src/core/config/mock-config.js';
import { compileSpec } from '../../src/core/spec/compiled-spec.js';
import { routedPath } from '../../src/core/spec/path-key.js';
import { createRouter } from '../../src/core/spec/router.js';
import { type RunningMockServer, startMockServer } from '../../src/server/start-server.js';
import { realSpecs } from '../support/real-specs.js';

// Issue 42: path keys with a query of their own, as OpenAI writes its betas beside the plain
// operations (`/responses` and `/responses?beta=true`): a request carrying the key's query reaches
// the key's operation, one without it the plain one; a key with no plain twin answers only when
// its query holds. A member path below (`/things/{id}`) still gives a creation its Location.
const text = (example: string) =>
  `{'200': {description: ok, content: {text/plain: {schema: {type: string}, example: ${example}}}}}`;
const document = `openapi: 3.1.0
info: {title: Query in path keys, version: '1'}
paths:
  /items:
    get: {responses: ${text('plain')}}
  /items?beta=true:
    get: {responses: ${text('beta')}}
  /items/{id}:
    get: {responses: ${text('plain-item')}}
  /items/{id}?beta=true:
    get: {responses: ${text('beta-item')}}
  /preview?channel=early:
    get: {responses: ${text('preview')}}
  /things?beta=true:
    post:
      responses:
        '201':
          description: made
          headers: {Location: {schema: {type: string}}}
          content: {application/json: {schema: {type: object, required: [id], properties: {id: {type: string}}}, example: {id: t-1}}}
  /things/{thingId}:
    get: {responses: ${text('thing')}}
`;

const quiet = { info() {}, debug() {}, warn() {}, error() {} };
let mock: RunningMockServer;
beforeAll(async () => {
  mock = await startMockServer({ port: 0, seed: 1, spec: parseSpecText(document), logger: quiet });
});
afterAll(() => mock.close());

const get = async (target: string) => {
  const response = await fetch(`${mock.origin}${target}`);
  return [response.status, await response.text()];
};

describe('a served document with query path keys', () => {
  it('answers the key with the query when the request carries it, the plain key when it does not', async () => {
    expect(await get('/items')).toEqual([200, 'plain']);
    expect(await get('/items?beta=true')).toEqual([200, 'beta']);
    expect(await get('/items?limit=2&beta=true')).toEqual([200, 'beta']);
    expect(await get('/items?beta=false')).toEqual([200, 'plain']);
    expect(await get('/items/7')).toEqual([200, 'plain-item']);
    expect(await get('/items/7?beta=true')).toEqual([200, 'beta-item']);
  });

  it('answers a key with no plain twin when its query holds, 404 when it does not', async () => {
    expect(await get('/preview?channel=early')).toEqual([200, 'preview']);
    const [status, body] = await get('/preview');
    expect(status).toBe(404);
    expect(JSON.parse(String(body))).toMatchObject({ status: 404 });
  });

  it('gives a creation under a query key the Location of its member path', async () => {
    const response = await fetch(`${mock.origin}/things?beta=true`, { method: 'POST' });
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe('/things/t-1');
  });
});

/** Documents of ../shared/real-specs whose path keys carry a query (a cheap look at the text first: only those are compiled). */
const withQueryKeys = realSpecs().filter((spec) =>
  /^\s*["']?\/[^\s"':]*\?[^\s"':]*["']?\s*:/m.test(readFileSync(spec.file, 'utf8')),
);

describe.skipIf(withQueryKeys.length === 0)('the real documents with query path keys', () => {
  it.each(withQueryKeys.map((spec) => [spec.name, spec.file] as const))(
    '%s: each such key is reached with its query, its plain twin without it',
    { timeout: 120_000 },
    async (_, file) => {
      const { operations } = compileSpec(await readSpecFile(file));
      const route = createRouter(operations);
      const keyed = operations.filter((operation) => operation.pathTemplate.includes('?'));
      expect(keyed.length).toBeGreaterThan(0);
      for (const operation of keyed) {
        const path = routedPath(operation.pathTemplate).replace(/\{[^}]+\}/g, 'p1');
        const query = operation.pathTemplate.slice(operation.pathTemplate.indexOf('?') + 1);
        const withQuery = route(operation.method, path, query);
        expect(withQuery.kind === 'operation' && withQuery.operation.operationId, operation.pathTemplate).toBe(
          operation.operationId,
        );
        const twin = operations.find(
          (other) => other.method === operation.method && other.pathTemplate === routedPath(operation.pathTemplate),
        );
        const without = route(operation.method, path, '');
        if (twin !== undefined)
          expect(without.kind === 'operation' && without.operation.operationId).toBe(twin.operationId);
        else expect(without.kind === 'operation' && without.operation.operationId).not.toBe(operation.operationId);
      }
    },
  );
});

describe('a replay counts a request under the key its query meets', () => {
  it('covers `/items?beta=true` and `/preview?channel=early` as their own operations', async () => {
    const request = (url: string, atMs: number) => ({
      atMs,
      method: 'GET',
      url,
      headers: {},
      body: null,
      client: 'anonymous 127.0.0.1',
      kind: 'anonymous' as const,
      plan: 'anonymous',
      limits: null,
      key: null,
      clientAddress: '127.0.0.1',
      recordedStatus: 200,
    });
    const start = Date.parse('2026-01-01T00:00:00Z');
    const result = await replayAgainstMockApp(
      [request('/items?beta=true', start), request('/preview?channel=early', start + 1), request('/items', start + 2)],
      parseMockConfig({}),
      parseSpecText(document),
    );
    const covered = result.report.coverage.operations.map(({ path, statuses }) => [
      path,
      statuses.map((s) => s.status),
    ]);
    expect(covered).toEqual(
      expect.arrayContaining([
        ['/items?beta=true', [200]],
        ['/preview?channel=early', [200]],
        ['/items', [200]],
      ]),
    );
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startMockServer } from '../../src/server/start-server.js';
import { corpusMockConfig } from '../support/kit-corpus.js';
import { resultOf, runKit } from './support/run-kit.js';

// OpenAI's document writes path keys with a query of their own (`/responses/{id}?beta=true`): the
// generic layer sent `?beta=true?limit=...`, so the invalid value never reached the server as a
// parameter and the check failed a mock that refuses it (found by `npm run corpus:kit-all`). Like
// OpenAI's, the document has the same operation without the query; our mock routes both there.
const folder = mkdtempSync(join(tmpdir(), 'query-path-key-'));
const specPath = join(folder, 'openapi.yaml');
writeFileSync(
  specPath,
  `openapi: 3.1.0
info: {title: Query in a path key, version: '1'}
paths:
  /items:
    get:
      operationId: listItems
      parameters: [{name: limit, in: query, schema: {type: integer}}]
      responses:
        '200': {description: ok, content: {application/json: {schema: {type: array, items: {type: string}}}}}
        '400': {description: bad}
  /items?beta=true:
    get:
      operationId: listBetaItems
      parameters: [{name: limit, in: query, schema: {type: integer}}]
      responses:
        '200': {description: ok, content: {application/json: {schema: {type: array, items: {type: string}}}}}
        '400': {description: bad}
`,
);
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('a path key with a query of its own', () => {
  it('gets its parameters after an &, and the invalid one is refused', async () => {
    const quiet = { info() {}, debug() {}, warn() {}, error() {} };
    const mock = await startMockServer({ port: 0, seed: 1, specPath, config: corpusMockConfig, logger: quiet });
    try {
      const run = await runKit({ baseUrl: mock.baseUrl, apiKey: 'demo-enterprise', specPath, invalidCases: 3 });
      const invalid = resultOf(run, 'generic.invalid-requests:listBetaItems');
      expect(invalid.status, invalid.message).toBe('PASS');
      expect(
        run.report.results
          .filter((result) => result.status === 'FAIL')
          .map((result) => `${result.id}: ${result.message}`),
      ).toEqual([]);
    } finally {
      await mock.close();
    }
  });
});

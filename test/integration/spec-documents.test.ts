import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createDataGenerator } from '../../spec/data-generator.js';
import { parseSpecText, readSpecFile } from '../../spec/load-spec.js';
import { createMockApp } from '../../src/core/mock-app.js';
import type { Logger } from '../../src/core/types.js';
import { validRequest } from './document-requests.js';

// The corpus of public documents (test/fixtures/specs): the mock starts on every one and answers
// one request per operation, with and without credentials, never with a 5xx.

const corpusDirectory = fileURLToPath(new URL('../fixtures/specs/', import.meta.url));
const corpus = JSON.parse(readFileSync(`${corpusDirectory}sources.json`, 'utf8')) as {
  name: string;
  file: string;
  operations: number;
  features: string[];
}[];

function collectingLogger(): Logger & { warnings: string[]; errors: string[] } {
  const warnings: string[] = [];
  const errors: string[] = [];
  return {
    warnings,
    errors,
    info() {},
    debug() {},
    warn: (message) => warnings.push(message),
    error: (message) => errors.push(message),
  };
}

describe.each(corpus)('the corpus document $name', ({ file, operations, features }) => {
  it('starts, with every operation of the document served', async () => {
    const logger = collectingLogger();
    const app = createMockApp({ spec: await readSpecFile(`${corpusDirectory}${file}`), logger });
    expect(app.spec.operations).toHaveLength(operations);
    // Unknown formats are annotations, said in one line at start.
    if (features.includes('unknown-formats'))
      expect(logger.warnings.filter((line) => line.startsWith('Unknown formats'))).toHaveLength(1);
    else expect(logger.warnings.filter((line) => line.startsWith('Unknown formats'))).toEqual([]);
  });

  it('answers one request per operation, with and without credentials, never with a 5xx', async () => {
    const logger = collectingLogger();
    const app = createMockApp({ spec: await readSpecFile(`${corpusDirectory}${file}`), logger });
    const data = createDataGenerator(7);
    const failures: string[] = [];
    for (const operation of app.spec.operations) {
      for (const withCredentials of [true, false]) {
        const response = await app.handle(await validRequest(operation, app.basePath, data, { withCredentials }));
        if (response.status >= 500)
          failures.push(
            `${operation.operationId} (${withCredentials ? 'with' : 'without'} credentials): ${response.status} ${response.body?.slice(0, 200)}`,
          );
        // Without credentials, an operation that requires them answers 401 with a challenge.
        if (!withCredentials && operation.requiresAuth && response.status !== 401)
          failures.push(`${operation.operationId} without credentials: ${response.status}, expected 401`);
        if (response.status === 401 && response.headers['WWW-Authenticate'] === undefined)
          failures.push(`${operation.operationId}: 401 without WWW-Authenticate`);
      }
    }
    expect(failures).toEqual([]);
    expect(logger.errors).toEqual([]);
  }, 180_000);
});

// Start-up time and memory of each document (the largest, discord, ready in under 5 s) are measured
// by `npm run bench:corpus`, not by a timed test.

describe('the OpenAPI 3.0 example of docs/mock.md', () => {
  const page = readFileSync(fileURLToPath(new URL('../../docs/mock.md', import.meta.url)), 'utf8');
  const yaml = /cat > pets-3\.0\.yaml <<'YAML'\n([\s\S]*?)\nYAML\n/.exec(page)![1]!;

  it('answers as the page says', async () => {
    const app = createMockApp({ spec: parseSpecText(yaml) });
    const get = (url: string, headers: Record<string, string> = {}) =>
      app.handle({ method: 'GET', url, headers, body: null, clientAddress: '127.0.0.1' });
    expect((await get('/api/pets/2', { 'x-api-key': 'demo-free' })).body).toBe('{"name":"Rex","tag":null}');
    const anonymous = await get('/api/pets/2');
    expect([anonymous.status, anonymous.headers['WWW-Authenticate']]).toEqual([
      401,
      'ApiKey realm="Pets", in="header", name="X-API-Key"',
    ]);
    const one = await get('/api/pets/1', { 'x-api-key': 'demo-free' });
    expect([one.status, JSON.parse(one.body!).message]).toEqual([400, 'Invalid path parameter id: must be > 1']);
  });
});

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runMockCli } from './support/spec-cli.js';

// Issue 40 row 11: the memory of a loaded document bounded by its size. 100,000 one-line operations
// (15 MB of JSON, 14 MB of YAML, about 900,000 nodes: under half the node bound) ran out of the 512 MB
// heap docs/security.md calls enough: in JSON 567 MB stayed after start (the resolved document a copy
// of the source, a Map of #fragment alternatives per path, two closures per parameter), and YAML took
// about 2 GB to read (the yaml library's syntax tree). Now both start in that heap and serve.

/**
 * The heap docs/security.md states: 512 MB, except YAML on Node 22 and later, whose V8 holds js-yaml's
 * values larger (measured on Node 24.22: 512 MB starts but the first request runs out; 600 MB serves).
 */
function heapMegabytes(format: 'json' | 'yaml'): number {
  return format === 'yaml' && Number(process.versions.node.split('.')[0]) >= 22 ? 640 : 512;
}

/** One operation a line: `GET /r{i}/{id}` with its path parameter and a 200. */
function oneLineOperations(count: number, format: 'json' | 'yaml'): string {
  const lines: string[] = [];
  for (let index = 0; index < count; index += 1)
    lines.push(
      format === 'json'
        ? `"/r${index}/{id}":{"get":{"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],"responses":{"200":{"description":"ok"}}}}`
        : `  "/r${index}/{id}": {get: {parameters: [{name: id, in: path, required: true, schema: {type: string}}], responses: {"200": {description: ok}}}}`,
    );
  return format === 'json'
    ? `{"openapi":"3.1.0","info":{"title":"Many","version":"1"},"servers":[{"url":"/v1"}],"paths":{\n${lines.join(',\n')}\n}}`
    : `openapi: 3.1.0\ninfo: {title: Many, version: "1"}\nservers: [{url: /v1}]\npaths:\n${lines.join('\n')}\n`;
}

it.each(['json', 'yaml'] as const)(
  'starts on 100,000 one-line operations (%s) in the documented heap, and serves the last one',
  { timeout: 300_000 },
  async (format) => {
    const folder = await mkdtemp(join(tmpdir(), 'petstore-many-'));
    const file = join(folder, `many.${format}`);
    await writeFile(file, oneLineOperations(100_000, format));
    const run = await runMockCli(['--spec', file], 280_000, {
      nodeArgs: [`--max-old-space-size=${heapMegabytes(format)}`],
      cleanup: () => rm(folder, { recursive: true, force: true }),
    });
    expect(run.outcome, JSON.stringify(run).slice(0, 1_000)).toBe('listening');
    if (run.outcome !== 'listening') return;
    try {
      const response = await fetch(`${run.origin}/v1/r99999/abc`, {
        headers: { authorization: 'Bearer demo-enterprise' },
        signal: AbortSignal.timeout(30_000),
      });
      expect(response.status).toBe(200);
    } finally {
      await run.stop();
    }
  },
);

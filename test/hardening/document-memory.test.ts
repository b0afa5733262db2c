import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runMockCli } from './support/spec-cli.js';

// Issue 40 row 11: the memory of a loaded document bounded by its size. 50,000 one-line operations
// (16 MB of JSON, about 450,000 nodes: a fifth of the node bound) ran out of a 512 MB heap on the code
// before (three copies of every response map at 2.5 KB each, a dictionary-mode object per validator
// getter, a Map per router leaf and per media); now the mock starts on it in that heap and serves it.

/** One operation a line: `GET /r{i}/{id}` with its path parameter and a 200. */
function oneLineOperations(count: number): string {
  const lines: string[] = [];
  for (let index = 0; index < count; index += 1)
    lines.push(
      `"/r${index}/{id}":{"get":{"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],"responses":{"200":{"description":"ok"}}}}`,
    );
  return `{"openapi":"3.1.0","info":{"title":"Many","version":"1"},"servers":[{"url":"/v1"}],"paths":{\n${lines.join(',\n')}\n}}`;
}

it('starts on 50,000 one-line operations in a 512 MB heap, and serves the last one', { timeout: 240_000 }, async () => {
  const folder = await mkdtemp(join(tmpdir(), 'petstore-many-'));
  const file = join(folder, 'many.json');
  await writeFile(file, oneLineOperations(50_000));
  const run = await runMockCli(['--spec', file], 200_000, {
    nodeArgs: ['--max-old-space-size=512'],
    cleanup: () => rm(folder, { recursive: true, force: true }),
  });
  expect(run.outcome, JSON.stringify(run).slice(0, 1_000)).toBe('listening');
  if (run.outcome !== 'listening') return;
  try {
    const response = await fetch(`${run.origin}/v1/r49999/abc`, {
      headers: { authorization: 'Bearer demo-enterprise' },
      signal: AbortSignal.timeout(30_000),
    });
    expect(response.status).toBe(200);
  } finally {
    await run.stop();
  }
});

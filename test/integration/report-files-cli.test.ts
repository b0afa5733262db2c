import { spawnSync } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// petstore-mock and its proxy given a --report that names the document they serve from: refused at
// start (exit 2, one line), the document untouched. Before, both started, and the report replaced the
// document at shutdown.

const root = join(import.meta.dirname, '../..');
let dir: string;
let spec: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mock-report-files-'));
  spec = join(dir, 'api.yaml');
  await copyFile(join(root, 'spec/petstore.openapi.yaml'), spec);
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

function runMock(args: string[]) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'src/cli/mock-cli.ts'), ...args], {
    cwd: root,
    env: { ...process.env, PORT: '' },
    encoding: 'utf8',
    // A mock that started anyway is stopped (SIGTERM: its shutdown writes the report).
    timeout: 15_000,
  });
  return { code: result.status, stderr: result.stderr };
}

describe('--report over the served document', () => {
  it.each([
    ['the mock', ['--port', '0', '--spec', '<spec>', '--report', 'json=<spec>']],
    ['the proxy', ['proxy', 'http://127.0.0.1:9/v1', '--port', '0', '--spec', '<spec>', '--report', 'markdown=<spec>']],
  ])('%s refuses it at start and leaves the document whole', async (_label, template) => {
    const before = await readFile(spec, 'utf8');
    const { code, stderr } = runMock(template.map((arg) => arg.replaceAll('<spec>', spec)));
    expect(code, stderr).toBe(2);
    expect(stderr).toContain(`: it is a file the run reads (${spec}); the report would overwrite it`);
    expect(stderr.trimEnd().split('\n')[0]).toMatch(/^petstore-mock( proxy)?: Failed to use --report (json|markdown)=/);
    expect(await readFile(spec, 'utf8')).toBe(before);
  });
});

import { execFileSync } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakePetstore, fakeKeys, startFakePetstore } from './support/fake-petstore.js';
import { runCli } from './support/run-cli.js';

// `--report FORMAT=FILE` of petstore-contract pointed at what it must never write: the document the
// run reads, one file by two spellings, a named pipe nobody reads. Each is refused before the run
// (exit 2, one line) and leaves the file as it was; on the kit before spec/report-file.ts, the first
// two were written over after a whole run and the third waited for ever.

const root = join(import.meta.dirname, '../..');
let server: FakePetstore;
let dir: string;
const file = (name: string) => join(dir, name);

beforeAll(async () => {
  server = await startFakePetstore({});
  dir = await mkdtemp(join(tmpdir(), 'contract-report-files-'));
  await copyFile(join(root, 'spec/petstore.openapi.yaml'), file('api.yaml'));
  await symlink(file('api.yaml'), file('api-link.json'));
  await symlink('out.json', file('out-link.xml'));
  execFileSync('mkfifo', [file('pipe')]);
});

afterAll(async () => {
  await Promise.all([server?.close(), dir === undefined ? undefined : rm(dir, { recursive: true, force: true })]);
});

const run = (...reports: string[]) =>
  runCli([
    '--base-url',
    server.baseUrl,
    '--api-key',
    fakeKeys.main,
    '--read-only',
    '--spec',
    file('api.yaml'),
    ...reports.map((report) => `--report=${report}`),
  ]);

describe('report files of petstore-contract', () => {
  it('refuses a report written over the --spec document, by its name or through a link, and leaves it whole', async () => {
    const before = await readFile(file('api.yaml'), 'utf8');
    for (const target of [file('api.yaml'), file('api-link.json')]) {
      const result = await run(`json=${target}`);
      expect(result.code).toBe(2);
      expect(result.stderr.trim()).toBe(
        `petstore-contract: Failed to use --report json=${target}: it is a file the run reads (${file('api.yaml')}); the report would overwrite it`,
      );
    }
    expect(await readFile(file('api.yaml'), 'utf8')).toBe(before);
  });

  it('refuses two reports in one file by two spellings, and a named pipe nobody reads, before the run', async () => {
    // A link to a report not written yet: the link and the name it points to are one file.
    const twice = await run(`json=${file('out.json')}`, `junit=${file('out-link.xml')}`);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain(`it is the same file as --report json=${file('out.json')}`);
    const pipe = await run(`html=${file('pipe')}`);
    expect(pipe.code).toBe(2);
    expect(pipe.stderr).toContain('it is a named pipe nobody reads');
  });
});

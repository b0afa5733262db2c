import { execFileSync } from 'node:child_process';
import { chmod, link, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportFilesProblem, writeReportFile } from './report-file.js';

// `--report FORMAT=FILE` paths as an attacker (or a tired CI author) spells them.

let dir: string;
const file = (path: string, option = `--report json=${path}`) => ({ path: join(dir, path), option });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'report-file-'));
  await writeFile(join(dir, 'api.yaml'), 'openapi: 3.1.0\n');
  await writeFile(join(dir, 'old.json'), '{"old":true}\n');
  await mkdir(join(dir, 'folder'));
  await symlink(join(dir, 'old.json'), join(dir, 'link.json'));
  await symlink(join(dir, 'api.yaml'), join(dir, 'api-link.yaml'));
  await link(join(dir, 'old.json'), join(dir, 'hard.json'));
  await symlink('folder/../later.json', join(dir, 'dangling.json'));
  execFileSync('mkfifo', [join(dir, 'pipe')]);
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('report files', () => {
  it('refuses one file named twice by another spelling: ./a and a, a symlink, a hard link', async () => {
    const twice = async (a: string, b: string) =>
      reportFilesProblem([file(a, `--report json=${a}`), file(b, `--report junit=${b}`)], []);
    expect(await twice('new.json', './new.json')).toBe(
      'Failed to use --report junit=./new.json: it is the same file as --report json=new.json; give each report its own file',
    );
    expect(await twice('old.json', 'link.json')).toMatch(/link\.json: it is the same file as --report json=old\.json/);
    expect(await twice('old.json', 'hard.json')).toMatch(/hard\.json: it is the same file as/);
    expect(await twice('folder/../new.json', 'new.json')).toMatch(/same file/);
    expect(await twice('later.json', 'dangling.json')).toMatch(/dangling\.json: it is the same file as/);
    expect(await twice('a.json', 'b.json')).toBeUndefined();
  });

  it('refuses a report over a file the run reads (its --spec document, by any spelling)', async () => {
    const spec = join(dir, 'api.yaml');
    expect(await reportFilesProblem([file('api.yaml')], [spec])).toBe(
      `Failed to use --report json=api.yaml: it is a file the run reads (${spec}); the report would overwrite it`,
    );
    expect(await reportFilesProblem([file('api-link.yaml')], [spec])).toMatch(/a file the run reads/);
    expect(await reportFilesProblem([file('api.yaml')], [join(dir, 'api-link.yaml')])).toMatch(/a file the run reads/);
  });

  it('refuses a directory, a missing folder, a named pipe nobody reads and a block device before the run', async () => {
    expect(await reportFilesProblem([file('folder')], [])).toMatch(/folder: it is a directory$/);
    expect(await reportFilesProblem([file('none/a.json')], [])).toMatch(/the directory .*none does not exist$/);
    expect(await reportFilesProblem([file('pipe')], [])).toMatch(/a named pipe nobody reads/);
    const block = (await readdir('/dev')).find((name) => /^(loop0|sda|vda|nvme0n1)$/.test(name));
    if (block !== undefined)
      expect(await reportFilesProblem([{ path: `/dev/${block}`, option: 'x' }], [])).toMatch(/a block device/);
    expect(await reportFilesProblem([{ path: '/dev/null', option: '--report json=/dev/null' }], [])).toBeUndefined();
  });

  it('writes a report whole or not at all: a failed write leaves the old file, and no temporary file', async () => {
    await writeReportFile(join(dir, 'old.json'), '{"new":1}\n');
    expect(await readFile(join(dir, 'old.json'), 'utf8')).toBe('{"new":1}\n');
    // Through the symlink: the file it names is replaced, the link stays a link.
    await writeReportFile(join(dir, 'link.json'), '{"new":2}\n');
    expect(await readFile(join(dir, 'old.json'), 'utf8')).toBe('{"new":2}\n');
    expect((await import('node:fs')).lstatSync(join(dir, 'link.json')).isSymbolicLink()).toBe(true);
    // /dev/full takes no byte: the write fails, as a full disk does; a regular file's old text stays.
    await expect(writeReportFile('/dev/full', 'x'.repeat(10))).rejects.toThrow(/ENOSPC/);
    // A disk that fills mid-write (a 1 KB file size limit): the old report stays whole, as it was.
    const mode = (await stat(join(dir, 'old.json'))).mode & 0o777;
    const script = `import('./spec/report-file.ts').then((m) => m.writeReportFile(process.argv[1], 'x'.repeat(5000))).then(() => console.log('written'), (e) => console.log(e.code))`;
    const outcome = execFileSync(
      'bash',
      ['-c', 'ulimit -f 1; exec "$0" --import tsx -e "$1" "$2"', process.execPath, script, join(dir, 'old.json')],
      {
        cwd: join(import.meta.dirname, '..'),
        encoding: 'utf8',
      },
    );
    expect(outcome.trim()).toBe('EFBIG');
    expect(await readFile(join(dir, 'old.json'), 'utf8')).toBe('{"new":2}\n');
    expect((await stat(join(dir, 'old.json'))).mode & 0o777).toBe(mode);
    expect((await readdir(dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    // A writable file in a folder that takes no new file is still written (in place).
    await mkdir(join(dir, 'locked'));
    await writeFile(join(dir, 'locked', 'given.json'), 'old');
    await chmod(join(dir, 'locked'), 0o555);
    try {
      if (process.getuid?.() !== 0) {
        expect(await reportFilesProblem([file('locked/given.json')], [])).toBeUndefined();
        await writeReportFile(join(dir, 'locked', 'given.json'), 'new');
        expect(await readFile(join(dir, 'locked', 'given.json'), 'utf8')).toBe('new');
      }
    } finally {
      await chmod(join(dir, 'locked'), 0o755);
    }
  });
});

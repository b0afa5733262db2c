import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReplayCommand } from './replay-command.js';
import { reportTargetsProblem, serverReportTargets } from './report-option.js';

// `--report` of petstore-mock, its proxy and its replay pointed at the files the command reads.

let dir: string;
const recording = JSON.stringify({
  log: {
    version: '1.2',
    creator: { name: 'test', version: '1' },
    entries: [0, 1, 2].map((second) => ({
      startedDateTime: new Date(Date.UTC(2026, 3, 1, 12, 0, second)).toISOString(),
      request: {
        method: 'GET',
        url: 'https://api.example.com/v1/categories',
        httpVersion: 'HTTP/1.1',
        headers: [{ name: 'Authorization', value: 'Bearer demo-free' }],
      },
      response: { status: 200 },
    })),
  },
});

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'server-report-option-'));
  await writeFile(join(dir, 'incident.har'), recording);
  await symlink(join(dir, 'incident.har'), join(dir, 'incident-link.json'));
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The replay's files on disk, its output kept. */
function diskIo() {
  const io = {
    out: '',
    err: '',
    stdout: (text: string) => {
      io.out += text;
    },
    stderr: (text: string) => {
      io.err += text;
    },
    readFile: (path: string) => readFile(path, 'utf8'),
    writeFile: (path: string, text: string) => writeFile(path, text),
  };
  return io;
}

describe('--report of the mock, the proxy and the replay', () => {
  it('replay refuses a report over the recording it reads, by its name or a link, and leaves the recording whole', async () => {
    const har = join(dir, 'incident.har');
    for (const target of [har, join(dir, 'incident-link.json')]) {
      const io = diskIo();
      expect(await runReplayCommand([har, '--report', `json=${target}`], io)).toBe(2);
      expect(io.err).toBe(
        `petstore-mock replay: Failed to use --report json=${target}: it is a file the run reads (${har}); the report would overwrite it\n`,
      );
    }
    expect(await readFile(har, 'utf8')).toBe(recording);
    // The same run with its report elsewhere is written.
    const io = diskIo();
    expect(await runReplayCommand([har, '--report', `json=${join(dir, 'report.json')}`], io), io.err).toBe(0);
    expect(JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')).clients).toHaveLength(1);
  });

  it('names one file given twice through a link, and a directory', async () => {
    const targets = serverReportTargets(
      [`json=${join(dir, 'a.json')}`, `junit=${join(dir, 'a-link.xml')}`],
      ['json', 'junit'],
    );
    expect(Array.isArray(targets)).toBe(true);
    await symlink('a.json', join(dir, 'a-link.xml'));
    expect(await reportTargetsProblem(targets as never, [])).toMatch(
      /a-link\.xml: it is the same file as --report json=.*a\.json; give each report its own file$/,
    );
    expect(await reportTargetsProblem([{ format: 'json', path: dir }], [])).toMatch(/it is a directory$/);
  });
});

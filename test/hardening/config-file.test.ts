import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readConfigFile } from '../../src/server/start-server.js';
import { cpuTimed } from '../support/fastest-run.js';

/**
 * Issue 10, items 3 and 8: a config error names the file and the position, quotes at most a short
 * escaped excerpt, and never a line of a file that is not YAML at all (`--config /etc/shadow` must
 * not print the file); a config beyond a sane size is refused in one line, and no error lists more
 * than a summary of the keys.
 */
const folder = mkdtempSync(join(tmpdir(), 'petstore-config-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

function file(name: string, content: string | Buffer): string {
  const path = join(folder, name);
  writeFileSync(path, content);
  return path;
}

async function failureOf(path: string): Promise<string> {
  try {
    await readConfigFile(path);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${path} was accepted`);
}

// Secrets that must never reach an error line: each file holds them on every line.
const shadow = `${['root:$6$Zm9vYmFy$s3cr3tHashRoot:19000:0:99999:7:::', 'daemon:*:19000:0:99999:7:::', 'alice:$6$c2FsdA$s3cr3tHashAlice:19500:0:99999:7:::'].join('\n')}\n`;
const secretPattern = /s3cr3t|\$6\$|root:|alice|daemon|hunter2|BEGIN|PRIVATE|password/i;

describe('errors never quote a file that is not a config (item 3)', () => {
  const notConfigs: [string, string | Buffer][] = [
    ['shadow', shadow],
    ['passwd-like', 'root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/sh\n'],
    ['env file', 'DB_PASSWORD=hunter2\nAPI_TOKEN=s3cr3t-token\n'],
    ['ini with a colon per line', '[db]\npassword: hunter2\nuser: root\n'],
    [
      'private key',
      '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQs3cr3t\n-----END OPENSSH PRIVATE KEY-----\n',
    ],
    ['syntax error in a non-config', 'password: hunter2\n  s3cr3t: [unclosed\n\troot: x\n'],
    ['a list', '- hunter2\n- s3cr3t\n'],
    ['binary', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x00, 0x73, 0x33, 0x63, 0x72, 0x33, 0x74])],
    ['invalid UTF-8', Buffer.concat([Buffer.from('password: hunter2\n'), Buffer.from([0xff, 0xfe, 0x00])])],
    [
      'alias bomb',
      'a: &a [s3cr3t, s3cr3t]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n',
    ],
    ['unresolved alias', 'plans: *s3cr3t\n'],
  ];

  it.each(notConfigs)('%s: one line naming the file, with none of its content', async (_name, content) => {
    const path = file(`${_name.replace(/\W/g, '-')}.yaml`, content);
    const message = await failureOf(path);
    expect(message.startsWith(`Failed to load config ${path}: `), message).toBe(true);
    expect(message).not.toContain('\n');
    expect(message.slice(message.indexOf(path) + path.length), message).not.toMatch(secretPattern);
    expect(message.length).toBeLessThan(400);
  });

  it('a config with a syntax error: the line and column, and at most a short escaped excerpt', async () => {
    const path = file('typo.yaml', `seedCategories: 2\nplans:\n  pro: {perMinute: 1\n  \u0007${'z'.repeat(200)}: 1\n`);
    const message = await failureOf(path);
    expect(message).toMatch(/at line \d+, column \d+/);
    expect(message).not.toContain('\n');
    expect(message).not.toContain('\u0007');
    expect(message).not.toContain('z'.repeat(41));
  });

  it('a duplicate key is reported with its position', async () => {
    const message = await failureOf(file('duplicate.yaml', 'seedCategories: 1\nplans: {}\nseedCategories: 2\n'));
    expect(message).toMatch(/at line 3, column 1 \(Map keys must be unique\)/);
  });

  it('unknown keys of a real config: a few, shortened and escaped', async () => {
    const path = file('extra.yaml', `seedCategories: 2\n"${'k'.repeat(100)}": 1\n"bell\\a": 2\n`);
    const message = await failureOf(path);
    expect(message).toContain('Unrecognized keys');
    expect(message).not.toContain('k'.repeat(31));
    expect(message).not.toContain('\u0007');
  });

  it('the CLI prints one line for --config pointing at a shadow file, and exits 2', () => {
    const path = file('etc-shadow', shadow);
    const result = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'src/cli/mock-cli.ts', '--port', '0', '--config', path],
      { cwd: projectRoot, encoding: 'utf8', timeout: 20_000 },
    );
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    const lines = result.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('npm warn'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(path);
    expect(lines[0]!.slice(lines[0]!.indexOf(path) + path.length)).not.toMatch(secretPattern);
  });
});

describe('configs beyond a sane size (item 8)', () => {
  it('a 50 MB config is refused in one line, unread, in well under a few seconds', async () => {
    const line = 'k0000000: 1\n';
    const path = file('huge.yaml', Buffer.from(line.repeat(Math.ceil((50 * 1024 * 1024) / line.length))));
    // CPU time of this process (a loaded machine stretches the wall clock, not the work); reading 50 MB took seconds.
    const { value: message, cpuMs } = await cpuTimed(() => failureOf(path));
    expect(cpuMs, `refused in ${cpuMs.toFixed(0)} ms of CPU`).toBeLessThan(3_000);
    expect(message).toMatch(/larger than 1048576 bytes/);
    expect(message).not.toContain('\n');
    expect(message.length).toBeLessThan(300);
  });

  it('a config under the bounds with 10,000 unknown keys in YAML, 60,000 in JSON: a summary of the keys, not the keys', async () => {
    let yaml = 'seedCategories: 1\n';
    for (let index = 0; index < 10_000; index += 1) yaml += `u${index}: 1\n`;
    const json = JSON.stringify(
      Object.fromEntries([['seedCategories', 1], ...Array.from({ length: 60_000 }, (_, index) => [`u${index}`, 1])]),
    );
    for (const [name, text, more] of [
      ['many-keys.yaml', yaml, 9_997],
      ['many-keys.json', json, 59_997],
    ] as const) {
      const { value: message, cpuMs } = await cpuTimed(() => failureOf(file(name, text)));
      // Linear: yaml's own duplicate-key check took minutes here.
      expect(cpuMs, `${name} read in ${cpuMs.toFixed(0)} ms of CPU`).toBeLessThan(15_000);
      expect(message).toMatch(new RegExp(`Unrecognized keys: "u0", "u1", "u2" and ${more} more`));
      expect(message.length).toBeLessThan(400);
    }
  });

  it('a YAML config over 128 Ki characters is refused in one line naming the bound, unparsed', async () => {
    let yaml = 'seedCategories: 1\n';
    for (let index = 0; index < 60_000; index += 1) yaml += `u${index}: 1\n`;
    const { value: message, cpuMs } = await cpuTimed(() => failureOf(file('too-much-yaml.yaml', yaml)));
    expect(cpuMs, `refused in ${cpuMs.toFixed(0)} ms of CPU`).toBeLessThan(3_000);
    expect(message).toMatch(
      /invalid YAML \(the YAML is \d+ characters, more than the 131072 read; as JSON, up to 1048576 are read\)$/,
    );
  });

  it('many bad fields: the first few problems and a count of the rest', async () => {
    const keys = Array.from({ length: 500 }, (_, index) => `  - { key: k${index}, plan: nope${index} }`).join('\n');
    const path = file(
      'many-problems.yaml',
      `keys:\n${keys}\nplans:\n${Array.from({ length: 500 }, (_, index) => `  p${index}: { perMinute: 0, perDay: 0 }`).join('\n')}\n`,
    );
    const message = await failureOf(path);
    expect(message).toMatch(/and \d+ more problems/);
    expect(message.length).toBeLessThan(1_000);
  });
});

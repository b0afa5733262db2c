import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

// docs/mock.md's "From Prism" table, row by row: each Prism command line is run as a user types it,
// and is accepted (the mock serves, with the row's one line) or refused (exit 2, the row's one line).

const spec = 'spec/petstore.openapi.yaml';
const cli = ['--import', 'tsx', 'src/cli/mock-cli.ts'];

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI; once its banner's last line is out, `whileServing` runs against it, then SIGTERM. */
function runCli(args: readonly string[], whileServing?: (origin: string) => Promise<void>): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...cli, ...args], { env: { ...process.env, PORT: '' } });
    let stdout = '';
    let stderr = '';
    let serving = false;
    const killer = setTimeout(() => child.kill('SIGKILL'), 25_000);
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
      if (serving || !/Ctrl\+C stops/.test(stdout)) return;
      serving = true;
      const origin = /listening on (http:\/\/[^/\s]+)\/v1/.exec(stdout)![1]!;
      void (whileServing?.(origin) ?? Promise.resolve())
        .catch((error: unknown) => {
          stderr += `check failed: ${(error as Error).message}\n`;
        })
        .finally(() => child.kill('SIGTERM'));
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** `variant`: another spelling or value of the row's option, whose line the table does not quote. */
type Run = { variant?: true } & (
  | { args: string[]; accepted: string | null; check?: (origin: string) => Promise<void> }
  | { args: string[]; refused: string }
);

const errorsLine =
  '--errors: already how the mock works: a request that breaks the document is answered 4xx in its error shape, never served anyway';
const noErrorsLine =
  'petstore-mock: --no-errors is not supported: the mock always answers a request that breaks the document with a 4xx; it cannot serve it anyway';
const ignoreExamplesLine =
  "petstore-mock: --ignoreExamples is not supported: answers come from the document's examples first; -d/--dynamic (or Prefer: dynamic=true) generates them from the schema";

async function categoriesStatus(origin: string): Promise<void> {
  const response = await fetch(`${origin}/v1/categories`, { headers: { authorization: 'Bearer demo-free' } });
  expect(response.status).toBe(200);
}

async function preflight(origin: string): Promise<string | null> {
  const response = await fetch(`${origin}/v1/categories`, {
    method: 'OPTIONS',
    headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'GET' },
  });
  return response.headers.get('access-control-allow-origin');
}

/** The table's first column, as written in docs/mock.md, and the command lines that try it. */
const rows: Record<string, Run[]> = {
  '`mock FILE`': [{ args: ['mock', spec, '-p', '0'], accepted: null, check: categoriesStatus }],
  'a document URL (`mock https://...`)': [
    {
      args: ['mock', 'https://...'],
      refused:
        'petstore-mock: the spec must be a file, got the URL https://...: download it first (curl -fsSLo openapi.yaml URL)',
    },
  ],
  '`-p, --port N`': [
    { args: ['mock', spec, '-p', '0'], accepted: null },
    { args: ['mock', spec, '--port=0'], accepted: null },
  ],
  '`-h, --host HOST`': [
    { args: ['mock', spec, '-p', '0', '-h', '127.0.0.1'], accepted: null, check: categoriesStatus },
  ],
  '`-d, --dynamic`': [{ args: ['mock', spec, '-p', '0', '-d'], accepted: null, check: categoriesStatus }],
  '`--errors`': [
    {
      args: ['mock', spec, '-p', '0', '--errors'],
      accepted: errorsLine,
      // What --errors asks of Prism: a request that breaks the document is answered 4xx, not served.
      check: async (origin) => {
        const response = await fetch(`${origin}/v1/categories`, {
          method: 'POST',
          headers: { authorization: 'Bearer demo-free', 'content-type': 'application/json' },
          body: '{"name": 7}',
        });
        expect(response.status).toBe(400);
        expect(((await response.json()) as { code: string }).code).toBe('validation_failed');
      },
    },
    { args: ['mock', spec, '-p', '0', '--errors=true'], accepted: errorsLine },
  ],
  '`--no-errors`': [
    { args: ['mock', spec, '--no-errors'], refused: noErrorsLine },
    { args: ['mock', spec, '--errors=false'], refused: noErrorsLine, variant: true },
  ],
  '`--cors`': [
    {
      args: ['mock', spec, '-p', '0', '--cors'],
      accepted: '--cors: already the default (Access-Control-* headers; preflights answered, not counted)',
      check: async (origin) => expect(await preflight(origin)).toBe('*'),
    },
  ],
  '`--no-cors`': [
    {
      args: ['mock', spec, '-p', '0', '--no-cors'],
      accepted: '--no-cors: no Access-Control-* headers; a preflight is answered as any OPTIONS request',
      check: async (origin) => expect(await preflight(origin)).toBeNull(),
    },
  ],
  '`-m, --multiprocess`': [
    { args: ['mock', spec, '-p', '0', '-m'], accepted: '--multiprocess: ignored: the mock serves from one process' },
    {
      args: ['mock', spec, '-p', '0', '--multiprocess'],
      accepted: '--multiprocess: ignored: the mock serves from one process',
    },
  ],
  '`-v, --verboseLevel LEVEL`': [
    {
      args: ['mock', spec, '-p', '0', '-v', 'debug'],
      accepted: '--verboseLevel debug: read as --verbose (every request logged)',
    },
    {
      args: ['mock', spec, '-p', '0', '--verbose-level=info'],
      accepted: '--verboseLevel info: the default',
      variant: true,
    },
    {
      args: ['mock', spec, '--verboseLevel', 'loud'],
      refused:
        'petstore-mock: --verboseLevel must be one of trace, debug, info, warn, error, fatal, silent, got "loud"',
      variant: true,
    },
  ],
  '`--json-schema-faker-fillProperties`': [
    {
      args: ['mock', spec, '--json-schema-faker-fillProperties'],
      refused:
        "petstore-mock: --json-schema-faker-fillProperties is not supported: the mock's generator has no such switch (-d/--dynamic draws data afresh)",
    },
  ],
  '`--ignoreExamples`': [
    { args: ['mock', spec, '--ignoreExamples'], refused: ignoreExamplesLine },
    { args: ['mock', spec, '--ignore-examples'], refused: ignoreExamplesLine, variant: true },
    { args: ['mock', spec, '-p', '0', '--no-ignoreExamples'], accepted: null },
  ],
  '`--seed SEED`': [
    { args: ['mock', spec, '-p', '0', '--seed', '7'], accepted: null },
    {
      args: ['mock', spec, '--seed', 'abc'],
      refused: 'petstore-mock: --seed must be an integer from 0 to 2147483647, got "abc"',
    },
  ],
  '`--help`, `--version`': [],
};

/** The "From Prism" table of docs/mock.md: its first cell, and the whole row. */
async function documentedRows(): Promise<Map<string, string>> {
  const page = await readFile('docs/mock.md', 'utf8');
  const section = page.slice(page.indexOf('### From Prism'));
  const table = section.slice(section.indexOf('\n|')).split('\n\n')[0]!.trim().split('\n').slice(2);
  return new Map(table.map((line) => [line.split(' | ')[0]!.replace(/^\| /, ''), line]));
}

/** -d/--dynamic comes with the examples-and-stable-data work: its row runs once --help lists it (skipped, and said, until then). */
const hasDynamicFlag = (await runCli(['--help'])).stdout.includes('--dynamic');

/** Runs each accepted command line of a row: served, no error, the row's one line printed and quoted in the table. */
async function checkAccepted(prism: string, runs: Run[]): Promise<void> {
  const row = (await documentedRows()).get(prism)!;
  for (const run of runs) {
    if (!('accepted' in run)) continue;
    const { code, stdout, stderr } = await runCli(run.args, run.check);
    expect(stderr, run.args.join(' ')).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+\/v1/);
    if (run.accepted !== null) {
      expect(stdout).toContain(`[petstore-mock] ${run.accepted}\n`);
      if (!run.variant) expect(row).toContain(run.accepted);
    }
  }
}

describe('docs/mock.md "From Prism", row by row', () => {
  it('has a tested row for every option of Prism 5 `prism mock`, and no other', async () => {
    expect([...(await documentedRows()).keys()]).toEqual(Object.keys(rows));
  });

  it.each(Object.entries(rows).filter(([, runs]) => runs.some((run) => 'refused' in run)))(
    '%s: refused with exit 2 and the one line the table says',
    async (prism, runs) => {
      const row = (await documentedRows()).get(prism)!;
      for (const run of runs) {
        if (!('refused' in run)) continue;
        const { code, stdout, stderr } = await runCli(run.args);
        expect(code, run.args.join(' ')).toBe(2);
        expect(stderr).toBe(`${run.refused}\n`);
        expect(stdout).toBe('');
        if (!run.variant) expect(row).toContain(run.refused);
      }
    },
  );

  const acceptedRows = Object.entries(rows).filter(([, runs]) => runs.some((run) => 'accepted' in run));
  // -d/--dynamic is skipped (and says so) until --help lists it; then its row runs like the others.
  const dynamicRow = acceptedRows.filter(([prism]) => prism === '`-d, --dynamic`');
  const otherRows = acceptedRows.filter(([prism]) => prism !== '`-d, --dynamic`');
  it.skipIf(!hasDynamicFlag).each(dynamicRow)('%s: accepted, served (once --help lists it)', async (prism, runs) =>
    checkAccepted(prism, runs),
  );
  it.each(otherRows)('%s: accepted, served, with the one line the table says', checkAccepted);

  it('`--help`, `--version`: the same as Prism, after `mock` too', async () => {
    const help = await runCli(['mock', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^petstore-mock: /);
    const { version } = JSON.parse(await readFile('package.json', 'utf8')) as { version: string };
    for (const flag of ['--version', '-v']) {
      const printed = await runCli(['mock', flag]);
      expect(printed.code).toBe(0);
      expect(printed.stdout).toBe(`petstore-mock ${version}\n`);
    }
  });
});

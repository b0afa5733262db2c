import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupPetstoreServer } from '../../mocks/node.js';
import { readSpecFile } from '../../spec/load-spec.js';
import { runMockCli, type SpecRun } from './support/spec-cli.js';

// Issue 40, rows 10, 12, 13 and 14: documents that try to make the mock read what it should not, block
// its start, or hand a backtracking engine a request. Each refusal is one line naming the file (or the
// reference and where it is), exit 2, no stack trace. On the code before: row 12 never started (the
// test's budget ran out), row 13 read /dev/zero until the heap gave out, row 14 served the outside
// file, row 10 started and one value blocked the process for seconds.

/** "Does not hang": the refusals come in well under this; the old code ran into it. */
const budgetMs = 15_000;
let folder: string;

const entry = (paths: string) =>
  `openapi: 3.1.0\ninfo: {title: Hostile, version: '1'}\nservers: [{url: /v1}]\npaths:\n${paths}\n`;
const refTo = (target: string) =>
  entry(
    `  /x: {get: {responses: {'200': {description: ok, content: {application/json: {schema: {$ref: '${target}'}}}}}}}`,
  );

async function write(name: string, text: string): Promise<string> {
  const path = join(folder, name);
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, text);
  return path;
}

/** The run exited 2 with one line on stderr matching `line`, and nothing else. */
function expectRefusal(run: SpecRun, line: RegExp): void {
  if (run.outcome === 'listening') void run.stop();
  expect(run.outcome, JSON.stringify(run).slice(0, 2_000)).toBe('exited');
  if (run.outcome !== 'exited') return;
  expect(run.code).toBe(2);
  const lines = run.stderr.trimEnd().split('\n');
  expect(lines, run.stderr.slice(0, 2_000)).toHaveLength(1);
  expect(lines[0]).toMatch(line);
  expect(run.stderr).not.toMatch(/\n\s+at /);
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'petstore-hostile-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('a document and its references are regular files, read bounded (rows 12, 13)', () => {
  it('refuses a $ref to a named pipe at once, and a document that is one (row 12)', async () => {
    execFileSync('mkfifo', [join(folder, 'pipe.yaml')]);
    const api = await write('pipe-api.yaml', refTo('pipe.yaml'));
    expectRefusal(
      await runMockCli(['--spec', api], budgetMs),
      /^petstore-mock: Failed to resolve \$ref pipe\.yaml at #\/paths\/~1x\/.*: \/.*\/pipe\.yaml: it is not a regular file$/,
    );
    expectRefusal(
      await runMockCli(['--spec', join(folder, 'pipe.yaml')], budgetMs),
      /^petstore-mock: Failed to load spec \/.*\/pipe\.yaml: it is not a regular file$/,
    );
    // The MSW setup reads synchronously, with the same checks.
    expect(() => setupPetstoreServer({ specPath: join(folder, 'pipe.yaml') })).toThrow(
      /^Failed to load spec \/.*\/pipe\.yaml: it is not a regular file$/,
    );
    expect(() => setupPetstoreServer({ specPath: '/dev/zero' })).toThrow(
      'Failed to load spec /dev/zero: it is not a regular file',
    );
  });

  it('refuses a $ref to a link to /dev/zero unread, and a document that is one (row 13)', async () => {
    await symlink('/dev/zero', join(folder, 'zero.yaml'));
    const api = await write('zero-api.yaml', refTo('zero.yaml'));
    // Outside the folder first; allowed there, the device is still not a regular file.
    expectRefusal(
      await runMockCli(['--spec', api], budgetMs),
      /: \/.*\/zero\.yaml \(a link to \/dev\/zero\) is outside the document's folder .*; name the folder with --allow-refs-outside DIR to read it$/,
    );
    expectRefusal(
      await runMockCli(['--spec', api, '--allow-refs-outside', '/dev'], budgetMs),
      /^petstore-mock: Failed to resolve \$ref zero\.yaml at .*: \/.*\/zero\.yaml: it is not a regular file$/,
    );
    expectRefusal(
      await runMockCli(['--spec', join(folder, 'zero.yaml')], budgetMs),
      /^petstore-mock: Failed to load spec \/.*\/zero\.yaml: it is not a regular file$/,
    );
  });

  it('refuses a referenced file over 16 MiB, counting what it reads', async () => {
    await write('big.yaml', `type: string\ndescription: '${'x'.repeat(16 * 1024 * 1024)}'\n`);
    await expect(readSpecFile(await write('big-api.yaml', refTo('big.yaml')))).rejects.toThrow(
      /: \/.*\/big\.yaml: the file is larger than 16777216 bytes \(16 MiB\): refused unread; expected a JSON or YAML file$/,
    );
  });
});

describe("$refs stay in the document's folder unless --allow-refs-outside (row 14)", () => {
  beforeAll(async () => {
    await write('outside/secret.yaml', 'type: string\nexamples: [the-secret-text]\n');
    await write('api/inner/pet.yaml', 'type: string\nexamples: [inner-text]\n');
    await symlink(join(folder, 'outside', 'secret.yaml'), join(folder, 'api', 'linked.yaml'));
  });

  it('refuses ../, an absolute path and a link that leads out, naming the file and the flag', async () => {
    for (const target of ['../outside/secret.yaml', join(folder, 'outside', 'secret.yaml'), 'linked.yaml']) {
      const api = await write('api/openapi.yaml', refTo(target));
      await expect(readSpecFile(api), target).rejects.toThrow(
        /^Failed to resolve \$ref .* at #\/paths\/~1x\/get\/responses\/200\/content\/application~1json\/schema: \/.*\.yaml( \(a link to \/.*\/outside\/secret\.yaml\))? is outside the document's folder \/.*\/api; name the folder with --allow-refs-outside DIR to read it$/,
      );
    }
    expectRefusal(
      await runMockCli(['--spec', await write('api/openapi.yaml', refTo('../outside/secret.yaml'))], budgetMs),
      /^petstore-mock: Failed to resolve \$ref \.\.\/outside\/secret\.yaml at .* is outside the document's folder/,
    );
  });

  it('reads the folder and below, and a folder named with --allow-refs-outside', async () => {
    const inner = await readSpecFile(await write('api/openapi.yaml', refTo('inner/pet.yaml')));
    expect(JSON.stringify(inner)).toContain('inner-text');
    const api = await write('api/openapi.yaml', refTo('../outside/secret.yaml'));
    const allowed = await readSpecFile(api, { allowRefsOutside: [join(folder, 'outside')] });
    expect(JSON.stringify(allowed)).toContain('the-secret-text');
    const run = await runMockCli(['--spec', api, '--allow-refs-outside', join(folder, 'outside')], budgetMs);
    expect(run.outcome, JSON.stringify(run).slice(0, 2_000)).toBe('listening');
    if (run.outcome === 'listening') await run.stop();
  });
});

describe('patterns are linear, all of them (row 10)', () => {
  const patternSpec = entry(
    `  /x/{id}: {get: {parameters: [{name: id, in: path, required: true, schema: {type: string, pattern: '^(a+)+(?<=a)$'}}], responses: {'200': {description: ok, content: {application/json: {schema: {type: string}}}}}}}`,
  );

  it('refuses at start, in one line naming the pattern and where it is, a pattern RE2 cannot run', async () => {
    expectRefusal(
      await runMockCli(['--spec', await write('lookbehind.yaml', patternSpec)], budgetMs),
      /^petstore-mock: Failed to compile spec: pattern "\^\(a\+\)\+\(\?<=a\)\$" cannot be matched in time linear in the value \(RE2 cannot run it: .*\); .*--unsafe-patterns.* at #\/paths\/~1x~1\{id\}\/get\/parameters\/0\/schema\/pattern$/,
    );
    const keyed = entry(
      `  /y: {get: {responses: {'200': {description: ok, content: {application/json: {schema: {type: object, patternProperties: {'^(\\w)\\1$': {type: string}}}}}}}}}`,
    );
    expectRefusal(
      await runMockCli(['--spec', await write('backreference.yaml', keyed)], budgetMs),
      /^petstore-mock: Failed to compile spec: pattern "\^\(\\\\w\)\\\\1\$" cannot be matched .* at #\/paths\/~1y\/.*\/schema$/,
    );
  });

  it('serves lookaheads at the start as the conjunction they mean, linear in the value (Sonarr: ^(?!api/).*)', async () => {
    const lookaheads = entry(
      `  /z: {get: {parameters: [{name: path, in: query, required: true, schema: {type: string, pattern: '^(?!api/).*'}}, {name: code, in: query, schema: {type: string, pattern: '^(?=.*[A-Z])(?=.*\\d)(a|A|1)+$'}}], responses: {'200': {description: ok, content: {application/json: {schema: {type: string}}}}}}}`,
    );
    const run = await runMockCli(['--spec', await write('lookaheads.yaml', lookaheads)], budgetMs);
    expect(run.outcome, JSON.stringify(run).slice(0, 2_000)).toBe('listening');
    if (run.outcome !== 'listening') return;
    try {
      const status = async (query: string) =>
        (
          await fetch(`${run.origin}/v1/z?${query}`, {
            headers: { authorization: 'Bearer demo-enterprise' },
            signal: AbortSignal.timeout(10_000),
          })
        ).status;
      expect(await status('path=movies')).toBe(200);
      expect(await status('path=api%2Fmovies')).toBe(400);
      expect(await status('path=ap&code=aA1')).toBe(200);
      expect(await status('path=ap&code=aa1')).toBe(400);
      // A backtracking engine takes 2^40 steps on this value; the conjunction is linear.
      expect(await status(`path=ap&code=${'a'.repeat(40)}A1!`)).toBe(400);
    } finally {
      await run.stop();
    }
  });

  it('with --unsafe-patterns, answers a value that spends the budget 400, and keeps serving', async () => {
    const run = await runMockCli(
      ['--spec', await write('lookbehind.yaml', patternSpec), '--unsafe-patterns'],
      budgetMs,
    );
    expect(run.outcome, JSON.stringify(run).slice(0, 2_000)).toBe('listening');
    if (run.outcome !== 'listening') return;
    try {
      const get = async (id: string) => {
        const response = await fetch(`${run.origin}/v1/x/${id}`, {
          headers: { authorization: 'Bearer demo-enterprise' },
          signal: AbortSignal.timeout(10_000),
        });
        return { status: response.status, json: (await response.json()) as { message: string } };
      };
      // 40 characters: about 2^40 steps for a backtracking engine without a budget.
      const spent = await get(`${'a'.repeat(40)}!`);
      expect(spent.status).toBe(400);
      expect(spent.json).toEqual({
        code: 'invalid_parameter',
        message: 'Invalid path parameter id: the pattern ^(a+)+(?<=a)$ spent its budget of 50 ms on one value',
        status: 400,
      });
      expect((await get('aaa')).status).toBe(200);
      expect((await get('baa')).status).toBe(400);
    } finally {
      await run.stop();
    }
  });
});

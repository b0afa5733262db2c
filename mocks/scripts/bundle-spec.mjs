#!/usr/bin/env node
// Turns spec/petstore.openapi.yaml into data a browser can import, at build time, so there is never
// a second, hand-kept copy of the spec and no `fs` in browser code paths.
//
//   node mocks/scripts/bundle-spec.mjs --out dist/mocks        # writes petstore-spec.js + .d.ts
//   import { bundleSpec } from './mocks/scripts/bundle-spec.mjs'; await bundleSpec({ outDir: 'dist/mocks' });
//   esbuild: plugins: [petstoreSpecPlugin()]  # `import { petstoreSpec } from 'virtual:petstore-spec'`
//
// Plain .mjs (no TypeScript) so the lead's `node scripts/build.mjs` can call it without a loader.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse } from 'yaml';

/** The kit's own spec. */
export const defaultSpecPath = fileURLToPath(new URL('../../spec/petstore.openapi.yaml', import.meta.url));

/** Import specifiers the esbuild plugin answers with the bundled spec. */
export const specSpecifiers = ['virtual:petstore-spec', 'petstore-kit/mocks/spec'];

/**
 * Reads and parses the spec (YAML or JSON) and checks it is OpenAPI 3.1, with the same messages as
 * spec/load-spec.ts.
 *
 * @example const document = await readSpecDocument(); // { openapi: '3.1.0', ... }
 */
export async function readSpecDocument(specPath = defaultSpecPath) {
  let text;
  try {
    text = await readFile(specPath, 'utf8');
  } catch (error) {
    throw new Error(`Failed to load spec ${specPath}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`);
  }
  let document;
  try {
    document = parse(text, { maxAliasCount: 100 });
  } catch (error) {
    throw new Error(`Failed to load spec ${specPath}: ${error.message.split('\n')[0]}`);
  }
  if (document === null || typeof document !== 'object' || Array.isArray(document))
    throw new Error(`Failed to load spec ${specPath}: the document is not an object`);
  if (typeof document.openapi !== 'string' || !document.openapi.startsWith('3.1')) {
    throw new Error(
      `Failed to load spec ${specPath}: expected "openapi: 3.1.x", found ${JSON.stringify(document.openapi)}`,
    );
  }
  return document;
}

/**
 * An ES module exporting the document as `petstoreSpec` (and default).
 *
 * @example specModuleSource({ openapi: '3.1.0' }) // 'export const petstoreSpec = JSON.parse(...)'
 */
export function specModuleSource(document, source = 'spec/petstore.openapi.yaml') {
  // JSON.parse of one string literal is parsed faster than an object literal of the same size.
  return `// Generated from ${source} by mocks/scripts/bundle-spec.mjs. Do not edit: change the YAML.\nexport const petstoreSpec = JSON.parse(${JSON.stringify(JSON.stringify(document))});\nexport default petstoreSpec;\n`;
}

/**
 * The declaration of that module. `typesFrom` is where `OpenApiDocument` is imported from: the
 * package's own `petstore-kit/mocks` in the published package.
 *
 * @example specDeclarationSource('petstore-kit/mocks')
 */
export function specDeclarationSource(typesFrom = 'petstore-kit/mocks') {
  return `import type { OpenApiDocument } from '${typesFrom}';\n/** The Petstore OpenAPI document, parsed at build time from spec/petstore.openapi.yaml. */\nexport declare const petstoreSpec: OpenApiDocument;\nexport default petstoreSpec;\n`;
}

/**
 * Writes `petstore-spec.js` and `petstore-spec.d.ts` into `outDir` (for the package's
 * `./mocks/spec` export).
 *
 * @example await bundleSpec({ outDir: 'dist/mocks' });
 */
export async function bundleSpec({ specPath = defaultSpecPath, outDir, typesFrom = 'petstore-kit/mocks' }) {
  if (!outDir) throw new Error('Failed to bundle the spec: outDir is required');
  const document = await readSpecDocument(specPath);
  await mkdir(outDir, { recursive: true });
  const js = join(outDir, 'petstore-spec.js');
  const dts = join(outDir, 'petstore-spec.d.ts');
  await writeFile(js, specModuleSource(document));
  await writeFile(dts, specDeclarationSource(typesFrom));
  return { js, dts };
}

/**
 * esbuild plugin: `import { petstoreSpec } from 'virtual:petstore-spec'` (or
 * `'petstore-kit/mocks/spec'`) becomes the spec, parsed at bundle time.
 *
 * @example await esbuild.build({ entryPoints: ['main.ts'], bundle: true, plugins: [petstoreSpecPlugin()] });
 */
export function petstoreSpecPlugin({ specPath = defaultSpecPath } = {}) {
  const filter = new RegExp(
    `^(${specSpecifiers.map((name) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})$`,
  );
  return {
    name: 'petstore-spec',
    setup(build) {
      build.onResolve({ filter }, (args) => ({ path: args.path, namespace: 'petstore-spec' }));
      build.onLoad({ filter: /.*/, namespace: 'petstore-spec' }, async () => ({
        contents: specModuleSource(await readSpecDocument(specPath)),
        loader: 'js',
        watchFiles: [specPath],
      }));
    },
  };
}

// CLI: node mocks/scripts/bundle-spec.mjs --out DIR [--spec FILE] [--types-from SPECIFIER]
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const args = process.argv.slice(2);
  const option = (name) => {
    const index = args.indexOf(name);
    return index === -1 ? undefined : args[index + 1];
  };
  const outDir = option('--out');
  if (!outDir) {
    console.error('Usage: node mocks/scripts/bundle-spec.mjs --out DIR [--spec FILE] [--types-from SPECIFIER]');
    process.exit(2);
  }
  try {
    const written = await bundleSpec({
      outDir,
      specPath: option('--spec') ?? defaultSpecPath,
      typesFrom: option('--types-from') ?? 'petstore-kit/mocks',
    });
    console.log(`bundle-spec: wrote ${written.js} and ${written.dts}`);
  } catch (error) {
    console.error(`bundle-spec: ${error.message}`);
    process.exit(1);
  }
}

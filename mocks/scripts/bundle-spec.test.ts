import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { expect, it } from 'vitest';
import { readSpecFile } from '../../spec/load-spec.js';
import { bundleSpec, petstoreSpecPlugin, readSpecDocument } from './bundle-spec.mjs';

// The browser gets the spec as data generated from the YAML at build time, never a copy kept by hand.

it('writes a module whose petstoreSpec is the parsed YAML, with its declaration', async () => {
  const outDir = await mkdtemp(join(tmpdir(), 'petstore-spec-'));
  try {
    const { js, dts } = await bundleSpec({ outDir });
    const module = (await import(pathToFileURL(js).href)) as { petstoreSpec: unknown; default: unknown };
    expect(module.petstoreSpec).toEqual(await readSpecFile());
    expect(module.default).toBe(module.petstoreSpec);
    expect(await readFile(dts, 'utf8')).toContain("import type { OpenApiDocument } from 'petstore-kit/mocks';");
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
});

it('serves virtual:petstore-spec to esbuild', async () => {
  const result = await build({
    stdin: {
      contents: "export { petstoreSpec } from 'virtual:petstore-spec';",
      loader: 'js',
      resolveDir: process.cwd(),
    },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    logLevel: 'silent',
    plugins: [petstoreSpecPlugin()],
  });
  const url = `data:text/javascript;base64,${Buffer.from(result.outputFiles[0]!.text).toString('base64')}`;
  expect(((await import(url)) as { petstoreSpec: unknown }).petstoreSpec).toEqual(await readSpecFile());
});

it('names the file when the spec cannot be read', async () => {
  await expect(readSpecDocument('/nonexistent/petstore.yaml')).rejects.toThrow(
    'Failed to load spec /nonexistent/petstore.yaml: no such file',
  );
});

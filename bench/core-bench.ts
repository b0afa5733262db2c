#!/usr/bin/env node
/**
 * `npx tsx bench/core-bench.ts [--requests N]`: CPU time of the core alone (no HTTP) per request for
 * each bench case, in-process. The node:http cost is the same for the mock and the bare server, so
 * this is the part of `npm run bench`'s "CPU us/req" the mock adds on top of bare; it finds
 * regressions in seconds instead of minutes. Runs the core bundled by esbuild (as the package ships
 * it) so that tsx's per-function helpers do not distort the figures.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// Inside the project, so the bundle's bare imports resolve from its node_modules.
const cacheDir = join(root, 'node_modules/.cache');
mkdirSync(cacheDir, { recursive: true });
const workDir = mkdtempSync(join(cacheDir, 'core-bench-'));
try {
  const outfile = join(workDir, 'core-bench-run.mjs');
  await build({ entryPoints: [join(root, 'bench/lib/core-bench-run.ts')], bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', outfile, logLevel: 'warning' });
  const result = spawnSync(process.execPath, [outfile, '--spec', join(root, 'spec/petstore.openapi.yaml'), ...process.argv.slice(2)], { stdio: 'inherit', cwd: root });
  process.exitCode = result.status ?? 1;
} finally {
  rmSync(workDir, { recursive: true, force: true });
}

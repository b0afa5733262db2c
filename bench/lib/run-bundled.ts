import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

/**
 * Bundles a bench body with esbuild (as the package's bins are built) and runs it with plain node,
 * so the figures are those of the shipped code: under tsx every function pays for a naming helper.
 * The bundle is written inside the project so its bare imports resolve from node_modules; the
 * spec's path is passed as `--spec`. Returns the exit code.
 */
export async function runBundled(root: string, entry: string, args: readonly string[]): Promise<number> {
  const cacheDir = join(root, 'node_modules/.cache');
  mkdirSync(cacheDir, { recursive: true });
  const workDir = mkdtempSync(join(cacheDir, 'bench-'));
  try {
    const outfile = join(workDir, 'bench-run.mjs');
    await build({
      entryPoints: [join(root, entry)],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      outfile,
      logLevel: 'warning',
    });
    const result = spawnSync(process.execPath, [outfile, '--spec', join(root, 'spec/petstore.openapi.yaml'), ...args], {
      stdio: 'inherit',
      cwd: root,
    });
    return result.status ?? 1;
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

import { execFile } from 'node:child_process';
import { cp, symlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const root = resolve(import.meta.dirname, '../..');

/**
 * A copy of the project under `work` with its dist/ built (scripts/build.mjs), for tests that need the built
 * bins. A copy, because the build empties dist/ of the tree it runs in, under any test running meanwhile.
 * node_modules is linked, not copied. Resolves with the copy's path.
 */
export async function builtCopy(work: string): Promise<string> {
  const source = join(work, 'source');
  const skipped = new Set(['.git', 'node_modules', 'dist', 'test-output', 'coverage']);
  await cp(root, source, {
    recursive: true,
    filter: (path) => !skipped.has(path.slice(root.length + 1).split('/')[0]!),
  });
  await symlink(join(root, 'node_modules'), join(source, 'node_modules'), 'dir');
  await promisify(execFile)(process.execPath, ['scripts/build.mjs'], { cwd: source, timeout: 180_000 });
  return source;
}

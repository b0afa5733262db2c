import { chmod, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '../..');

/**
 * Installs petstore-kit into `project/node_modules` as npm would link it, its two bins running the
 * source through tsx (in process: the argv, exit code and signals are the bin's own). For tests of
 * what a user's pipeline runs (`npx petstore-contract`, `npx -p petstore-kit petstore-contract`,
 * the GitHub Action) without building the package; the package tests prove the built one.
 *
 * @example await installSourcePackage(project); // then: bash -c 'npx petstore-contract --help' in project
 */
export async function installSourcePackage(project: string): Promise<void> {
  const packageDir = join(project, 'node_modules', 'petstore-kit');
  await mkdir(join(packageDir, 'bin'), { recursive: true });
  await mkdir(join(project, 'node_modules', '.bin'), { recursive: true });
  const tsxApi = pathToFileURL(join(root, 'node_modules/tsx/dist/esm/api/index.mjs')).href;
  const bins = { 'petstore-mock': 'src/cli/mock-cli.ts', 'petstore-contract': 'contract-tests/cli/contract-cli.ts' };
  await writeFile(
    join(packageDir, 'package.json'),
    JSON.stringify({
      name: 'petstore-kit',
      version: '0.1.0',
      type: 'module',
      bin: Object.fromEntries(Object.keys(bins).map((name) => [name, `bin/${name}.mjs`])),
    }),
  );
  for (const [name, entry] of Object.entries(bins)) {
    const file = join(packageDir, 'bin', `${name}.mjs`);
    await writeFile(
      file,
      `#!/usr/bin/env node\nconst { register } = await import(${JSON.stringify(tsxApi)});\nregister();\nawait import(${JSON.stringify(pathToFileURL(join(root, entry)).href)});\n`,
    );
    await chmod(file, 0o755);
    await symlink(`../petstore-kit/bin/${name}.mjs`, join(project, 'node_modules', '.bin', name));
  }
  // npm exec (npx -p petstore-kit) uses an installed package only when the project lists it.
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, devDependencies: { 'petstore-kit': '0.1.0' } }),
  );
}

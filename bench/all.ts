#!/usr/bin/env node
/**
 * `npm run bench -- [options]`: the load test (`run-bench.ts`, which takes the options), then the
 * instruction count (when valgrind is installed), the core alone, the replay and the parsing of
 * every input at its size limit, each with its own defaults, stopping at the first that fails. A script of `a && b && c` would not do: npm appends the
 * arguments of `npm run bench -- ...` to its last command, so the replay bench would get them and the
 * load test none. `--quick` (a check that the harness works) and `--help` run the load test alone.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const tsxCli = createRequire(import.meta.url).resolve('tsx/cli');

function run(script: string, args: string[]): number {
  const result = spawnSync(process.execPath, [tsxCli, join(root, 'bench', script), ...args], {
    stdio: 'inherit',
    cwd: root,
  });
  if (result.error) {
    process.stderr.write(`bench: failed to start ${script}: ${result.error.message}\n`);
    return 2;
  }
  // Killed by a signal (Ctrl-C): stop here, as a shell's && would.
  return result.status ?? 1;
}

const args = process.argv.slice(2);
const followers: [script: string, args: string[]][] = [
  ['instructions-bench.ts', ['--if-available']],
  ['core-bench.ts', []],
  ['replay-bench.ts', []],
  ['parsing-bench.ts', []],
];
let status = run('run-bench.ts', args);
if (!args.includes('--quick') && !args.includes('--help')) {
  for (const [script, scriptArgs] of followers) {
    if (status !== 0) break;
    status = run(script, scriptArgs);
  }
}
process.exitCode = status;

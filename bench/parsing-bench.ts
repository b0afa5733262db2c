#!/usr/bin/env node
/**
 * `npm run bench:parsing [-- --runs N] [-- --only TEXT]`: how long each input the kit parses takes
 * in its worst shape at its size limit (scenario and config YAML and JSON, replay recordings, request
 * bodies); the target is under 1 s each on the 2-core CI machine. The work is in
 * `lib/parsing-bench-run.ts`, bundled as the `petstore-mock` bin is.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBundled } from './lib/run-bundled.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
process.exitCode = await runBundled(root, 'bench/lib/parsing-bench-run.ts', process.argv.slice(2));

#!/usr/bin/env node
/**
 * `npx tsx bench/replay-bench.ts [--requests N] [--runs N]`: how long `petstore-mock replay` takes for
 * N recorded requests (default 100,000; the target is under 5 s on the 2-core CI machine). The work
 * is in `lib/replay-bench-run.ts`, bundled as the `petstore-mock` bin is.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBundled } from './lib/run-bundled.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
process.exitCode = await runBundled(root, 'bench/lib/replay-bench-run.ts', process.argv.slice(2));

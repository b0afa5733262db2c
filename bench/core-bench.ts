#!/usr/bin/env node
/**
 * `npx tsx bench/core-bench.ts [--requests N] [--cases get,post,401,429]`: CPU time of the core alone
 * (no HTTP) per request for each bench case, in-process. node:http costs the mock what it costs the
 * bare server, so this is the part of `npm run bench`'s "CPU us/req" that the mock adds; it finds a
 * regression in seconds instead of minutes, and is far less sensitive to a busy machine.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBundled } from './lib/run-bundled.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
process.exitCode = await runBundled(root, 'bench/lib/core-bench-run.ts', process.argv.slice(2));

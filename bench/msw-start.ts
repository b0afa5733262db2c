#!/usr/bin/env node
/**
 * `npm run bench:msw`: what a fresh Node test process pays to get its first answer through
 * `petstore-kit/mocks/node` (import, `setupPetstoreServer()`, `server.listen()`, one `fetch`),
 * against the same for a plain MSW handler returning a fixed JSON. Measured on the BUILT package
 * (`dist/`, as a user installs it; run `npm run build` first), each run in a fresh process, the two
 * interleaved so a busy machine slows both alike; the medians and their ratio are printed.
 *
 * Target: at most 1.25 x the plain handler (exit 1 above it). With vitest's per-file isolation every
 * test file pays this once, so it is the kit's cost per test file.
 *
 *   npm run bench:msw                 # 15 runs each
 *   npm run bench:msw -- --runs 31
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { integerOption, optionsOrExit, parseBenchArgs } from './lib/options.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const targetRatio = 1.25;

const help = `npm run bench:msw -- [options]

What a fresh Node test process pays to get its first answer through petstore-kit/mocks/node
(import, setupPetstoreServer(), server.listen(), one fetch), against the same for a plain MSW
handler returning a fixed JSON. Measured on the built package (dist/: run npm run build first),
each run in a fresh process after one untimed run of each, the two interleaved so a busy machine
slows both alike; prints the medians and their ratio. Target: at most ${targetRatio} x the plain
handler (exits 1 above it).

Options:
  --runs N   Timed runs of each (default 15, from 1 to 1000)
  --help     Show this help
`;

const { runs } = optionsOrExit({ script: 'bench:msw', helpCommand: 'npm run bench:msw -- --help', help }, () => {
  const values = parseBenchArgs(process.argv.slice(2), {
    runs: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  return values.help ? 'help' : { runs: integerOption(values.runs, '--runs', 15, 1, 1_000) };
});
const entry = join(root, 'dist/mocks/node.js');
if (!existsSync(entry)) {
  process.stderr.write('bench:msw: dist/mocks/node.js is missing: run `npm run build` first\n');
  process.exit(2);
}

// Both scripts print the milliseconds since the process began (performance.now() counts from
// there) once the first answer is read: Node's own start is in both, as a user's test file pays it.
// The same request, check and print after each setup.
const firstAnswer = `const response = await fetch('http://localhost/v1/categories', { headers: { authorization: 'Bearer demo-free' } });
const body = await response.json();
if (response.status !== 200 || !Array.isArray(body)) throw new Error('unexpected answer ' + response.status);
console.log(performance.now());
server.close();
`;
const scripts = {
  kit: `import { setupPetstoreServer } from ${JSON.stringify(pathToFileURL(entry).href)};
const { server } = setupPetstoreServer({ seed: 42 });
server.listen({ onUnhandledRequest: 'error' });
${firstAnswer}`,
  plain: `import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
const server = setupServer(http.get('http://localhost/v1/categories', () => HttpResponse.json([{ id: 1, name: 'dog' }])));
server.listen({ onUnhandledRequest: 'error' });
${firstAnswer}`,
};

// The scripts live in the repository (bench/.msw-start-*.mjs) so that `msw` resolves from its node_modules.
const work = mkdtempSync(join(tmpdir(), 'petstore-kit-msw-start-'));
const files = {
  kit: join(root, 'bench', `.msw-start-kit-${process.pid}.mjs`),
  plain: join(root, 'bench', `.msw-start-plain-${process.pid}.mjs`),
};
writeFileSync(files.kit, scripts.kit);
writeFileSync(files.plain, scripts.plain);

function once(file: string): number {
  const run = spawnSync(process.execPath, [file], { encoding: 'utf8', cwd: work, timeout: 60_000 });
  const ms = Number(run.stdout.trim().split('\n').at(-1));
  if (run.status !== 0 || !Number.isFinite(ms))
    throw new Error(
      `bench:msw: ${file} failed (exit ${run.status}): ${run.stderr.trim().split('\n').slice(-3).join(' ')}`,
    );
  return ms;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

let status = 0;
try {
  // One untimed run each: the first run pays the disk cache, which no test file does.
  once(files.plain);
  once(files.kit);
  const times = { kit: [] as number[], plain: [] as number[] };
  for (let index = 0; index < runs; index += 1) {
    times.plain.push(once(files.plain));
    times.kit.push(once(files.kit));
  }
  const kit = median(times.kit);
  const plain = median(times.plain);
  const ratio = kit / plain;
  const line = (name: string, values: number[]) =>
    `${name.padEnd(34)} median ${median(values).toFixed(0).padStart(4)} ms  (min ${Math.min(...values).toFixed(0)}, max ${Math.max(...values).toFixed(0)})\n`;
  process.stdout.write(
    `msw start: fresh process -> import, setup, listen, first answer; node ${process.version}, msw ${(await import('msw/package.json', { with: { type: 'json' } })).default.version}, ${runs} runs each\n`,
  );
  process.stdout.write(line('plain msw handler (fixed JSON)', times.plain));
  process.stdout.write(line('petstore-kit/mocks/node', times.kit));
  const verdict = ratio <= targetRatio ? 'within' : 'OVER';
  process.stdout.write(`ratio ${ratio.toFixed(2)} x (target <= ${targetRatio} x): ${verdict}\n`);
  if (ratio > targetRatio) status = 1;
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  status = 2;
} finally {
  rmSync(files.kit, { force: true });
  rmSync(files.plain, { force: true });
  rmSync(work, { recursive: true, force: true });
}
process.exit(status);

#!/usr/bin/env node
/**
 * `npm run bench:corpus`: how long the mock takes to start on each document of the corpus
 * (test/fixtures/specs) and of ../shared/real-specs (set1, set2, where present), and the heap it then
 * holds: reading (YAML or JSON, files bundled, 3.0 and Swagger 2.0 read as 3.1), compiling and
 * assembling the app, and its first request. Each document in a fresh process, so one's caches and
 * compiled code do not help the next. The targets: the largest of the corpus (discord, 750 kB, 200
 * operations) ready in under 5 s, and each large real document (over 1 MB, or a tree of files:
 * DigitalOcean's 2,850) in under 2 s.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isLargeRealSpec, realSpecs } from '../test/support/real-specs.js';
import { optionsOrExit, parseBenchArgs } from './lib/options.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const corpus = join(root, 'test/fixtures/specs');

const help = `npm run bench:corpus -- [options]

How long the mock takes to start on each document of the corpus (test/fixtures/specs) and of
../shared/real-specs (set1, set2, where present), and the heap it then holds: reading (YAML or
JSON, files bundled, 3.0 and Swagger 2.0 read as 3.1), compiling and assembling the app, and its
first request. Each document in a fresh process, so one's caches and compiled code do not help the
next. Targets: the largest of the corpus (discord, 750 kB, 200 operations) ready in under 5 s, each
large real document (* : over 1 MB, or a tree of files) in under 2 s; exits 1 when one is not or
when a document fails. The cpu column (the process's CPU time from reading to the first answer, the
garbage collector's threads included) shows what a document costs when the machine is busy and
wall times grow.

Options:
  --one FILE   Measure FILE alone in this process and print its figures as JSON (what each
               fresh process runs; without node --expose-gc the heap figure keeps its garbage)
  --help       Show this help
`;

const { one } = optionsOrExit({ script: 'bench:corpus', helpCommand: 'npm run bench:corpus -- --help', help }, () => {
  const values = parseBenchArgs(process.argv.slice(2), {
    one: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  return values.help ? 'help' : { one: values.one };
});

if (one !== undefined) {
  const { readSpecFile } = await import('../spec/load-spec.js');
  const { createMockApp } = await import('../src/core/mock-app.js');
  globalThis.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const document = await readSpecFile(one);
  const read = performance.now();
  const app = createMockApp({ spec: document });
  const compiled = performance.now();
  const first = app.spec.operations.find(
    (operation) => operation.method === 'GET' && !operation.pathTemplate.includes('{'),
  );
  if (first) await app.handle({ method: 'GET', url: `${app.basePath}${first.pathTemplate}`, headers: {}, body: null });
  const answered = performance.now();
  const cpu = process.cpuUsage(cpuBefore);
  globalThis.gc?.();
  const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 1e6;
  process.stdout.write(
    JSON.stringify({
      cpuMs: (cpu.user + cpu.system) / 1000,
      readMs: read - started,
      compileMs: compiled - read,
      firstRequestMs: answered - compiled,
      heapMb,
      operations: app.spec.operations.length,
    }),
  );
} else {
  const fixtures = JSON.parse(readFileSync(join(corpus, 'sources.json'), 'utf8')) as {
    name: string;
    file: string;
    sizeBytes: number;
  }[];
  const entries = [
    ...fixtures.map((entry) => ({ ...entry, path: join(corpus, entry.file), large: false, real: false })),
    ...realSpecs().map((spec) => ({ ...spec, path: spec.file, large: isLargeRealSpec(spec), real: true })),
  ];
  const slowLarge: string[] = [];
  process.stdout.write(`petstore-kit corpus start-up: node ${process.version}; each document in a fresh process\n`);
  process.stdout.write(
    `${'document'.padEnd(32)} ${'size'.padStart(8)} ${'ops'.padStart(4)} ${'read'.padStart(8)} ${'compile'.padStart(8)} ${'1st req'.padStart(8)} ${'ready'.padStart(8)} ${'cpu'.padStart(8)} ${'heap'.padStart(8)}\n`,
  );
  let failed = false;
  let largest: { name: string; readyMs: number; sizeBytes: number } | undefined;
  for (const entry of entries) {
    const run = spawnSync(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', fileURLToPath(import.meta.url), '--one', entry.path],
      { encoding: 'utf8', cwd: root, timeout: 120_000 },
    );
    if (run.status !== 0) {
      failed = true;
      process.stdout.write(
        `${entry.name.padEnd(32)} FAILED: ${(run.stderr || run.error?.message || '').split('\n')[0]}\n`,
      );
      continue;
    }
    const figures = JSON.parse(run.stdout) as {
      readMs: number;
      compileMs: number;
      firstRequestMs: number;
      cpuMs: number;
      heapMb: number;
      operations: number;
    };
    const readyMs = figures.readMs + figures.compileMs + figures.firstRequestMs;
    if (entry.large && readyMs >= 2_000) slowLarge.push(`${entry.name} (${Math.round(readyMs)} ms)`);
    if (!entry.real && (largest === undefined || entry.sizeBytes > largest.sizeBytes))
      largest = { name: entry.name, readyMs, sizeBytes: entry.sizeBytes };
    const ms = (value: number) => `${Math.round(value)} ms`.padStart(8);
    process.stdout.write(
      `${`${entry.name}${entry.large ? ' *' : ''}`.padEnd(32)} ${`${Math.round(entry.sizeBytes / 1000)} kB`.padStart(8)} ${String(figures.operations).padStart(4)} ${ms(figures.readMs)} ${ms(figures.compileMs)} ${ms(figures.firstRequestMs)} ${ms(readyMs)} ${ms(figures.cpuMs)} ${`${figures.heapMb.toFixed(1)} MB`.padStart(8)}\n`,
    );
  }
  if (largest !== undefined) {
    const met = largest.readyMs < 5_000;
    process.stdout.write(
      `\n${met ? 'MET ' : 'MISS'}  The largest document (${largest.name}) ready in ${Math.round(largest.readyMs)} ms (goal < 5000 ms)\n`,
    );
    failed ||= !met;
  }
  const large = entries.filter((entry) => entry.large).length;
  if (large > 0) {
    process.stdout.write(
      `${slowLarge.length === 0 ? 'MET ' : 'MISS'}  Each large real document (*, ${large}) ready in under 2000 ms${slowLarge.length === 0 ? '' : `; not: ${slowLarge.join(', ')}`}\n`,
    );
    failed ||= slowLarge.length > 0;
  }
  process.exitCode = failed ? 1 : 0;
}

#!/usr/bin/env node
/**
 * `npm run corpus:serve-all`: starts `petstore-mock --spec FILE` on every public document of
 * ../shared/real-specs (set1 and set2, read in place), one fresh process each, and says how long each
 * took to listen and answer its first request, or the line it was refused with. Exits 1 when one
 * does not start. `npm test` starts the large ones (test/integration/real-specs-start.test.ts);
 * `npm run bench:corpus` measures their start without the CLI's own start-up.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isLargeRealSpec, realSpecs, realSpecsFolder } from '../test/support/real-specs.js';
import { optionsOrExit, parseBenchArgs } from './lib/options.js';
import { startCli } from './lib/start-cli.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const help = `npm run corpus:serve-all -- [options]

Starts petstore-mock --spec FILE on every document of ../shared/real-specs (set1, set2), one fresh
process each, and prints how long each took to listen and to answer GET /__mock/health, or the line
it was refused with; the large ones (over 1 MB, or a tree of files) are marked. Exits 1 when one
does not start.

Options:
  --built      Start the built bin (dist/bin/petstore-mock.js, npm run build) instead of the sources
               through tsx (whose own start-up, about a second, is in the figures)
  --only TEXT  Only the documents whose name contains TEXT
  --help       Show this help
`;

const options = optionsOrExit(
  { script: 'corpus:serve-all', helpCommand: 'npm run corpus:serve-all -- --help', help },
  () => {
    const values = parseBenchArgs(process.argv.slice(2), {
      built: { type: 'boolean' },
      only: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    });
    return values.help ? 'help' : { built: values.built === true, only: values.only };
  },
);

const documents = realSpecs().filter((spec) => options.only === undefined || spec.name.includes(options.only));
if (documents.length === 0) {
  process.stdout.write(`No documents in ${realSpecsFolder} (it is read in place: ../shared/real-specs)\n`);
  process.exit(options.only === undefined ? 0 : 2);
}
const bin = join(root, 'dist/bin/petstore-mock.js');
if (options.built && !existsSync(bin)) {
  process.stderr.write(`corpus:serve-all: ${bin} is missing; run npm run build first\n`);
  process.exit(2);
}
const command = options.built ? [bin] : ['--import', 'tsx', join(root, 'src/cli/mock-cli.ts')];

process.stdout.write(
  `petstore-mock on ../shared/real-specs: node ${process.version}, ${options.built ? 'the built bin' : 'the sources through tsx'}; each document in a fresh process\n`,
);
process.stdout.write(
  `${'document'.padEnd(36)} ${'size'.padStart(9)} ${'listening'.padStart(10)} ${'answered'.padStart(9)}\n`,
);
let failed = 0;
for (const spec of documents) {
  const run = await startCli([...command, '--port', '0', '--spec', spec.file], { cwd: root, budgetMs: 120_000 });
  const name = `${spec.name}${isLargeRealSpec(spec) ? ' *' : ''}`.padEnd(36);
  const size = `${Math.round(spec.sizeBytes / 1000)} kB`.padStart(9);
  if (run.outcome !== 'listening') {
    failed += 1;
    process.stdout.write(`${name} ${size} NOT STARTED: ${run.firstLine}\n`);
    continue;
  }
  try {
    const health = await fetch(`${run.origin}/__mock/health`, { signal: AbortSignal.timeout(30_000) });
    const answeredMs = performance.now() - run.startedAt;
    process.stdout.write(
      `${name} ${size} ${`${Math.round(run.listeningMs)} ms`.padStart(10)} ${`${Math.round(answeredMs)} ms`.padStart(9)}${health.ok ? '' : ` (health ${health.status})`}\n`,
    );
  } finally {
    await run.stop();
  }
}
process.stdout.write(
  `\n${failed === 0 ? 'ALL STARTED' : `${failed} NOT STARTED`}: ${documents.length - failed} of ${documents.length} documents (* over 1 MB or a tree of files)\n`,
);
process.exitCode = failed === 0 ? 0 : 1;

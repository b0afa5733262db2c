/**
 * `npm run kit:bug-corpus`: runs the kit against every bug server (bug-servers/corpus.ts) with each profile,
 * prints a line per bug and a caught / not caught table by taxonomy class, and compares the result with
 * test/contract-kit/expectations/bug-corpus.json (exit 1 when it differs, naming the bugs).
 *
 * Options: --profile default|thorough (repeatable; default: every profile), --batch first|second|third (default: all),
 * --only <id,id>, --update (rewrite the pinned verdicts of the profiles run, to review in the diff).
 */
import { parseArgs } from 'node:util';
import { type BugServer, taxonomyClasses } from './bug-server.js';
import { bugCorpus, corpusBatches } from './corpus.js';
import {
  type BugVerdict,
  type CorpusExpectations,
  catchTable,
  kitProfiles,
  type ProfileName,
  readExpectations,
  runKitOnBug,
  sameVerdict,
  writeExpectations,
} from './run-corpus.js';

const { values } = parseArgs({
  options: {
    profile: { type: 'string', multiple: true },
    only: { type: 'string' },
    batch: { type: 'string' },
    update: { type: 'boolean', default: false },
  },
});

function chosenProfiles(): ProfileName[] {
  const names = values.profile ?? Object.keys(kitProfiles);
  for (const name of names)
    if (!(name in kitProfiles))
      throw new Error(`Failed to read --profile ${name}: one of ${Object.keys(kitProfiles).join(', ')}`);
  return names as ProfileName[];
}

function batchBugs(): readonly BugServer[] {
  if (values.batch === undefined) return bugCorpus;
  if (!(values.batch in corpusBatches))
    throw new Error(`Failed to read --batch ${values.batch}: one of ${Object.keys(corpusBatches).join(', ')}`);
  return corpusBatches[values.batch as keyof typeof corpusBatches];
}

function chosenBugs(): readonly BugServer[] {
  if (values.only === undefined) return batchBugs();
  const ids = values.only.split(',');
  const unknown = ids.filter((id) => !bugCorpus.some((bug) => bug.id === id));
  if (unknown.length > 0) throw new Error(`Failed to find bug server ${unknown.join(', ')}`);
  return bugCorpus.filter((bug) => ids.includes(bug.id));
}

function line(bug: BugServer, verdict: BugVerdict, ms: number): string {
  const shown = verdict.failing.slice(0, 4).join(', ') + (verdict.failing.length > 4 ? ', ...' : '');
  const mark = verdict.caught ? 'caught' : verdict.refused === undefined ? 'MISSED' : 'REFUSED';
  return `${mark.padEnd(7)} ${bug.id.padEnd(44)} exit ${verdict.exitCode}  ${String(ms).padStart(6)} ms  ${verdict.refused ?? shown}\n`;
}

/** Runs one profile over the bugs; the verdicts by bug id. */
async function measure(bugs: readonly BugServer[], profile: ProfileName): Promise<Map<string, BugVerdict>> {
  const verdicts = new Map<string, BugVerdict>();
  const started = performance.now();
  process.stdout.write(`\n## Profile ${profile}\n\n`);
  for (const bug of bugs) {
    const bugStarted = performance.now();
    const verdict = await runKitOnBug(bug, profile);
    verdicts.set(bug.id, verdict);
    process.stdout.write(line(bug, verdict, Math.round(performance.now() - bugStarted)));
  }
  const seconds = Math.round((performance.now() - started) / 100) / 10;
  for (const [batch, inBatch] of Object.entries(corpusBatches)) {
    const measured = inBatch.filter((bug) => verdicts.has(bug.id));
    if (measured.length > 0) process.stdout.write(`\n### Batch ${batch}\n\n${catchTable(measured, verdicts)}\n`);
  }
  process.stdout.write(`\n${bugs.length} bug servers in ${seconds} s\n`);
  return verdicts;
}

/** The bugs whose verdict differs from the pinned one. */
function changed(
  expectations: CorpusExpectations,
  profile: ProfileName,
  bugs: readonly BugServer[],
  verdicts: Map<string, BugVerdict>,
): string[] {
  return bugs.flatMap((bug) =>
    sameVerdict(bug, expectations.bugs[bug.id]?.[profile], verdicts.get(bug.id)!) ? [] : [`${profile}: ${bug.id}`],
  );
}

async function main(): Promise<void> {
  const bugs = chosenBugs();
  const expectations = await readExpectations();
  const differences: string[] = [];
  for (const profile of chosenProfiles()) {
    const verdicts = await measure(bugs, profile);
    differences.push(...changed(expectations, profile, bugs, verdicts));
    for (const bug of bugs)
      expectations.bugs[bug.id] = {
        taxonomyClass: bug.taxonomyClass,
        models: bug.models,
        ...expectations.bugs[bug.id],
        [profile]: verdicts.get(bug.id),
      };
  }
  if (values.update) {
    const ordered = Object.fromEntries(
      bugCorpus.flatMap((bug) => (expectations.bugs[bug.id] ? [[bug.id, expectations.bugs[bug.id]!]] : [])),
    );
    await writeExpectations({ ...expectations, bugs: ordered });
    process.stdout.write(`\nRewrote the pinned verdicts (${taxonomyClasses.length} classes); review the diff.\n`);
  } else if (differences.length > 0) {
    process.stdout.write(`\nDiffers from expectations/bug-corpus.json:\n${differences.join('\n')}\n`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`kit:bug-corpus: ${(error as Error).message}\n`);
  process.exitCode = 2;
});

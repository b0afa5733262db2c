import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { ContractOptions } from '../../../contract-tests/runner/contract-options.js';
import { type ContractRun, runContract } from '../../../contract-tests/runner/run-contract.js';
import { referenceKeys } from '../reference/reference-server.js';
import { createVirtualClock } from '../reference/virtual-clock.js';
import { type BugServer, startBugServer, type TaxonomyClass, taxonomyClasses } from './bug-server.js';

/**
 * The kit's profiles the corpus is measured with: the kit's own defaults as a user gets them, and the options
 * that let it spend time today (the reference run "a run that may wait windows out and spend a day"). On the
 * virtual clock every wait costs no real time. When the kit's `--thorough` lands, it is one more line here.
 */
export const kitProfiles = {
  default: {},
  // The nightly profile, and beyond it on the virtual clock (waiting costs no real time here): a day waited out,
  // the main key spent into its 429.
  thorough: {
    thorough: true,
    exhaustMainKey: true,
    windowWaitSeconds: 2 * 86_400,
    maxWaitSeconds: 86_400,
    maxRequests: 3_000,
  },
} as const satisfies Record<string, Partial<ContractOptions>>;
export type ProfileName = keyof typeof kitProfiles;

/** What one run of the kit said about one bug server. */
export interface BugVerdict {
  /** The kit exited 1 (DOES NOT CONFORM): the bug is caught. */
  caught: boolean;
  exitCode: number;
  /** Ids of the checks that FAILed, sorted. */
  failing: string[];
  /** Why the kit refused to run (exit 2: its preflight took the server for something else); no rule named, not caught. */
  refused?: string;
}

export interface CorpusExpectations {
  description: string;
  bugs: Record<string, { taxonomyClass: TaxonomyClass; models: string } & Partial<Record<ProfileName, BugVerdict>>>;
}

const expectationsPath = fileURLToPath(new URL('../expectations/bug-corpus.json', import.meta.url));

/**
 * When each run starts on the virtual clock: mid-second, as a real run almost always is, so that a server that
 * rounds a time the wrong way can show it (at a whole second, floor and ceiling agree).
 */
const startsAt = Date.parse('2026-03-02T10:00:20.500Z');

/**
 * The seed of every corpus run: the generators cover each small space whole, and the seed only picks within a
 * class, but which checks a bug fails (pinned below) may follow the pick; one seed keeps the pins reproducible.
 */
const corpusSeed = 39;

/**
 * Runs the kit, in-process, against one bug server on a fresh virtual clock, with the kit's defaults and the
 * profile's options; stops the server.
 *
 * @example const verdict = await runKitOnBug(bugCorpus[0]!, 'default'); // { caught: false, exitCode: 0, failing: [] }
 */
export async function runKitOnBug(bug: BugServer, profile: ProfileName): Promise<BugVerdict> {
  const clock = createVirtualClock({ startMs: startsAt });
  const server = await startBugServer(bug, clock);
  try {
    return await verdictOf(
      runContract({
        baseUrl: server.baseUrl,
        apiKey: referenceKeys.main,
        rateLimitKey: referenceKeys.limited,
        clock,
        // A bug server that desynchronises a connection must not stall the run for the default 10 s per request.
        timeoutSeconds: 2,
        runId: 'bug-corpus',
        seed: corpusSeed,
        log: () => {},
        ...kitProfiles[profile],
      }),
      server.baseUrl,
    );
  } finally {
    await server.close();
  }
}

async function verdictOf(running: Promise<ContractRun>, baseUrl: string): Promise<BugVerdict> {
  try {
    const run = await running;
    const failing = run.report.results.filter((result) => result.status === 'FAIL').map((result) => result.id);
    return { caught: run.exitCode === 1, exitCode: run.exitCode, failing: failing.sort() };
  } catch (error) {
    // The server's port changes from run to run; the message is pinned without it.
    return {
      caught: false,
      exitCode: 2,
      failing: [],
      refused: (error as Error).message.replaceAll(baseUrl, '<base-url>'),
    };
  }
}

/**
 * Whether a measured verdict is the pinned one: the same exit and the same failing checks, or for a racy bug
 * (BugServer.racy) the same exit only.
 */
export function sameVerdict(bug: BugServer, pinned: BugVerdict | undefined, measured: BugVerdict): boolean {
  if (pinned === undefined) return false;
  if (bug.racy !== undefined) return pinned.caught === measured.caught && pinned.exitCode === measured.exitCode;
  return JSON.stringify(pinned) === JSON.stringify(measured);
}

export async function readExpectations(): Promise<CorpusExpectations> {
  return JSON.parse(await readFile(expectationsPath, 'utf8')) as CorpusExpectations;
}

export async function writeExpectations(expectations: CorpusExpectations): Promise<void> {
  await writeFile(expectationsPath, `${JSON.stringify(expectations, null, 2)}\n`);
}

/** Caught / all by taxonomy class, one line per class and a total, for one profile. */
export function catchTable(bugs: readonly BugServer[], verdicts: ReadonlyMap<string, BugVerdict>): string {
  const rows = taxonomyClasses.map((taxonomyClass) => {
    const inClass = bugs.filter((bug) => bug.taxonomyClass === taxonomyClass);
    const caught = inClass.filter((bug) => verdicts.get(bug.id)?.caught === true).length;
    return [taxonomyClass, caught, inClass.length] as const;
  });
  const caughtInAll = rows.reduce((sum, [, caught]) => sum + caught, 0);
  const percent = (caught: number, all: number) => `${all === 0 ? 0 : Math.round((100 * caught) / all)} %`;
  return [
    '| Class | Caught | Of | Rate |',
    '|---|---|---|---|',
    ...rows.map(([name, caught, all]) => `| ${name} | ${caught} | ${all} | ${percent(caught, all)} |`),
    `| **all** | **${caughtInAll}** | **${bugs.length}** | **${percent(caughtInAll, bugs.length)}** |`,
  ].join('\n');
}

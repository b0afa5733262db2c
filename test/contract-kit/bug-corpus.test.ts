import { describe, expect, it } from 'vitest';
import { taxonomyClasses } from './bug-servers/bug-server.js';
import { bugCorpus } from './bug-servers/corpus.js';
import { readExpectations, runKitOnBug, sameVerdict } from './bug-servers/run-corpus.js';
import { firstDifference, replayWitness } from './bug-servers/witness.js';

/**
 * The kit measured by bugs it was not written from (docs/bug-taxonomy.md, bug-servers/): each bug server is live
 * (its witness shows it answering differently from the reference), every bug is pinned in
 * expectations/bug-corpus.json, and a fixed sample of the corpus is rerun here against its pinned verdict. The
 * whole corpus, with every profile: `npm run kit:bug-corpus` (about a minute and a half; too long for `npm test`).
 */
const expectations = await readExpectations();

/** Four bugs of four classes, caught and missed, none racy: a few seconds of `npm test`. */
const sample = ['values-client-id-wins', 'credentials-key-prefix-match', 'keys-list-cached-5s', 'time-ban-never-ends'];

describe('the bug-server corpus', () => {
  it('holds at least 40 bug servers with distinct ids, at least three in every class of the taxonomy', () => {
    expect(bugCorpus.length).toBeGreaterThanOrEqual(40);
    expect(new Set(bugCorpus.map((bug) => bug.id)).size).toBe(bugCorpus.length);
    for (const taxonomyClass of taxonomyClasses)
      expect(
        bugCorpus.filter((bug) => bug.taxonomyClass === taxonomyClass).length,
        taxonomyClass,
      ).toBeGreaterThanOrEqual(3);
  });

  it("replays a witness identically on two references (the comparison below sees only a bug's line)", async () => {
    const steps = bugCorpus.flatMap((bug) => bug.witness);
    expect(await replayWitness(undefined, steps)).toEqual(await replayWitness(undefined, steps));
  });

  for (const bug of bugCorpus)
    it(`${bug.id}: answers its witness differently from the reference (${bug.models})`, async () => {
      expect(await firstDifference(bug)).toBeDefined();
    });

  it('pins a default-run verdict for every bug server and none for a bug that is gone', () => {
    expect(Object.keys(expectations.bugs).sort()).toEqual(bugCorpus.map((bug) => bug.id).sort());
    for (const bug of bugCorpus) expect(expectations.bugs[bug.id]?.default, bug.id).toBeDefined();
  });

  for (const id of sample)
    it(`${id}: the default run still gives its pinned verdict`, async () => {
      const bug = bugCorpus.find((candidate) => candidate.id === id)!;
      const measured = await runKitOnBug(bug, 'default');
      const pinned = expectations.bugs[id]?.default;
      expect(sameVerdict(bug, pinned, measured), JSON.stringify({ pinned, measured })).toBe(true);
    });
});

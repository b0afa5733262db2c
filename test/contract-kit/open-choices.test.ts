import { describe, expect, it } from 'vitest';
import type { OpenChoiceOptions } from './reference/open-choice-petstore.js';
import { referenceKeys, startReferenceServer } from './reference/reference-server.js';
import { createVirtualClock } from './reference/virtual-clock.js';
import { fakeKeys, startFakePetstore } from './support/fake-petstore.js';
import { idsWith, runKit } from './support/run-kit.js';

/**
 * Issue 39, item 5: what the interface leaves open (whether a blank name is valid, Unicode
 * normalisation, trimming, list order, a maximum length) is INFO that names the server's choice,
 * never FAIL. Each server below is the reference making one open choice differently: each
 * CONFORMS, and some INFO line of the report names its choice.
 */
const servers: { name: string; choices: OpenChoiceOptions; info: RegExp }[] = [
  { name: 'refuses a blank name (400)', choices: { refuseBlankName: true }, info: /refuses a blank value/ },
  { name: 'stores names in Unicode NFC', choices: { normalForm: 'NFC' }, info: /Unicode NFC/ },
  { name: 'stores names in Unicode NFD', choices: { normalForm: 'NFD' }, info: /Unicode NFD/ },
  { name: 'stores names in Unicode NFKC', choices: { normalForm: 'NFKC' }, info: /Unicode NFKC/ },
  { name: 'trims surrounding whitespace', choices: { trim: true }, info: /trims surrounding/ },
  { name: 'lists the newest category first', choices: { newestFirst: true }, info: /newest first/ },
  { name: 'refuses names over 50 characters', choices: { maxNameLength: 50 }, info: /length limit/ },
  {
    name: "refuses names over 40 characters, trims and stores NFD (shorter than some of the kit's own names)",
    choices: { maxNameLength: 40, trim: true, normalForm: 'NFD' },
    info: /length limit/,
  },
];

async function runAgainst(choices: OpenChoiceOptions | undefined) {
  const clock = createVirtualClock({ startMs: Date.parse('2026-03-02T10:00:20.000Z') });
  const server = await startReferenceServer({ clock, ...(choices === undefined ? {} : { choices }) });
  try {
    return await runKit({
      baseUrl: server.baseUrl,
      apiKey: referenceKeys.main,
      rateLimitKey: referenceKeys.limited,
      clock,
      timeoutSeconds: 2,
    });
  } finally {
    await server.close();
  }
}

/** Every INFO message of a run, one string. */
function infoLines(run: Awaited<ReturnType<typeof runAgainst>>): string {
  return run.report.results
    .filter((result) => result.status === 'INFO')
    .map((result) => `${result.id}: ${result.message ?? ''}`)
    .join('\n');
}

describe('correct servers that make the open choices differently conform', () => {
  for (const { name, choices, info } of servers) {
    it(`a server that ${name} CONFORMS, and the report names its choice`, async () => {
      const run = await runAgainst(choices);
      expect(idsWith(run, 'FAIL')).toEqual([]);
      expect(run.exitCode).toBe(0);
      expect(infoLines(run)).toMatch(info);
    });
  }

  // The fake of issue 9 pinned this as a broken server; the interface does not say a blank name is valid.
  it('the fake that refuses an empty name (once pinned as broken) CONFORMS, and the report names its choice', async () => {
    const server = await startFakePetstore({ faults: ['empty-name-rejected'] });
    try {
      const run = await runKit({ baseUrl: server.baseUrl, apiKey: fakeKeys.main, rateLimitKey: fakeKeys.limited });
      expect(idsWith(run, 'FAIL')).toEqual([]);
      expect(run.exitCode).toBe(0);
      expect(infoLines(run)).toMatch(/refuses a blank value/);
    } finally {
      await server.close();
    }
  });

  it('the reference itself (names stored as sent, oldest first) shows none of these choices', async () => {
    const run = await runAgainst(undefined);
    expect(run.exitCode).toBe(0);
    expect(infoLines(run)).not.toMatch(/refuses a blank value|Unicode NF|trims surrounding|newest first/);
  });
});

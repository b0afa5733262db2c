import { describe, expect, it } from 'vitest';
import { type OpenChoiceOptions, openChoiceServers } from './reference/open-choice-petstore.js';
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
  for (const { name, choices, info } of openChoiceServers) {
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

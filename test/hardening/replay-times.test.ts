import { describe, expect, it } from 'vitest';
import {
  formatReplaySummary,
  type ReplayCommandIo,
  replayAgainstMockApp,
  runReplayCommand,
} from '../../src/cli/replay-command.js';
import { parseMockConfig } from '../../src/core/config/mock-config.js';
import { parseReplayInput } from '../../src/lab/replay-input.js';
import { specDocument } from './support/core-app.js';
import { exportLine, harDocument, harEntry } from './support/worst-case-inputs.js';

/**
 * A recording's times are the replay's virtual clock (issue 28, finding 9). Times before 1970 (Go's
 * zero time `0001-01-01T00:00:00Z` in a HAR whose tool never set it, a 1969 recording) used to
 * replay as 429s with a failed retry verdict: the rate limiter stores "not banned" as time 0, which
 * is in the future of any time before 1970. The replay now runs such a recording moved forward by
 * whole days, so every window and day boundary falls as recorded, and says so.
 */
const config = parseMockConfig({});

async function replayText(text: string) {
  const requests = parseReplayInput(text, { plans: config.plans, demoKeys: { 'demo-free': 'free' } });
  return replayAgainstMockApp(requests, config, specDocument);
}

function failedVerdicts(result: Awaited<ReturnType<typeof replayText>>): string[] {
  return result.report.clients.flatMap((client) =>
    client.verdicts
      .filter((verdict) => verdict.outcome === 'fail')
      .map((verdict) => `${client.client}: ${verdict.rule}`),
  );
}

describe('finding 9: recordings from before 1970 replay as recorded', () => {
  it("a HAR whose every entry has Go's zero time: three requests, three 200s, no failed verdict", async () => {
    const har = harDocument([0, 1, 2].map((index) => harEntry(index, { time: '0001-01-01T00:00:00Z' })));
    const result = await replayText(har);
    expect(result.byStatus).toEqual({ '200': 3 });
    expect(failedVerdicts(result)).toEqual([]);
    expect(formatReplaySummary(result)).toContain('0001-01-01T00:00:00.000Z');
  });

  it('a recording across midnight of 31 December 1969: 200s until the minute is spent, one 429, then 200 once the window has passed', async () => {
    const start = Date.UTC(1969, 11, 31, 23, 59, 57);
    const offsets = [...Array.from({ length: 60 }, (_, index) => index * 100), 6_100, 61_000];
    const lines = offsets.map((offset) =>
      exportLine(0, { time: new Date(start + offset).toISOString(), client: 'client-00000000000a' }),
    );
    const result = await replayText(`${lines.join('\n')}\n`);
    expect(result.byStatus).toEqual({ '200': 61, '429': 1 });
    expect(failedVerdicts(result)).toEqual([]);
  });

  it('a recording that spans 1970 replays the same as one a day later (windows fall on the same boundaries)', async () => {
    const times = (base: number) =>
      Array.from({ length: 80 }, (_, index) => new Date(base + index * 1_000).toISOString());
    const before = Date.UTC(1969, 11, 31, 23, 59, 20);
    const asRecorded = await replayText(
      `${times(before)
        .map((time) => exportLine(0, { time, client: 'client-00000000000b' }))
        .join('\n')}\n`,
    );
    const aDayLater = await replayText(
      `${times(before + 86_400_000)
        .map((time) => exportLine(0, { time, client: 'client-00000000000b' }))
        .join('\n')}\n`,
    );
    expect(asRecorded.byStatus).toEqual(aDayLater.byStatus);
    expect(asRecorded.clients).toEqual(aDayLater.clients);
  });

  it('petstore-mock replay says in one line that the recording was moved, and exits 0', async () => {
    const har = harDocument([0, 1].map((index) => harEntry(index, { time: '0001-01-01T00:00:00Z' })));
    const out: string[] = [];
    const err: string[] = [];
    const io: ReplayCommandIo = {
      stdout: (text) => out.push(text),
      stderr: (text) => err.push(text),
      readFile: async () => har,
      writeFile: async () => {},
    };
    expect(await runReplayCommand(['zero-time.har'], io)).toBe(0);
    expect(err.join('')).toBe('');
    expect(out.join('')).toMatch(/Statuses: 200 x 2\n/);
  });

  it('a recording after year 9999 is refused in one line', async () => {
    const lines = [exportLine(0, { time: '+010000-01-01T00:00:00.000Z' })];
    const err: string[] = [];
    const io: ReplayCommandIo = {
      stdout: () => {},
      stderr: (text) => err.push(text),
      readFile: async () => `${lines.join('\n')}\n`,
      writeFile: async () => {},
    };
    expect(await runReplayCommand(['far.jsonl'], io)).toBe(2);
    expect(err.join('')).toMatch(/^petstore-mock replay: [^\n]*line 1: time: [^\n]*\n$/);
  });
});

import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { FaultSessions } from '../state/fault-sessions.js';
import { parseLatency } from './fault-config.js';
import { parseMockConfig } from './mock-config.js';
import { scenarioPresets } from './scenario-file.js';

describe('parseLatency', () => {
  it.each([
    ['200', { minMs: 200, maxMs: 200 }],
    ['200ms', { minMs: 200, maxMs: 200 }],
    ['1.5s', { minMs: 1500, maxMs: 1500 }],
    ['50-300ms', { minMs: 50, maxMs: 300 }],
    [' 2 - 4 s ', { minMs: 2000, maxMs: 4000 }],
    ['0', { minMs: 0, maxMs: 0 }],
  ])('reads %j', (text, range) => {
    expect(parseLatency(text)).toEqual(range);
  });

  it.each(['', 'fast', '-5', '10m', '300-50', '121s', '1e3'])('refuses %j in one line', (text) => {
    expect(() => parseLatency(text)).toThrow(/^latency "/);
  });
});

describe('the faults settings', () => {
  it('decode the example of docs/mock.md, and refuse a rule with neither fault nor latency', async () => {
    const page = await readFile(new URL('../../../docs/mock.md', import.meta.url), 'utf8');
    const start = page.indexOf('```yaml\nfaults:') + '```yaml\n'.length;
    const config = parseMockConfig(parse(page.slice(start, page.indexOf('```', start))));
    expect(config.faults?.latency).toEqual({ minMs: 50, maxMs: 300 });
    expect(config.faults?.rules?.map((rule) => rule.fault ?? 'latency')).toEqual([
      'reset',
      'status',
      'timeout',
      'latency',
    ]);
    expect(() => parseMockConfig({ faults: { rules: [{ rate: 0.5 }] } })).toThrow(
      /faults\.rules\.0: give a fault, a latency, or both/,
    );
    expect(() => parseMockConfig({ faults: { rules: [{ fault: 'status', status: 404 }] } })).toThrow(
      /faults\.rules\.0\.status: must be a 5xx status or 429/,
    );
  });

  it('flaky-network meets about the rates its description gives (draws over many requests)', () => {
    const rules = scenarioPresets['flaky-network'].scenario.faults!.rules!;
    const sessions = new FaultSessions(undefined, 42, 10);
    const met: Record<string, number> = {};
    const total = 20_000;
    for (let request = 0; request < total; request += 1) {
      const rule = rules.find((candidate) => sessions.draw('default') < candidate.rate);
      met[rule?.fault ?? 'none'] = (met[rule?.fault ?? 'none'] ?? 0) + 1;
    }
    for (const [kind, share] of [
      ['reset', 0.05],
      ['status', 0.05],
      ['slow-body', 0.03],
      ['timeout', 0.02],
    ] as const)
      expect(Math.abs(met[kind]! / total - share)).toBeLessThan(0.006);
  });
});

describe('FaultSessions draws', () => {
  it('are the same for the same seed and session, differ between sessions and seeds, and start over on reset', () => {
    const draws = (sessions: FaultSessions, session: string) => Array.from({ length: 8 }, () => sessions.draw(session));
    const a = new FaultSessions(undefined, 7, 10);
    const first = draws(a, 'ci-1');
    expect(draws(new FaultSessions(undefined, 7, 10), 'ci-1')).toEqual(first);
    expect(draws(new FaultSessions(undefined, 8, 10), 'ci-1')).not.toEqual(first);
    expect(draws(new FaultSessions(undefined, 7, 10), 'ci-2')).not.toEqual(first);
    a.reset('ci-1');
    expect(draws(a, 'ci-1')).toEqual(first);
    for (const draw of first) expect(draw >= 0 && draw < 1).toBe(true);
  });

  it('keep at most maxSessions sessions of their own (the oldest forgotten)', () => {
    const sessions = new FaultSessions(undefined, 1, 2);
    for (const name of ['a', 'b', 'c', 'd']) sessions.set(name, { rules: [] });
    expect(sessions.settingsOf('a')).toBeUndefined();
    expect(sessions.settingsOf('d')).toEqual({ rules: [] });
  });
});

import { describe, expect, it } from 'vitest';
import { call, createTestApp, specDocument } from '../../test/support/core-test-app.js';
import { replayAgainstMockApp } from '../cli/replay-command.js';
import { parseMockConfig } from '../core/config/mock-config.js';
import type { TimelineInput } from './lab-types.js';
import { parseRecording } from './replay-input.js';
import { renderTimelineSvg } from './timeline-svg.js';

// The incident picture stays true when the incident starts from a scenario: a client the scenario left
// one request from its minute is drawn at the budget line it hits, on the dashboard and in a replay.

const t0 = Date.UTC(2026, 0, 1, 9);
const rateLimited = '#D55E00';
const ok = '#009E73';

/** The y of each mark of one outcome colour (the top of its stroke; higher is smaller). */
function markTops(svg: string, colour: string): number[] {
  const path = new RegExp(`<path d="([^"]*)" stroke="${colour}" stroke-width="2"/>`).exec(svg);
  return path === null ? [] : [...path[1]!.matchAll(/M[\d.]+ ([\d.]+)V/g)].map((match) => Number(match[1]) + 4);
}

/** The y of the first lane's per-minute budget line. */
function budgetY(svg: string): number {
  const line =
    /<line x1="[\d.]+" y1="([\d.]+)" x2="[\d.]+" y2="[\d.]+" stroke="#111827" stroke-width="1" stroke-dasharray="5 3"\/>/.exec(
      svg,
    );
  return Number(line![1]);
}

/** demo-free, a scenario having spent 59 of its 60 at t0 (window from t0 - 30 s): one 200, then a 429. */
function scenarioLane(spent: boolean): TimelineInput['clients'][number] {
  return {
    client: 'demo-free',
    plan: 'free',
    limits: { perMinute: 60, perDay: 1000 },
    requests: [
      { atMs: t0 + 1_000, status: 200 },
      { atMs: t0 + 2_000, status: 429, code: 'rate_limited', retryAfterSeconds: 28 },
    ],
    bans: [],
    ...(spent ? { spentBefore: { atMs: t0, minuteStartMs: t0 - 30_000, count: 59 } } : {}),
  };
}

describe('the timeline of an incident that starts from a scenario', () => {
  it('draws each request as high as the limiter counted it, the scenario’s spent minute included', () => {
    const svg = renderTimelineSvg({ from: t0, to: t0 + 60_000, clients: [scenarioLane(true)] });
    // The 200 is the 60th of its minute (on the line), the 429 the 61st (above it: higher is a smaller y).
    expect(markTops(svg, ok)[0]).toBeCloseTo(budgetY(svg), 0);
    expect(markTops(svg, rateLimited)[0]).toBeLessThan(budgetY(svg));
    expect(svg).toContain('2 requests · 1× 429 · 59 spent before');
    expect(svg).toContain('with what a scenario had spent of its minute before.');
    // Without it the 429 is drawn at the bottom, far below the budget it hit (the bug).
    const before = renderTimelineSvg({ from: t0, to: t0 + 60_000, clients: [scenarioLane(false)] });
    expect(before).not.toContain('>budget 60/min</text>');
  });

  it('counts the scenario only inside its minute window, and not twice for requests before it', () => {
    const lane = scenarioLane(true);
    lane.requests = [
      { atMs: t0 - 10_000, status: 200 },
      ...lane.requests,
      { atMs: t0 + 45_000, status: 200 }, // the window began at t0 - 30 s: a new minute
    ];
    const svg = renderTimelineSvg({ from: t0 - 20_000, to: t0 + 60_000, clients: [lane] });
    const oks = markTops(svg, ok);
    // Before the scenario: 1 of the minute; at t0 + 1 s: 59 + 1 (the earlier request is in the 59); after the window: 4 in 60 s.
    expect(oks).toHaveLength(3);
    expect(oks[1]).toBeCloseTo(budgetY(svg), 0);
    expect(oks[0]).toBeGreaterThan(budgetY(svg) + 20);
    expect(oks[2]).toBeGreaterThan(budgetY(svg) + 20);
  });

  it('on the dashboard: the 429 after minute-almost-spent is drawn above the budget line', async () => {
    const app = createTestApp();
    await app.controls.applyScenario('presets: [minute-almost-spent]');
    app.clock.advance(5_000);
    expect((await call(app, 'GET', '/v1/categories', { key: 'demo-free' })).status).toBe(200);
    expect((await call(app, 'GET', '/v1/categories', { key: 'demo-free' })).status).toBe(429);
    const { timelineSvg } = await app.controls.dashboard();
    expect(markTops(timelineSvg, rateLimited)[0]).toBeLessThan(budgetY(timelineSvg));
    expect(timelineSvg).toContain('· 59 spent before');
  });

  it('in a replay of the export: the starting state’s spent minute is drawn too', async () => {
    const config = parseMockConfig({});
    const app = createTestApp({ config });
    await app.controls.applyScenario('presets: [minute-almost-spent]');
    app.clock.advance(5_000);
    for (let index = 0; index < 3; index += 1) await call(app, 'GET', '/v1/categories', { key: 'demo-free' });
    const exported = await app.handle({
      method: 'GET',
      url: '/__mock/requests?format=jsonl',
      headers: {},
      body: null,
    });
    const recording = parseRecording(exported.body as string, { plans: config.plans });
    const result = await replayAgainstMockApp(recording.requests, config, specDocument, {
      title: 'incident',
      recording,
    });
    expect(result.timeline.clients[0]!.spentBefore).toMatchObject({ count: 59 });
    const svg = renderTimelineSvg(result.timeline);
    expect(markTops(svg, rateLimited).every((y) => y < budgetY(svg))).toBe(true);
  });
});

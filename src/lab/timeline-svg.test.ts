import { mkdirSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { TimelineInput } from './lab-types.js';
import { renderTimelineSvg } from './timeline-svg.js';

const t0 = Date.UTC(2026, 0, 1, 9);

/** An incident: a free key bursting into 429s and a ban, a pro key steady, an anonymous client getting 401s. */
function incident(requestsPerLane: number): TimelineInput {
  const span = 20 * 60_000;
  const free: { atMs: number; status: number }[] = [];
  for (let index = 0; index < requestsPerLane; index += 1) {
    const atMs = t0 + Math.floor((index / requestsPerLane) * span);
    const minuteIndex = Math.floor((atMs - t0) / 60_000);
    const inMinute = free.filter(
      (request) => Math.floor((request.atMs - t0) / 60_000) === minuteIndex && request.status === 200,
    ).length;
    const banned = atMs >= t0 + 5 * 60_000 && atMs < t0 + 20 * 60_000;
    free.push({ atMs, status: banned ? 429 : inMinute < 60 ? 200 : 429 });
    if (free.length > 5000) break;
  }
  const pro = Array.from({ length: requestsPerLane }, (_, index) => ({
    atMs: t0 + Math.floor((index / requestsPerLane) * span),
    status: index % 97 === 0 ? 500 : 200,
  }));
  const anonymous = Array.from({ length: Math.floor(requestsPerLane / 10) }, (_, index) => ({
    atMs: t0 + index * 7_000,
    status: 401,
  }));
  return {
    from: t0,
    to: t0 + span,
    title: 'Replay of incident-2026-01-01.jsonl',
    clients: [
      {
        client: 'demo-free',
        plan: 'free',
        limits: { perMinute: 60, perDay: 1000 },
        requests: free,
        bans: [{ fromMs: t0 + 5 * 60_000, toMs: t0 + 20 * 60_000 }],
      },
      {
        client: 'client-5e3f0c2a9b1d',
        plan: 'pro',
        limits: { perMinute: 300, perDay: 10_000 },
        requests: pro,
        bans: [],
      },
      {
        client: 'anonymous <script>&"\'',
        plan: 'anonymous',
        limits: { perMinute: 60, perDay: 1000 },
        requests: anonymous,
        bans: [],
      },
    ],
  };
}

describe('renderTimelineSvg', () => {
  it('draws lanes, limits, bans, axis and legend, and writes a sample to test-output/', () => {
    const svg = renderTimelineSvg(incident(3000), { width: 1100 });
    mkdirSync('test-output', { recursive: true });
    writeFileSync('test-output/lab-timeline.svg', svg);
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="1100"/);
    expect(svg).toContain('limit 60/min');
    expect(svg).toContain('<title>banned 2026-01-01T09:05:00Z → 2026-01-01T09:20:00Z</title>');
    expect(svg).toContain('fill="#dc2626"');
    expect(svg).toContain('anonymous &lt;script&gt;&amp;&quot;&apos;');
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('+20 min');
    expect(svg).toContain('per-minute limit');
  });

  it('is deterministic and stays small however many requests it bins', () => {
    const small = renderTimelineSvg(incident(1000));
    const large = renderTimelineSvg(incident(100_000));
    expect(renderTimelineSvg(incident(1000))).toBe(small);
    expect(large.length).toBeLessThan(small.length * 2);
    expect(large.length).toBeLessThan(120_000);
  });

  it('draws the busiest lanes only when there are very many clients, and survives empty or odd input', () => {
    const many: TimelineInput = {
      from: t0,
      to: t0 + 60_000,
      clients: Array.from({ length: 500 }, (_, index) => ({
        client: `anonymous-${index}`,
        plan: 'anonymous',
        limits: { perMinute: 60, perDay: 1000 },
        requests: Array.from({ length: index % 7 }, () => ({ atMs: t0 + index, status: 200 })),
        bans: [],
      })),
    };
    const svg = renderTimelineSvg(many, { maxLanes: 10 });
    expect(svg).toContain('the 10 busiest of 500 clients');
    expect(renderTimelineSvg({ from: t0, to: t0, clients: [] })).toContain('No requests.');
    expect(renderTimelineSvg({ from: Number.NaN, to: Number.NaN, clients: [] }, { width: Number.NaN })).toMatch(
      /^<svg /,
    );
  });
});

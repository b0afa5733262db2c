import { expect, it } from 'vitest';
import { renderTimelineSvg } from './timeline-svg.js';

// Faults on the timeline (decision 042): a request left without a usable answer is drawn in its own
// colour and counted on its lane; a status fault and a slow body are drawn as the status they had.

const t0 = Date.UTC(2026, 0, 1, 9);
const faultColour = '#56B4E9';

const strokes = (svg: string, colour: string) =>
  new RegExp(`<path d="([^"]*)" stroke="${colour}" stroke-width="2"/>`).exec(svg)?.[1]?.match(/M/g)?.length ?? 0;

it('draws reset, close, timeout, malformed and empty answers as faults and counts them on the lane', () => {
  const kinds = ['reset', 'close', 'timeout', 'malformed', 'empty'];
  const svg = renderTimelineSvg({
    from: t0,
    to: t0 + 60_000,
    clients: [
      {
        client: 'demo-free',
        plan: 'free',
        limits: { perMinute: 60, perDay: 1000 },
        requests: [
          ...kinds.map((fault, index) => ({ atMs: t0 + index * 10_000, status: 200, fault })),
          { atMs: t0 + 55_000, status: 200, fault: 'slow-body' },
          { atMs: t0 + 58_000, status: 503, code: 'injected_fault', fault: 'status' },
        ],
        bans: [],
      },
    ],
  });
  expect(strokes(svg, faultColour)).toBe(5);
  expect(strokes(svg, '#009E73')).toBe(1);
  expect(strokes(svg, '#000000')).toBe(1);
  expect(svg).toContain('7 requests · 7 faults');
  expect(svg).toContain('fault: no usable answer (reset, close, timeout, malformed, empty)');
});

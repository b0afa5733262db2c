import { mkdirSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { recordTimelineIncident } from '../../test/support/timeline-incident.js';
import type { TimelineInput } from './lab-types.js';
import { keyPseudonym } from './replay-input.js';
import { renderTimelineSvg } from './timeline-svg.js';

const t0 = Date.UTC(2026, 0, 1, 9);
const colours = {
  ok: '#009E73',
  clientError: '#E69F00',
  serverError: '#000000',
  rateLimited: '#D55E00',
  banned: '#CC79A7',
};

type Lane = TimelineInput['clients'][number];

function lane(client: string, requests: Lane['requests'], extra: Partial<Lane> = {}): Lane {
  return { client, plan: 'free', limits: { perMinute: 60, perDay: 1000 }, requests, bans: [], ...extra };
}

/** The mark strokes of one outcome colour: each `M x y1 V y2` segment. */
function marks(svg: string, colour: string): { x: number; y1: number; y2: number }[] {
  const path = new RegExp(`<path d="([^"]*)" stroke="${colour}" stroke-width="2"/>`).exec(svg);
  if (path === null) return [];
  return [...path[1]!.matchAll(/M([\d.]+) ([\d.]+)V([\d.]+)/g)].map((match) => ({
    x: Number(match[1]),
    y1: Number(match[2]),
    y2: Number(match[3]),
  }));
}

/** The x where the plot starts and its width, read from the first lane's background. */
function plot(svg: string): { left: number; width: number } {
  const match = /<rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)" height="72" fill="#f9fafb"/.exec(svg)!;
  return { left: Number(match[1]), width: Number(match[2]) };
}

describe('renderTimelineSvg', () => {
  it('draws a single request as one short mark at its time, not a minute-wide block', () => {
    const svg = renderTimelineSvg({
      from: t0,
      to: t0 + 10 * 60_000,
      clients: [lane('anonymous 10.0.0.7', [{ atMs: t0 + 5 * 60_000, status: 401 }])],
    });
    const { left, width } = plot(svg);
    const drawn = marks(svg, colours.clientError);
    expect(drawn).toHaveLength(1);
    expect(Math.abs(drawn[0]!.x - (left + width / 2))).toBeLessThanOrEqual(1);
    expect(drawn[0]!.y2 - drawn[0]!.y1).toBe(8);
    for (const colour of [colours.ok, colours.rateLimited, colours.banned, colours.serverError])
      expect(marks(svg, colour)).toEqual([]);
  });

  it('gives each outcome its own colour: 2xx, 4xx, 429 rate_limited, 429 key_banned, 5xx', () => {
    const svg = renderTimelineSvg({
      from: t0,
      to: t0 + 60_000,
      clients: [
        lane(
          'demo-free',
          [
            { atMs: t0 + 1_000, status: 200 },
            { atMs: t0 + 10_000, status: 404 },
            { atMs: t0 + 20_000, status: 429, code: 'rate_limited' },
            { atMs: t0 + 30_000, status: 429, code: 'key_banned' },
            // Without a code, a 429 inside a ban is the ban's.
            { atMs: t0 + 45_000, status: 429 },
            { atMs: t0 + 50_000, status: 503 },
          ],
          { bans: [{ fromMs: t0 + 40_000, toMs: t0 + 48_000 }] },
        ),
      ],
    });
    expect(marks(svg, colours.ok)).toHaveLength(1);
    expect(marks(svg, colours.clientError)).toHaveLength(1);
    expect(marks(svg, colours.rateLimited)).toHaveLength(1);
    expect(marks(svg, colours.banned)).toHaveLength(2);
    expect(marks(svg, colours.serverError)).toHaveLength(1);
    expect(new Set(Object.values(colours)).size).toBe(5);
    for (const label of [
      '2xx (and 1xx, 3xx)',
      '4xx other than 429',
      '429 rate_limited',
      '429 key_banned',
      '5xx',
      'ban',
    ])
      expect(svg).toContain(`>${label}</text>`);
    expect(svg).toContain('<title>banned 2026-01-01 09:00:40 → 2026-01-01 09:00:48 UTC</title>');
  });

  it('raises each mark by the requests of the minute up to it, under the budget line', () => {
    const requests = Array.from({ length: 61 }, (_, index) => ({
      atMs: t0 + index * 500,
      status: index < 60 ? 200 : 429,
      ...(index === 60 ? { code: 'rate_limited' } : {}),
    }));
    const svg = renderTimelineSvg({ from: t0, to: t0 + 120_000, clients: [lane('demo-free', requests)] });
    const ok = marks(svg, colours.ok);
    const limited = marks(svg, colours.rateLimited);
    // Higher is a smaller y: the 429 (the 61st in its minute) is above every 2xx.
    expect(limited[0]!.y1).toBeLessThan(Math.min(...ok.map((mark) => mark.y1)));
    const budget =
      /<line x1="[\d.]+" y1="([\d.]+)" x2="[\d.]+" y2="[\d.]+" stroke="#111827" stroke-width="1" stroke-dasharray="5 3"\/>/.exec(
        svg,
      );
    expect(Number(budget![1])).toBeGreaterThan(limited[0]!.y1 + 4);
    expect(svg).toContain('>budget 60/min</text>');
    // A budget far above the traffic is named, not drawn.
    const quiet = renderTimelineSvg({
      from: t0,
      to: t0 + 60_000,
      clients: [
        lane('demo-enterprise', [{ atMs: t0, status: 200 }], { limits: { perMinute: 1_000_000, perDay: 1e8 } }),
      ],
    });
    expect(quiet).toContain('>budget 1,000,000/min, above this scale</text>');
  });

  it('draws the wait a Retry-After asked for, from the 429 to the time it named', () => {
    const svg = renderTimelineSvg({
      from: t0,
      to: t0 + 10 * 60_000,
      clients: [lane('demo-free', [{ atMs: t0 + 60_000, status: 429, code: 'rate_limited', retryAfterSeconds: 120 }])],
    });
    const { left, width } = plot(svg);
    const wait = new RegExp(
      `<path d="M([\\d.]+) [\\d.]+H([\\d.]+)M[^"]*" fill="none" stroke="${colours.rateLimited}" stroke-width="1.5"`,
    ).exec(svg);
    expect(Number(wait![1])).toBeCloseTo(left + width / 10, 0);
    expect(Number(wait![2])).toBeCloseTo(left + (width * 3) / 10, 0);
    // A ban's wait is drawn in the ban's colour, and a wait past the end stops at the picture's end.
    const banned = renderTimelineSvg({
      from: t0,
      to: t0 + 60_000,
      clients: [lane('demo-free', [{ atMs: t0 + 30_000, status: 429, code: 'key_banned', retryAfterSeconds: 900 }])],
    });
    const banWait = new RegExp(
      `<path d="M[\\d.]+ [\\d.]+H([\\d.]+)M[^"]*" fill="none" stroke="${colours.banned}"`,
    ).exec(banned);
    expect(Number(banWait![1])).toBeCloseTo(plot(banned).left + plot(banned).width, 0);
  });

  it('names clients as the dashboard does, with the export pseudonym beside the name', () => {
    const team = keyPseudonym('sk-team-7f3a9c21');
    const svg = renderTimelineSvg(
      {
        from: t0,
        to: t0 + 60_000,
        clients: [
          lane(keyPseudonym('demo-free'), [{ atMs: t0, status: 200 }]),
          lane(team, [{ atMs: t0, status: 200 }]),
          lane('demo-pro', [{ atMs: t0, status: 200 }]),
          lane('client-000000000000', [{ atMs: t0, status: 200 }], { label: 'billing-worker' }),
          lane('constructor', [{ atMs: t0, status: 200 }]),
        ],
      },
      { names: { [team]: 'team-checkout' } },
    );
    const texts = [...svg.matchAll(/<text [^>]*>([^<]*)<\/text>/g)].map((match) => match[1]);
    const nextLine = (name: string) => texts[texts.indexOf(name) + 1];
    expect(nextLine('demo-free')).toBe(keyPseudonym('demo-free'));
    expect(nextLine('team-checkout')).toBe(team);
    expect(nextLine('demo-pro')).toBe(keyPseudonym('demo-pro'));
    expect(nextLine('billing-worker')).toBe('client-000000000000');
    // A name no map knows is shown as recorded, with nothing beside it (and no inherited property).
    expect(nextLine('constructor')).toBe('free · 60/min, 1,000/day');
    expect(svg).toContain('Grey under a name: the client’s pseudonym in the export.');
  });

  it('cuts a long name with an ellipsis and keeps the whole of it in a <title>, escaped', () => {
    const name = `anonymous <script>&"' ${'x'.repeat(80)}`;
    const svg = renderTimelineSvg({
      from: t0,
      to: t0 + 60_000,
      title: '<b>incident</b>',
      clients: [lane(name, [{ atMs: t0, status: 401 }])],
    });
    expect(svg).toContain(`<title>anonymous &lt;script&gt;&amp;&quot;&apos; ${'x'.repeat(80)}</title>`);
    expect(svg).toMatch(/<text [^>]*font-weight="600"[^>]*>anonymous &lt;script&gt;&amp;&quot;&apos; x+…<\/text>/);
    expect(svg).toContain('&lt;b&gt;incident&lt;/b&gt;');
    expect(svg).not.toContain('<script>');
    expect(svg).not.toContain('<b>');
  });

  it('stays bounded in size however many requests it draws, and says when marks are merged', () => {
    const flood = (count: number): TimelineInput => ({
      from: t0,
      to: t0 + 20 * 60_000,
      clients: ['demo-free', 'demo-pro', 'anonymous 10.0.0.1'].map((client, laneIndex) =>
        lane(
          client,
          Array.from({ length: count }, (_, index) => ({
            atMs: t0 + Math.floor((index / count) * 20 * 60_000),
            status: [200, 404, 429, 503][(index + laneIndex) % 4]!,
            retryAfterSeconds: 1,
          })),
        ),
      ),
    });
    const thousand = renderTimelineSvg(flood(1_000));
    // 10,000 a lane already fill every pixel column of every outcome; three times as many add nothing.
    const tenThousand = renderTimelineSvg(flood(10_000));
    const thirtyThousand = renderTimelineSvg(flood(30_000));
    expect(renderTimelineSvg(flood(1_000))).toBe(thousand);
    // At most one stroke per lane, pixel column and outcome (about 20 characters), whatever the count.
    expect(thirtyThousand.length).toBeLessThan(3 * 5 * 1000 * 20);
    expect(thirtyThousand.length).toBeLessThanOrEqual(tenThousand.length * 1.02);
    expect(tenThousand).toContain('Dense stretches');
    expect(
      renderTimelineSvg({ from: t0, to: t0 + 60_000, clients: [lane('demo-free', [{ atMs: t0, status: 200 }])] }),
    ).not.toContain('Dense stretches');
  });

  it('draws a recorded incident (a sample in test-output/lab-timeline.svg)', async () => {
    const { input, names } = await recordTimelineIncident();
    const svg = renderTimelineSvg(input, { names, width: 1100 });
    mkdirSync('test-output', { recursive: true });
    writeFileSync('test-output/lab-timeline.svg', svg);
    for (const label of ['demo-free', 'demo-pro', '429 key_banned', 'budget 60/min', 'Dense stretches'])
      expect(svg).toContain(label);
  });

  it('draws the busiest lanes only when there are very many clients, and survives empty or odd input', () => {
    const many: TimelineInput = {
      from: t0,
      to: t0 + 60_000,
      clients: Array.from({ length: 500 }, (_, index) =>
        lane(
          `anonymous-${index}`,
          Array.from({ length: index % 7 }, () => ({ atMs: t0 + index, status: 200 })),
        ),
      ),
    };
    const svg = renderTimelineSvg(many, { maxLanes: 10 });
    expect(svg).toContain('the 10 busiest of 500 clients');
    expect(renderTimelineSvg({ from: t0, to: t0, clients: [] })).toContain('No requests.');
    expect(renderTimelineSvg({ from: Number.NaN, to: Number.NaN, clients: [] }, { width: Number.NaN })).toMatch(
      /^<svg /,
    );
    const odd = renderTimelineSvg({
      from: t0,
      to: t0 + 60_000,
      clients: [
        lane('demo-free', [
          { atMs: Number.NaN, status: 200 },
          { atMs: t0 - 1, status: 200 },
          { atMs: t0 + 1, status: 429, retryAfterSeconds: Number.POSITIVE_INFINITY },
          { atMs: t0 + 2, status: 429, retryAfterSeconds: -5 },
        ]),
      ],
    });
    expect(odd).not.toMatch(/NaN|Infinity/);
  });

  it('labels the time axis with UTC clock times at round steps', () => {
    const svg = renderTimelineSvg({
      from: t0,
      to: t0 + 20 * 60_000,
      clients: [lane('demo-free', [{ atMs: t0, status: 200 }])],
    });
    const ticks = [...svg.matchAll(/text-anchor="middle" fill="#4b5563">([^<]*)</g)].map((match) => match[1]);
    expect(ticks.length).toBeGreaterThanOrEqual(4);
    const minutes = ticks.map((tick) => Number(/^09:(\d\d)$/.exec(tick!)![1]));
    const step = minutes[1]! - minutes[0]!;
    expect([1, 2, 5, 10]).toContain(step);
    for (const minute of minutes) expect(minute % step).toBe(0);
    const days = renderTimelineSvg({ from: t0, to: t0 + 3 * 86_400_000, clients: [] });
    expect(days).toMatch(/>01-02 \d\d:00</);
  });
});

import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it, type TestContext } from 'vitest';
import type { TimelineInput } from '../../src/lab/lab-types.js';
import { renderTimelineSvg, type TimelineOptions } from '../../src/lab/timeline-svg.js';
import { findChromium, launchChromium } from '../support/chromium.js';
import { recordTimelineIncident, teamKeyLabel } from '../support/timeline-incident.js';

// The timeline SVG as a browser lays it out: an incident recorded from the real core (test/support/
// timeline-incident.ts) is drawn at several widths in Debian's Chromium; the box of every <text> is
// measured with the font the browser really uses, and no two may overlap and none may leave the
// picture. The renderer only estimates widths (it runs where no font can be measured): this is the
// check that its estimate is on the safe side.
//
// Screenshots: `UPDATE_SCREENSHOTS=1 npx vitest run test/browser/timeline-layout.test.ts` rewrites
// docs/images/timeline-incident.png; without it they go to test-output/ so a test run leaves the tree clean.

const projectRoot = resolve(import.meta.dirname, '../..');
const chromiumPath = findChromium();
const imagesDir =
  process.env.UPDATE_SCREENSHOTS === '1' ? join(projectRoot, 'docs/images') : join(projectRoot, 'test-output');
let browser: Browser | undefined;
let page: Page | undefined;

beforeAll(async () => {
  if (!chromiumPath) return;
  await mkdir(imagesDir, { recursive: true });
  browser = await launchChromium(chromiumPath);
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
});

afterAll(async () => {
  await browser?.close();
});

function requireBrowser(context: TestContext): void {
  if (chromiumPath) return;
  if (process.env.CI === 'true') throw new Error('Failed to run the browser test: Chromium is not installed');
  context.skip('Chromium is not installed (`command -v chromium` found nothing)');
}

interface TextBox {
  text: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Draws the SVG inline in a blank page and returns its size and the rendered box of every <text>. */
async function layout(page: Page, svg: string): Promise<{ width: number; height: number; texts: TextBox[] }> {
  await page.setContent(`<!doctype html><html><body style="margin:0">${svg}</body></html>`);
  return page.evaluate(() => {
    const root = document.querySelector('svg')!;
    const origin = root.getBoundingClientRect();
    const texts = [...root.querySelectorAll('text')].map((node) => {
      const box = node.getBoundingClientRect();
      return {
        text: node.textContent ?? '',
        x: box.x - origin.x,
        y: box.y - origin.y,
        width: box.width,
        height: box.height,
      };
    });
    return { width: origin.width, height: origin.height, texts };
  });
}

function overlaps(a: TextBox, b: TextBox): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** Every pair of texts that overlaps, and every text not wholly inside the picture, as readable lines. */
function layoutProblems(result: { width: number; height: number; texts: TextBox[] }): string[] {
  const problems: string[] = [];
  const { texts } = result;
  for (const box of texts) {
    if (box.width === 0) problems.push(`"${box.text}" has no width`);
    if (box.x < 0 || box.y < 0 || box.x + box.width > result.width || box.y + box.height > result.height)
      problems.push(`"${box.text}" leaves the ${result.width}x${result.height} picture: ${JSON.stringify(box)}`);
  }
  for (let first = 0; first < texts.length; first += 1)
    for (let second = first + 1; second < texts.length; second += 1)
      if (overlaps(texts[first]!, texts[second]!))
        problems.push(`"${texts[first]!.text}" overlaps "${texts[second]!.text}"`);
  return problems;
}

async function check(svg: string, screenshot?: string): Promise<TextBox[]> {
  const result = await layout(page!, svg);
  expect(layoutProblems(result)).toEqual([]);
  if (screenshot !== undefined) await page!.locator('svg').screenshot({ path: join(imagesDir, screenshot) });
  return result.texts;
}

it('finds overlapping and cut labels (the check can fail)', async (context) => {
  requireBrowser(context);
  const svg = [
    '<svg xmlns="http://www.w3.org/2000/svg" width="300" height="60" viewBox="0 0 300 60" font-size="12">',
    '<text x="10" y="20">client-5e3f0c2a9b1d</text><text x="60" y="24">+5 min</text>',
    '<text x="250" y="50">a name that runs out</text>',
    '</svg>',
  ].join('');
  expect(layoutProblems(await layout(page!, svg))).toEqual([
    expect.stringMatching(/^"a name that runs out" leaves the 300x60 picture/),
    '"client-5e3f0c2a9b1d" overlaps "+5 min"',
  ]);
});

it('draws a recorded incident with no text overlapping another or cut by the picture, at every width', async (context) => {
  requireBrowser(context);
  const { input, names } = await recordTimelineIncident();
  const options: TimelineOptions = { names };
  const texts = await check(renderTimelineSvg(input, { ...options, width: 1100 }), 'timeline-incident.png');
  const shown = texts.map((box) => box.text);
  // The names people know, each with its export pseudonym; the long label cut, whole in its <title>.
  expect(shown).toContain('demo-free');
  expect(shown).toContain('demo-pro');
  expect(shown.some((text) => /^client-[0-9a-f]{12}$/.test(text))).toBe(true);
  expect(shown.some((text) => text.startsWith('checkout-service') && text.endsWith('…'))).toBe(true);
  expect(renderTimelineSvg(input, { ...options, width: 1100 })).toContain(
    `<title>${teamKeyLabel.replace('&', '&amp;')}</title>`,
  );
  expect(shown).toContain('429 key_banned');
  expect(shown).toContain('budget 60/min');

  for (const width of [480, 640, 800, 1400, 2400]) await check(renderTimelineSvg(input, { ...options, width }));
});

it('keeps its labels apart for odd inputs: one request, a day, very many lanes, wide characters', async (context) => {
  requireBrowser(context);
  const t0 = Date.UTC(2026, 0, 1, 9);
  const lane = (client: string, requests: TimelineInput['clients'][number]['requests']) => ({
    client,
    plan: 'free',
    limits: { perMinute: 60, perDay: 1000 },
    requests,
    bans: [],
  });
  const inputs: TimelineInput[] = [
    { from: t0, to: t0 + 1000, clients: [lane('demo-free', [{ atMs: t0, status: 401 }])] },
    {
      from: t0,
      to: t0 + 3 * 86_400_000,
      title: `${'A very long title of a replay of a recording with a name nobody shortened '.repeat(3)}`,
      clients: [
        lane('ＷＷＷＷＷＷＷＷＷＷＷＷＷＷＷＷＷＷＷＷ 客户端 🐕🐕🐕🐕🐕', [{ atMs: t0 + 86_400_000, status: 200 }]),
      ],
    },
    {
      from: t0,
      to: t0 + 600_000,
      clients: Array.from({ length: 60 }, (_, index) =>
        lane(`MMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMM-${index}`, [{ atMs: t0 + index * 9_000, status: 429 }]),
      ),
    },
  ];
  for (const input of inputs) for (const width of [480, 1000]) await check(renderTimelineSvg(input, { width }));
});

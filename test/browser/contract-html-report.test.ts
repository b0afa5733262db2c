import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it, type TestContext } from 'vitest';
import { renderHtmlReport } from '../../contract-tests/report/html-report.js';
import { brokenRunReport } from '../support/broken-run-report.js';
import { findChromium, launchChromium } from '../support/chromium.js';

// The contract kit's HTML report as a browser shows it: a real run against a broken, hostile server
// (test/support/broken-run-report.ts: failures, INCONCLUSIVE cells, a rate-limit key's 429s and waits,
// markup and the keys echoed in its answers) is written to a file and opened in Debian's Chromium at
// 480, 768, 1,280 and 1,920 px. Nothing may overlap (the top-level sections, the cells of each table),
// nothing may leave the page (no horizontal scroll, no element past its right edge), no request may
// leave the file, no Content-Security-Policy violation or console error may happen, and the page's
// own style and script must run (their hashes are right).
//
// Screenshot: `UPDATE_SCREENSHOTS=1 npx vitest run test/browser/contract-html-report.test.ts` rewrites
// docs/images/contract-report.png; without it it goes to test-output/ so a test run leaves the tree clean.

const projectRoot = resolve(import.meta.dirname, '../..');
const chromiumPath = findChromium();
const imagesDir =
  process.env.UPDATE_SCREENSHOTS === '1' ? join(projectRoot, 'docs/images') : join(projectRoot, 'test-output');
const widths = [480, 768, 1280, 1920];
let browser: Browser | undefined;
let folder: string | undefined;
let reportUrl = '';

beforeAll(async () => {
  if (!chromiumPath) return;
  await mkdir(imagesDir, { recursive: true });
  folder = await mkdtemp(join(tmpdir(), 'contract-html-'));
  const { report } = await brokenRunReport();
  const file = join(folder, 'contract-report.html');
  await writeFile(file, renderHtmlReport(report));
  reportUrl = pathToFileURL(file).href;
  browser = await launchChromium(chromiumPath);
});

afterAll(async () => {
  await browser?.close();
  if (folder !== undefined) await rm(folder, { recursive: true, force: true });
});

function requireBrowser(context: TestContext): void {
  if (chromiumPath) return;
  if (process.env.CI === 'true') throw new Error('Failed to run the browser test: Chromium is not installed');
  context.skip('Chromium is not installed (`command -v chromium` found nothing)');
}

/** What went wrong on a page as it loaded: requests other than the file, CSP violations, console errors, dialogs. */
interface PageEvents {
  requests: string[];
  violations: string[];
  consoleErrors: string[];
  dialogs: string[];
}

async function openReport(width: number): Promise<{ page: Page; events: PageEvents }> {
  const page = await browser!.newPage({ viewport: { width, height: 900 } });
  const events: PageEvents = { requests: [], violations: [], consoleErrors: [], dialogs: [] };
  page.on('request', (request) => events.requests.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error') events.consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => events.consoleErrors.push(error.message));
  page.on('dialog', (dialog) => {
    events.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  // Injected by the browser's protocol, not by the page: the page's policy does not apply to it.
  await page.exposeFunction('reportViolation', (text: string) => events.violations.push(text));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) =>
      (window as unknown as { reportViolation(text: string): void }).reportViolation(
        `${event.violatedDirective} ${event.blockedURI}`,
      ),
    );
  });
  await page.goto(reportUrl);
  return { page, events };
}

/**
 * Opens every <details>, then measures: the document's scroll width, elements whose box passes the
 * viewport's right edge, pairs of top-level blocks of <main> that intersect, and pairs of cells of one
 * table that intersect (boxes that only touch do not count; hidden ones have no box).
 */
function measureLayout(page: Page) {
  return page.evaluate(() => {
    for (const details of document.querySelectorAll('details')) details.open = true;
    const visible = (box: DOMRect) => box.width > 0 && box.height > 0;
    const overlap = (a: DOMRect, b: DOMRect) =>
      Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5 &&
      Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;
    const name = (element: Element) =>
      `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''} "${(element.textContent ?? '').slice(0, 40)}"`;
    const pairs = (elements: Element[]) => {
      const boxes = elements.map((element) => ({ element, box: element.getBoundingClientRect() }));
      const found: string[] = [];
      for (let i = 0; i < boxes.length; i += 1)
        for (let j = i + 1; j < boxes.length; j += 1)
          if (visible(boxes[i]!.box) && visible(boxes[j]!.box) && overlap(boxes[i]!.box, boxes[j]!.box))
            found.push(`${name(boxes[i]!.element)} x ${name(boxes[j]!.element)}`);
      return found;
    };
    const viewport = document.documentElement.clientWidth;
    const main = document.querySelector('main')!;
    return {
      viewport,
      scrollWidth: document.documentElement.scrollWidth,
      sections: [...main.children].map(
        (element) => element.tagName.toLowerCase() + (element.id ? `#${element.id}` : ''),
      ),
      sectionOverlaps: pairs([...main.children]),
      cellOverlaps: [...document.querySelectorAll('table')].flatMap((table) =>
        pairs([...table.querySelectorAll('th, td')]),
      ),
      cells: document.querySelectorAll('th, td').length,
      pastRightEdge: [...document.querySelectorAll('body *')]
        .filter((element) => {
          const box = element.getBoundingClientRect();
          return visible(box) && box.right > viewport + 0.5;
        })
        .map(name),
    };
  });
}

it('finds overlapping sections and cells, and content past the edge (the check can fail)', async (context) => {
  requireBrowser(context);
  const page = await browser!.newPage({ viewport: { width: 480, height: 600 } });
  await page.setContent(
    '<main><section style="height:40px">a</section><section style="margin-top:-20px;height:40px">b</section>' +
      '<pre>averyveryveryveryveryveryveryveryveryveryveryveryveryveryveryveryverylongword</pre>' +
      '<div style="width:600px">wide</div><table><tr><td style="transform:translateX(20px);width:60px">x</td><td style="width:60px">y</td></tr></table></main>',
  );
  const layout = await measureLayout(page);
  await page.close();
  expect(layout.sectionOverlaps.length).toBeGreaterThan(0);
  expect(layout.cellOverlaps.length).toBeGreaterThan(0);
  expect(layout.scrollWidth).toBeGreaterThan(layout.viewport);
  expect(layout.pastRightEdge.length).toBeGreaterThan(0);
});

it.each(widths)(
  'lays out a broken server’s report at %i px: no overlap, nothing past the page, no request, no violation',
  async (width, context) => {
    requireBrowser(context as unknown as TestContext);
    const { page, events } = await openReport(width);
    try {
      const layout = await measureLayout(page);
      expect(layout.sections).toEqual([
        'header#summary',
        'section#failures',
        'section#inconclusive',
        'section#coverage',
        'section#rate-limits',
        'section#checks',
        'section#rules',
        'footer',
      ]);
      expect(layout.cells).toBeGreaterThan(500);
      expect(layout.sectionOverlaps).toEqual([]);
      expect(layout.cellOverlaps).toEqual([]);
      expect(layout.pastRightEdge).toEqual([]);
      expect(layout.scrollWidth).toBeLessThanOrEqual(layout.viewport);

      // The page's own style and script ran (the policy's hashes are theirs); nothing a server sent did.
      const page_ = await page.evaluate(() => ({
        styled: getComputedStyle(document.querySelector('.verdict')!).backgroundColor,
        copyButtons: [...document.querySelectorAll('button[data-copy]')].filter(
          (button) => !(button as HTMLButtonElement).hidden,
        ).length,
        scripts: document.querySelectorAll('script').length,
        foreign: document.querySelectorAll(
          'img, iframe, object, embed, link, style:not(head > style), script:not(body > script)',
        ).length,
        timeline: document.querySelector('#rate-limits svg') !== null,
      }));
      expect(page_.styled).not.toBe('rgba(0, 0, 0, 0)');
      expect(page_.copyButtons).toBeGreaterThan(0);
      expect(page_.scripts).toBe(1);
      expect(page_.foreign).toBe(0);
      expect(page_.timeline).toBe(true);
      expect(events.requests).toEqual([reportUrl]);
      expect(events.violations).toEqual([]);
      expect(events.consoleErrors).toEqual([]);
      expect(events.dialogs).toEqual([]);
      // The head of the report, small enough for the package's docs (docs/images ships).
      if (width === 1280)
        await page.screenshot({
          path: join(imagesDir, 'contract-report.png'),
          clip: { x: 0, y: 0, width, height: 720 },
        });
    } finally {
      await page.close();
    }
  },
);

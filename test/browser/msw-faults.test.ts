import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildExample, serveDirectory } from '../../mocks/example/build-example.js';
import { findChromium, launchChromium } from '../support/chromium.js';

// Latency and faults (decision 042) as a page sees them through the service worker, in Debian's
// Chromium: a network error for reset and close, nothing until the page aborts for a timeout, a late
// answer, a streamed body, and the core's own answer for status, malformed and empty. The example
// page (mocks/example) is the app; its fetches are made with page.evaluate.

const projectRoot = resolve(import.meta.dirname, '../..');
const chromiumPath = findChromium();
const missingReason =
  'Chromium is not installed (`command -v chromium` found nothing); install it with `apt-get install -y --no-install-recommends chromium`';

let browser: Browser | undefined;
let page: Page | undefined;
let site: Awaited<ReturnType<typeof serveDirectory>> | undefined;

beforeAll(async () => {
  if (!chromiumPath) return;
  const { outDir } = await buildExample({ outDir: join(projectRoot, 'test-output', 'msw-faults-site') });
  site = await serveDirectory(outDir);
  browser = await launchChromium(chromiumPath);
  page = await browser.newPage();
  await page.goto(`${site.origin}/`);
  // The worker is ready once the page says so (it lists the categories through it).
  await page.locator('#status[data-state="ready"]').waitFor({ timeout: 30_000 });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
});

/** What the page's fetch of /v1/categories with this Prefer came to: its status and body, or the error's name. */
function fetchInPage(prefer: string, abortAfterMs?: number) {
  return page!.evaluate(
    async ({ prefer, abortAfterMs }) => {
      const started = performance.now();
      try {
        const response = await fetch('/v1/categories', {
          headers: { authorization: 'Bearer demo-pro', prefer },
          ...(abortAfterMs === undefined ? {} : { signal: AbortSignal.timeout(abortAfterMs) }),
        });
        const text = await response.text();
        let parses = true;
        try {
          JSON.parse(text);
        } catch {
          parses = false;
        }
        return { status: response.status, length: text.length, parses, ms: performance.now() - started };
      } catch (error) {
        return { error: (error as Error).name, ms: performance.now() - started };
      }
    },
    { prefer, abortAfterMs },
  );
}

it('shows each fault kind a browser can show, through the service worker', async (context) => {
  if (!chromiumPath) {
    if (process.env.CI === 'true')
      throw new Error(
        `Failed to run the browser test: ${missingReason}. .ci/run installs it; CI=true forbids skipping.`,
      );
    context.skip(missingReason);
  }
  expect(await fetchInPage('fault=reset')).toMatchObject({ error: 'TypeError' });
  expect(await fetchInPage('fault=close')).toMatchObject({ error: 'TypeError' });
  expect((await fetchInPage('fault=timeout', 300)).error).toMatch(/AbortError|TimeoutError/);

  const late = await fetchInPage('delay=250');
  expect(late).toMatchObject({ status: 200, parses: true });
  expect(late.ms).toBeGreaterThanOrEqual(240);

  const dripped = await fetchInPage('fault=slow-body');
  expect(dripped).toMatchObject({ status: 200, parses: true });
  // The default drip: the body over 2 s.
  expect(dripped.ms).toBeGreaterThanOrEqual(1_500);

  expect(await fetchInPage('fault=status')).toMatchObject({ status: 429, parses: true });
  expect(await fetchInPage('fault=malformed')).toMatchObject({ status: 200, parses: false });
  expect(await fetchInPage('fault=empty')).toMatchObject({ status: 200, length: 0, parses: false });

  // The page's log says what each request met.
  const logged = await page!.evaluate(
    async () => (await (await fetch('/__mock/requests')).json()) as { fault?: string }[],
  );
  expect(logged.map((entry) => entry.fault).filter(Boolean)).toEqual([
    'reset',
    'close',
    'timeout',
    'slow-body',
    'status',
    'malformed',
    'empty',
  ]);
}, 60_000);

import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildExample, serveDirectory } from '../../mocks/example/build-example.js';
import { findChromium, launchChromium } from '../support/chromium.js';

// The MSW handlers in a real browser: the example page (mocks/example) is built with esbuild,
// served on 127.0.0.1, and driven in Debian's Chromium through playwright-core, which never
// downloads a browser of its own.

const projectRoot = resolve(import.meta.dirname, '../..');
const outputDir = join(projectRoot, 'test-output');
const chromiumPath = findChromium();
const missingReason =
  'Chromium is not installed (`command -v chromium` found nothing); install it with `apt-get install -y --no-install-recommends chromium`';

let browser: Browser | undefined;
let page: Page | undefined;
let site: Awaited<ReturnType<typeof serveDirectory>> | undefined;

beforeAll(async () => {
  if (!chromiumPath) return;
  // The page's build output goes to a folder of test-output/ (gitignored), not to mocks/example/dist.
  const { outDir } = await buildExample({ outDir: join(outputDir, 'msw-example-site') });
  site = await serveDirectory(outDir);
  browser = await launchChromium(chromiumPath);
  page = await browser.newPage({ viewport: { width: 900, height: 900 } });
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
});

it('lists, creates and shows a 429 with Retry-After, all answered by the service worker', async (context) => {
  if (!chromiumPath) {
    // In CI a missing browser is a broken environment, never a silent skip.
    if (process.env.CI === 'true')
      throw new Error(
        `Failed to run the browser test: ${missingReason}. .ci/run installs it; CI=true forbids skipping.`,
      );
    context.skip(missingReason);
  }
  const tab = page!;
  const pageErrors: string[] = [];
  tab.on('pageerror', (error) => pageErrors.push(error.message));
  // Every /v1 request must be answered by MSW: the static server has no /v1 and would answer 404.
  const fromNetwork: string[] = [];
  site!.server.on('request', (request) => {
    if (request.url?.startsWith('/v1')) fromNetwork.push(request.url);
  });

  await tab.goto(`${site!.origin}/`);
  await expect.poll(() => tab.locator('#status').getAttribute('data-state')).toBe('ready');

  // The seeded list (3 faker categories under seed 42).
  await expect.poll(() => tab.locator('#categories li').count()).toBe(3);
  expect(await tab.locator('#last-response').textContent()).toMatch(/^200 · X-RateLimit-Remaining 59\/60$/);

  // Create one; the list shows it with the id the mock assigned.
  await tab.fill('#name', 'axolotl');
  await tab.fill('#description', 'Walking fish, made in a browser');
  await tab.click('#create');
  await expect
    .poll(() => tab.locator('#create-result').textContent())
    .toMatch(/^201 created #4 axolotl \(Location: \/v1\/categories\/4\)$/);
  await expect
    .poll(() => tab.locator('#categories li').allTextContents())
    .toContain('#4 axolotl - Walking fish, made in a browser');

  // A 400 from the same rules as the server.
  await tab.fill('#name', '');
  await tab.fill('#description', '');
  await tab.click('#create');
  await expect.poll(() => tab.locator('#create-result').getAttribute('data-status')).toBe('400');
  expect(await tab.locator('#create-result').textContent()).toBe(
    '400 validation_failed: Invalid request body: name is required',
  );

  // Past the Free plan's 60 per minute: 429 with Retry-After.
  await tab.click('#flood');
  await expect.poll(() => tab.locator('#limit-result').getAttribute('data-status'), { timeout: 30_000 }).toBe('429');
  const limitText = (await tab.locator('#limit-result').textContent()) ?? '';
  expect(limitText).toMatch(/^429 rate_limited: Rate limit exceeded; retry after \d+ seconds/);
  expect(limitText).toMatch(/Retry-After: \d+ s · X-RateLimit-Remaining 0\/60$/);
  // list, create, list again and the 400 came first: 60 allowed in all, so the loop's 57th is refused.
  expect(limitText).toContain('after 57 requests');
  expect(Number(await tab.locator('#limit-result').getAttribute('data-retry-after'))).toBeGreaterThan(0);

  await mkdir(outputDir, { recursive: true });
  await tab.screenshot({ path: join(outputDir, 'msw-example.png'), fullPage: true });

  // The controls work as functions in the page: a minute later the list loads again.
  await tab.click('#advance');
  await expect.poll(() => tab.locator('#last-response').textContent()).toMatch(/^200 · X-RateLimit-Remaining 59\/60$/);

  expect(fromNetwork).toEqual([]);
  expect(pageErrors).toEqual([]);
});

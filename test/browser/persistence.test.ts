import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { serveDirectory } from '../../mocks/example/build-example.js';
import { petstoreSpecPlugin } from '../../mocks/scripts/bundle-spec.mjs';
import { findChromium, launchChromium } from '../support/chromium.js';

// `setupPetstoreWorker({ persist: 'sessionStorage' })` in Debian's Chromium: a category created and a
// budget spent before a reload are still there after it (docs/msw.md, "Keeping state across reloads").

const projectRoot = resolve(import.meta.dirname, '../..');
const outDir = join(projectRoot, 'test-output', 'persist-site');
const chromiumPath = findChromium();
const stateKey = 'petstore-kit:state:default';

let browser: Browser | undefined;
// One context for both tests: the service worker is registered once.
let browserContext: BrowserContext | undefined;
let site: Awaited<ReturnType<typeof serveDirectory>> | undefined;

beforeAll(async () => {
  if (!chromiumPath) return;
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  await build({
    entryPoints: [join(import.meta.dirname, 'persist-page', 'main.ts')],
    outfile: join(outDir, 'main.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    logLevel: 'silent',
    plugins: [petstoreSpecPlugin()],
  });
  await writeFile(
    join(outDir, 'index.html'),
    '<!doctype html><html><head><meta charset="utf-8"><title>persist</title></head><body><script type="module" src="./main.js"></script></body></html>',
  );
  // What `msw init` writes, copied: the installed msw's own worker script.
  await copyFile(
    join(projectRoot, 'node_modules', 'msw', 'lib', 'mockServiceWorker.js'),
    join(outDir, 'mockServiceWorker.js'),
  );
  site = await serveDirectory(outDir);
  browser = await launchChromium(chromiumPath);
  browserContext = await browser.newContext();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
});

type Answer = { status: number; remaining: string | null; body: string };

it('keeps created categories and the spent budget across a page reload', async (context) => {
  if (!chromiumPath) {
    if (process.env.CI === 'true') throw new Error('Failed to run the browser test: Chromium is not installed');
    context.skip('Chromium is not installed (`command -v chromium` found nothing)');
  }
  const page = await browserContext!.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  const call = (method: string, path: string, body?: unknown) =>
    page.evaluate(([m, p, b]) => (globalThis as unknown as { api(...args: unknown[]): Promise<Answer> }).api(m, p, b), [
      method,
      path,
      body,
    ] as const);
  const ready = () => expect.poll(() => page.evaluate(() => document.body.dataset.state)).toBe('ready');

  await page.goto(`${site!.origin}/`);
  await ready();
  expect((await call('POST', '/categories', { name: 'axolotl' })).status).toBe(201);
  const before = await call('GET', '/categories');
  expect(before.body).toContain('axolotl');
  // Saved after the requests (debounced): wait for the storage to hold the category.
  await expect.poll(() => page.evaluate((key) => sessionStorage.getItem(key) ?? '', stateKey)).toContain('axolotl');

  await page.reload();
  await ready();
  const after = await call('GET', '/categories');
  expect(after.status).toBe(200);
  expect(after.body).toBe(before.body);
  // The minute window went on where it was: one more request spent, not a fresh budget.
  expect(Number(after.remaining)).toBe(Number(before.remaining) - 1);
  expect(errors).toEqual([]);
  await page.close();
});

it('starts fresh when the saved state is not one it can apply, with one warning', async (context) => {
  if (!chromiumPath) context.skip('Chromium is not installed');
  const page = await browserContext!.newPage();
  const warnings: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'warning' && message.text().startsWith('petstore-kit:')) warnings.push(message.text());
  });
  await page.goto(`${site!.origin}/`);
  await expect.poll(() => page.evaluate(() => document.body.dataset.state)).toBe('ready');
  await page.evaluate((key) => sessionStorage.setItem(key, '{"v":1,"state":{"keys":"not a list"}}'), stateKey);
  await page.reload();
  await expect.poll(() => page.evaluate(() => document.body.dataset.state)).toBe('ready');
  const answer = await page.evaluate(() =>
    (globalThis as unknown as { api(...args: unknown[]): Promise<Answer> }).api('GET', '/categories'),
  );
  expect(answer.status).toBe(200);
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toMatch(/^petstore-kit: dropped the mock's saved state/);
  await page.close();
});

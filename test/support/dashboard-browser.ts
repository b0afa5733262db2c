import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, type TestContext } from 'vitest';
import { startMockServer } from '../../src/server/start-server.js';
import { findChromium, launchChromium } from './chromium.js';
import { FakeDashboardServer } from './fake-dashboard-server.js';

// What the dashboard's browser tests share: Debian's Chromium through playwright-core, the REAL mock
// (startMockServer) or, for failure injection only, test/support/fake-dashboard-server.ts; real API
// traffic; screenshots.

const projectRoot = resolve(import.meta.dirname, '../..');
/** Where screenshots go: test-output/, or docs/images/ with UPDATE_SCREENSHOTS=1 (so a test run leaves the tree clean). */
export const screenshotDir = join(projectRoot, process.env.UPDATE_SCREENSHOTS === '1' ? 'docs/images' : 'test-output');
const outputDir = join(projectRoot, 'test-output');
const chromiumPath = findChromium();
const missingReason =
  'Chromium is not installed (`command -v chromium` found nothing); install it with `apt-get install -y --no-install-recommends chromium`';

/** What the steps need from a mock: its origin and a way to stop it; `fake` only for the failure-injection test. */
export interface DashboardTarget {
  origin: string;
  close(): Promise<void>;
  fake: FakeDashboardServer | undefined;
}

/**
 * The real mock on 127.0.0.1 (the default ban policy: 10 refusals, 900 s) with one configured key
 * besides the demo keys, never used by the steps (shown masked, `used: false`).
 */
export async function startTarget(
  options: {
    controlToken?: string;
    requestLogSize?: number;
    keys?: { key: string; limits: { perMinute: number; perDay: number } }[];
  } = {},
): Promise<DashboardTarget> {
  const mock = await startMockServer({
    port: 0,
    seed: 1,
    config: {
      keys: [{ key: 'sk-team-7f3a9c21', plan: 'pro' }, ...(options.keys ?? [])],
      ...(options.controlToken !== undefined ? { controlToken: options.controlToken } : {}),
      ...(options.requestLogSize !== undefined ? { requestLogSize: options.requestLogSize } : {}),
    },
  });
  let closed = false;
  return {
    origin: mock.origin,
    fake: undefined,
    close: async () => {
      if (closed) return;
      closed = true;
      await mock.close(1_000);
    },
  };
}

export async function startFakeTarget(): Promise<DashboardTarget> {
  const fake = await FakeDashboardServer.start({});
  let closed = false;
  return {
    origin: fake.origin,
    fake,
    close: async () => {
      if (closed) return;
      closed = true;
      await fake.close();
    },
  };
}

export interface PageWatch {
  outside: string[];
  errors: string[];
  cspViolations: string[];
  /** Every request the page made, with its headers, seen from the browser (no server hook needed). */
  sent: { method: string; url: string; headers: Record<string, string> }[];
}

export function requireBrowser(context: TestContext): void {
  if (chromiumPath) return;
  // In CI a missing browser is a broken environment, never a silent skip.
  if (process.env.CI === 'true')
    throw new Error(`Failed to run the browser test: ${missingReason}. .ci/run installs it; CI=true forbids skipping.`);
  context.skip(missingReason);
}

/** Real API traffic, as any client sends it: works the same against the fake and the real mock. */
export async function sendTraffic(
  baseUrl: string,
  options: { key?: string; count: number; session?: string },
): Promise<number[]> {
  const statuses: number[] = [];
  for (let index = 0; index < options.count; index++) {
    const headers: Record<string, string> = {};
    if (options.key !== undefined) headers.Authorization = `Bearer ${options.key}`;
    if (options.session !== undefined) headers['X-Mock-Session'] = options.session;
    const response = await fetch(`${baseUrl}/v1/categories`, { headers });
    await response.arrayBuffer();
    statuses.push(response.status);
  }
  return statuses;
}

export async function shot(tab: Page, name: string): Promise<void> {
  // From the top: a full-page capture of a scrolled page would draw the sticky header mid-page.
  await tab.evaluate(() => window.scrollTo(0, 0));
  await tab.screenshot({ path: join(outputDir, `dashboard-${name}.png`), fullPage: true });
}

export const card = (tab: Page, client: string) => tab.locator(`article.client-card[data-client="${client}"]`);
export const gaugeText = (tab: Page, client: string, window: 'minute' | 'day') =>
  card(tab, client).locator(`.gauge[data-window="${window}"] .gauge-numbers`).textContent();

/**
 * Registers the hooks of a dashboard browser test file (one Chromium for the file; after each test,
 * every page's context and mock closed, and the page checked to have stayed on the mock's origin,
 * thrown nothing and broken no CSP rule) and returns the page opener.
 */
export function useDashboardBrowser(): {
  openDashboard(target: DashboardTarget, waitFor?: 'live' | 'needs-token'): Promise<{ tab: Page; watch: PageWatch }>;
} {
  let browser: Browser | undefined;
  const open: { context: BrowserContext; target: DashboardTarget; watch: PageWatch }[] = [];

  beforeAll(async () => {
    if (!chromiumPath) return;
    await mkdir(outputDir, { recursive: true });
    browser = await launchChromium(chromiumPath);
  });

  afterEach(async () => {
    // Every page, whatever it did, stayed on the mock's origin, threw nothing and broke no CSP rule.
    for (const { context, target, watch } of open.splice(0)) {
      await context.close();
      await target.close();
      expect(watch.outside, 'requests outside the mock origin').toEqual([]);
      expect(watch.errors, 'page errors').toEqual([]);
      expect(watch.cspViolations, 'Content-Security-Policy violations').toEqual([]);
    }
  });

  afterAll(async () => {
    await browser?.close();
  });

  /** Opens the page of `target` in a fresh browser context (its own sessionStorage) on a laptop-sized screen. */
  async function openDashboard(
    target: DashboardTarget,
    waitFor: 'live' | 'needs-token' = 'live',
  ): Promise<{ tab: Page; watch: PageWatch }> {
    const context = await browser!.newContext({ viewport: { width: 1280, height: 800 } });
    const tab = await context.newPage();
    const watch: PageWatch = { outside: [], errors: [], cspViolations: [], sent: [] };
    open.push({ context, target, watch });
    tab.on('request', (request) => {
      const url = request.url();
      if (url.startsWith('data:')) return;
      if (new URL(url).origin !== target.origin) watch.outside.push(url);
      watch.sent.push({ method: request.method(), url: url.slice(target.origin.length), headers: request.headers() });
    });
    tab.on('pageerror', (error) => watch.errors.push(error.message));
    tab.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) watch.cspViolations.push(message.text());
    });
    const response = await tab.goto(`${target.origin}/__mock/ui`);
    // Served with its strict policy: the page's own script and style by hash, requests to its origin only.
    const policy = response?.headers()['content-security-policy'] ?? '';
    expect(policy).toContain("connect-src 'self'");
    expect(policy).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(policy).not.toContain('unsafe-');
    await expect.poll(() => tab.locator('#live-state').getAttribute('data-state')).toBe(waitFor);
    return { tab, watch };
  }

  return { openDashboard };
}

import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it, type TestContext } from 'vitest';
import { startMockServer } from '../../src/server/start-server.js';
import { findChromium } from '../support/chromium.js';
import { FakeDashboardServer } from '../support/fake-dashboard-server.js';

// The dashboard page (/__mock/ui) in Debian's Chromium through playwright-core, launched exactly as
// msw-example.test.ts does, against the REAL running mock (startMockServer): real API traffic
// (sendTraffic below: GET /v1/categories with a bearer key) drives a key into a 429 and a ban, and
// the page's buttons call the real controls. Only the failure-injection test runs against
// test/support/fake-dashboard-server.ts: a healthy mock cannot be told to answer its dashboard with a 500
// or with broken JSON.

const projectRoot = resolve(import.meta.dirname, '../..');
const outputDir = join(projectRoot, 'test-output');
const chromiumPath = findChromium();
const missingReason =
  'Chromium is not installed (`command -v chromium` found nothing); install it with `apt-get install -y --no-install-recommends chromium`';

let browser: Browser | undefined;
const open: { context: BrowserContext; target: DashboardTarget; watch: PageWatch }[] = [];

/** What the steps need from a mock: its origin and a way to stop it; `fake` only for the failure-injection test. */
interface DashboardTarget {
  origin: string;
  close(): Promise<void>;
  fake: FakeDashboardServer | undefined;
}

/**
 * The real mock on 127.0.0.1 (the default ban policy: 10 refusals, 900 s) with one configured key
 * besides the demo keys, never used by the steps (shown masked, `used: false`).
 */
async function startTarget(
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

async function startFakeTarget(): Promise<DashboardTarget> {
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

beforeAll(async () => {
  if (!chromiumPath) return;
  await mkdir(outputDir, { recursive: true });
  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
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

interface PageWatch {
  outside: string[];
  errors: string[];
  cspViolations: string[];
  /** Every request the page made, with its headers, seen from the browser (no server hook needed). */
  sent: { method: string; url: string; headers: Record<string, string> }[];
}

function requireBrowser(context: TestContext): void {
  if (chromiumPath) return;
  // In CI a missing browser is a broken environment, never a silent skip.
  if (process.env.CI === 'true')
    throw new Error(`Failed to run the browser test: ${missingReason}. .ci/run installs it; CI=true forbids skipping.`);
  context.skip(missingReason);
}

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

/** Real API traffic, as any client sends it: works the same against the fake and the real mock. */
async function sendTraffic(
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

async function shot(tab: Page, name: string): Promise<void> {
  // From the top: a full-page capture of a scrolled page would draw the sticky header mid-page.
  await tab.evaluate(() => window.scrollTo(0, 0));
  await tab.screenshot({ path: join(outputDir, `dashboard-${name}.png`), fullPage: true });
}

const card = (tab: Page, client: string) => tab.locator(`article.client-card[data-client="${client}"]`);
const gaugeText = (tab: Page, client: string, window: 'minute' | 'day') =>
  card(tab, client).locator(`.gauge[data-window="${window}"] .gauge-numbers`).textContent();

it('shows every key with both windows, then a 429 and a ban appear, and advancing the clock refills the window', async (context) => {
  requireBrowser(context);
  const target = await startTarget();
  const { tab, watch } = await openDashboard(target);

  // Configured keys appear before their first request: demo keys by name, others masked.
  await expect.poll(() => card(tab, 'demo-free').count()).toBe(1);
  expect(await card(tab, 'demo-free').getAttribute('data-used')).toBe('false');
  expect(await tab.locator('article.client-card[data-used="false"]').count()).toBeGreaterThanOrEqual(4);
  expect(await tab.locator('article.client-card .client-name').allTextContents()).toContain('sk-t…(16)');
  expect(await gaugeText(tab, 'demo-free', 'minute')).toBe('0 / 60');
  expect(await tab.locator('#clock-now').textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
  await shot(tab, '01-start');

  // 40 requests: the gauges move, the key is "used", an anonymous client appears.
  expect(new Set(await sendTraffic(target.origin, { key: 'demo-free', count: 40 }))).toEqual(new Set([200]));
  await sendTraffic(target.origin, { count: 3 });
  await expect.poll(() => gaugeText(tab, 'demo-free', 'minute')).toBe('40 / 60');
  expect(await gaugeText(tab, 'demo-free', 'day')).toBe('40 / 1000');
  expect(await card(tab, 'demo-free').getAttribute('data-used')).toBe('true');
  expect(await card(tab, 'demo-free').locator('.gauge[data-window="minute"] .gauge-reset').textContent()).toMatch(
    /^resets in (1 min 00 s|\d+ s)$/,
  );
  await expect.poll(() => tab.locator('article.client-card[data-client^="anonymous "]').count()).toBe(1);
  await expect.poll(() => tab.locator('#log-viewport').getAttribute('data-total')).toBe('43');

  // Past 60 per minute: a 429, the gauge says full, the log and the coverage show it.
  const statuses = await sendTraffic(target.origin, { key: 'demo-free', count: 21 });
  expect(statuses.filter((status) => status === 429).length).toBe(1);
  await expect.poll(() => gaugeText(tab, 'demo-free', 'minute')).toBe('60 / 60 · full');
  expect(await card(tab, 'demo-free').locator('.gauge[data-window="minute"]').getAttribute('data-level')).toBe('full');
  expect(await card(tab, 'demo-free').locator('.counts').textContent()).toContain('1 refused with 429');
  await expect.poll(() => tab.locator('#announcer').textContent()).toContain('demo-free was refused with 429');
  expect(await tab.locator('#situations li[data-situation="429"]').textContent()).toMatch(/^✓ met/);
  expect(await tab.locator('.vt-body .status-limited').count()).toBeGreaterThan(0);
  await shot(tab, '02-429');

  // Retrying at once past the tolerated refusals: banned, with the time left; a verdict fails.
  await sendTraffic(target.origin, { key: 'demo-free', count: 10 });
  await expect.poll(() => card(tab, 'demo-free').getAttribute('data-banned')).toBe('true');
  expect(await card(tab, 'demo-free').locator('.ban').textContent()).toMatch(/^BANNED · \d+ min \d\d s left$/);
  expect(await tab.locator('#announcer').textContent()).toMatch(/demo-free is banned for \d+ min/);
  expect(await card(tab, 'demo-free').locator('.verdict[data-rule="no-hammering"]').getAttribute('data-outcome')).toBe(
    'fail',
  );
  expect(await card(tab, 'demo-free').locator('.verdict[data-rule="no-hammering"]').textContent()).toBe('✗ fail');
  expect(await tab.locator('#situations li[data-situation="ban"]').textContent()).toMatch(/^✓ met/);
  await shot(tab, '03-ban');

  // +1 min: the minute window has reset (the ban is still running); +1 h: the ban is over too.
  const before = await tab.locator('#clock-now').textContent();
  await tab.getByRole('button', { name: '+1 min' }).click();
  await expect.poll(() => gaugeText(tab, 'demo-free', 'minute')).toBe('0 / 60');
  expect(await tab.locator('#clock-now').textContent()).not.toBe(before);
  expect(await tab.locator('#clock-offset').textContent()).toBe('+1 min 00 s');
  expect(await card(tab, 'demo-free').getAttribute('data-banned')).toBe('true');
  expect(await gaugeText(tab, 'demo-free', 'day')).toBe('60 / 1000');
  await shot(tab, '04-advanced-minute');
  await tab.getByRole('button', { name: '+1 h' }).click();
  await expect.poll(() => card(tab, 'demo-free').getAttribute('data-banned')).toBe('false');
  expect(await card(tab, 'demo-free').locator('.ban').textContent()).toBe('Not banned');
  expect(await tab.locator('#announcer').textContent()).toMatch(/Clock advanced by 1 h 00 min/);
  expect(await sendTraffic(target.origin, { key: 'demo-free', count: 1 })).toEqual([200]);
  await expect.poll(() => gaugeText(tab, 'demo-free', 'minute')).toBe('1 / 60');
  await shot(tab, '05-after-ban');

  // Reset asks for a confirmation, then wipes the session (the mock keeps the session's clock).
  const offsetBeforeReset = await tab.locator('#clock-offset').textContent();
  await tab.locator('#reset-button').click();
  expect(await tab.locator('#reset-button').textContent()).toBe('Confirm: reset session default');
  await tab.locator('#reset-button').click();
  await expect.poll(() => card(tab, 'demo-free').getAttribute('data-used')).toBe('false');
  expect(await gaugeText(tab, 'demo-free', 'minute')).toBe('0 / 60');
  expect(await tab.locator('#clock-offset').textContent()).toBe(offsetBeforeReset);

  // Every control call was a same-origin POST to the existing routes with a JSON body.
  const controls = watch.sent.filter((request) => request.method === 'POST');
  expect(controls.map((request) => request.url)).toEqual(['/__mock/clock', '/__mock/clock', '/__mock/reset']);
  expect(controls.slice(0, 2).map((request) => request.headers['content-type'])).toEqual([
    'application/json',
    'application/json',
  ]);
  // Only the page, its polls and the controls: nothing else was asked of the mock.
  expect(new Set(watch.sent.map((request) => request.url.replace(/\?.*$/, '')))).toEqual(
    new Set(['/__mock/ui', '/__mock/dashboard', '/__mock/clock', '/__mock/reset']),
  );
  // The poll is conditional: an unchanged snapshot comes back as 304 to the page's If-None-Match.
  expect(
    watch.sent.some(
      (request) =>
        request.url === '/__mock/dashboard?limit=10000' && /^"[^"]+"$/.test(request.headers['if-none-match'] ?? ''),
    ),
  ).toBe(true);
});

it('switches sessions with the picker and sends X-Mock-Session with every poll and control', async (context) => {
  requireBrowser(context);
  const target = await startTarget();
  await sendTraffic(target.origin, { key: 'demo-pro', count: 5, session: 'ci-job-b' });
  await sendTraffic(target.origin, { key: 'demo-free', count: 2 });
  const { tab, watch } = await openDashboard(target);

  const picker = tab.getByLabel('Session');
  await expect.poll(() => picker.isVisible()).toBe(true);
  expect(await tab.locator('#session-picker option').allTextContents()).toEqual([
    expect.stringMatching(/^default \(default\)/),
    expect.stringMatching(/^ci-job-b · last seen /),
  ]);
  await expect.poll(() => gaugeText(tab, 'demo-free', 'minute')).toBe('2 / 60');
  expect(await gaugeText(tab, 'demo-pro', 'minute')).toBe('0 / 300');

  await picker.selectOption('ci-job-b');
  await expect.poll(() => gaugeText(tab, 'demo-pro', 'minute')).toBe('5 / 300');
  expect(await gaugeText(tab, 'demo-free', 'minute')).toBe('0 / 60');
  const mark = watch.sent.length;
  await tab.getByRole('button', { name: '+1 day' }).click();
  await expect.poll(() => tab.locator('#clock-offset').textContent()).toBe('+1 d 0 h');
  await shot(tab, '06-session-picker');
  const after = watch.sent.slice(mark);
  expect(after.some((request) => request.url === '/__mock/clock')).toBe(true);
  expect(after.length).toBeGreaterThan(0);
  for (const request of after) expect(request.headers['x-mock-session'], request.url).toBe('ci-job-b');

  // A reload of the tab stays on the chosen session.
  await tab.reload();
  await expect.poll(() => tab.locator('#clock-offset').textContent()).toBe('+1 d 0 h');
  expect(await picker.inputValue()).toBe('ci-job-b');

  // The other session's clock did not move.
  await picker.selectOption('default');
  await expect.poll(() => tab.locator('#clock-offset').textContent()).toBe('none');
  // The default session is the one the mock answers without the header.
  expect(watch.sent.at(-1)?.headers['x-mock-session']).toBeUndefined();
});

it('asks for the control token, keeps it in sessionStorage only and sends it with every call', async (context) => {
  requireBrowser(context);
  const target = await startTarget({ controlToken: 's3cret-token' });
  const { tab, watch } = await openDashboard(target, 'needs-token');

  // The page itself needs no token; its first poll is refused, so it asks.
  await expect.poll(() => tab.locator('#live-state').getAttribute('data-state')).toBe('needs-token');
  expect(await tab.locator('#token-form').isVisible()).toBe(true);
  expect(await tab.locator('#token-reason').textContent()).toContain('X-Mock-Control-Token');
  await expect.poll(() => tab.evaluate(() => document.activeElement?.id)).toBe('token-input');
  await shot(tab, '07-token-form');

  await tab.getByLabel('Control token').fill('s3cret-token');
  await tab.keyboard.press('Enter');
  await expect.poll(() => tab.locator('#live-state').getAttribute('data-state')).toBe('live');
  expect(await tab.locator('#token-form').isVisible()).toBe(false);
  expect(
    await tab.evaluate(() => [
      sessionStorage.getItem('petstore-mock.control-token'),
      localStorage.length,
      document.cookie,
    ]),
  ).toEqual(['s3cret-token', 0, '']);
  const mark = watch.sent.length;
  await tab.getByRole('button', { name: '+1 min' }).click();
  await expect.poll(() => tab.locator('#clock-offset').textContent()).toBe('+1 min 00 s');
  const withToken = watch.sent.slice(mark);
  expect(withToken.some((request) => request.url === '/__mock/clock')).toBe(true);
  for (const request of withToken) expect(request.headers['x-mock-control-token']).toBe('s3cret-token');
  expect(await tab.locator('#token-input').inputValue()).toBe('');

  // Another tab of the same browser does not get it: sessionStorage belongs to one tab.
  const otherTab = await tab.context().newPage();
  await otherTab.goto(`${target.origin}/__mock/ui`);
  await expect.poll(() => otherTab.locator('#live-state').getAttribute('data-state')).toBe('needs-token');
  await otherTab.close();

  // A wrong token is forgotten and asked for again (fake-only: the real mock's token is fixed at start).
  if (!target.fake) return;
  target.fake.setControlToken('rotated-token');
  await expect.poll(() => tab.locator('#live-state').getAttribute('data-state')).toBe('needs-token');
  expect(await tab.evaluate(() => sessionStorage.getItem('petstore-mock.control-token'))).toBeNull();
});

it('is usable from the keyboard: real buttons, visible focus, verdict evidence on focus', async (context) => {
  requireBrowser(context);
  const target = await startTarget();
  await sendTraffic(target.origin, { key: 'demo-free', count: 62 });
  const { tab } = await openDashboard(target);
  await expect.poll(() => card(tab, 'demo-free').getAttribute('data-used')).toBe('true');

  // Tab order reaches the main controls, in reading order.
  const reached: string[] = [];
  for (let step = 0; step < 12; step++) {
    await tab.keyboard.press('Tab');
    reached.push(
      await tab.evaluate(() => {
        const active = document.activeElement as HTMLElement | null;
        return active === null ? '' : active.id || active.textContent?.trim() || active.tagName;
      }),
    );
  }
  expect(reached.slice(0, 6)).toEqual(['pause-button', '+1 min', '+1 h', '+1 day', 'custom-seconds', 'Advance']);
  expect(reached).toContain('reset-button');

  // Focus is visible (an outline), and Enter/Space work on the focused button.
  await tab.locator('button.advance[data-seconds="3600"]').focus();
  expect(await tab.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).not.toBe('none');
  await tab.keyboard.press('Enter');
  await expect.poll(() => tab.locator('#clock-offset').textContent()).toBe('+1 h 00 min');

  // The custom amount: a bad value is one clear line, a good one advances.
  await tab.locator('#custom-seconds').focus();
  await tab.keyboard.type('ten');
  await tab.keyboard.press('Enter');
  expect(await tab.locator('#custom-error').textContent()).toBe('Enter a whole number of seconds, for example 90');
  expect(await tab.locator('#custom-seconds').getAttribute('aria-invalid')).toBe('true');
  await tab.locator('#custom-seconds').fill('90');
  await tab.keyboard.press('Enter');
  await expect.poll(() => tab.locator('#clock-offset').textContent()).toBe('+1 h 01 min');
  expect(await tab.locator('#custom-error').textContent()).toBe('');

  // Pause and resume from the keyboard: the state says so in text.
  await tab.locator('#pause-button').focus();
  await tab.keyboard.press('Space');
  expect(await tab.locator('#live-state').textContent()).toBe('❚❚ Paused');
  expect(await tab.locator('#pause-button').getAttribute('aria-pressed')).toBe('true');
  await tab.keyboard.press('Space');
  await expect.poll(() => tab.locator('#live-state').getAttribute('data-state')).toBe('live');

  // A verdict's evidence shows on focus, and the focus survives the next polls.
  const verdict = card(tab, 'demo-free').locator('.verdict[data-rule="retry-after-honoured"]');
  await verdict.focus();
  const tip = card(tab, 'demo-free').locator(
    '.verdict-item:has(.verdict[data-rule="retry-after-honoured"]) .verdict-tip',
  );
  await expect.poll(() => tip.isVisible()).toBe(true);
  expect(await tip.textContent()).toMatch(/Retry-After/);
  await shot(tab, '08-keyboard-verdict');
  await tab.waitForTimeout(2500);
  expect(await tab.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.rule)).toBe(
    'retry-after-honoured',
  );
});

it('stops polling while the tab is hidden and says so, then catches up at once when shown', async (context) => {
  requireBrowser(context);
  const target = await startTarget();
  const { tab, watch } = await openDashboard(target);
  const polls = () => watch.sent.filter((request) => request.url.startsWith('/__mock/dashboard')).length;
  // The page sees what a browser reports for a background tab.
  await tab.evaluate(() => {
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
    document.dispatchEvent(new Event('visibilitychange'));
  });
  expect(await tab.locator('#live-state').textContent()).toBe('❚❚ Paused (tab hidden)');
  const hiddenAt = polls();
  await tab.waitForTimeout(2500);
  expect(polls()).toBe(hiddenAt);
  await sendTraffic(target.origin, { key: 'demo-free', count: 2 });
  await tab.evaluate(() => {
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => false });
    document.dispatchEvent(new Event('visibilitychange'));
  });
  await expect.poll(() => gaugeText(tab, 'demo-free', 'minute'), { timeout: 2000 }).toBe('2 / 60');
  expect(await tab.locator('#live-state').getAttribute('data-state')).toBe('live');
});

it('renders 10,000 log entries in under a second, keeping only the visible rows in the DOM', async (context) => {
  requireBrowser(context);
  // 10,000 real requests (loopback, 25 at a time): 9,000 served, then 1,000 refused with 429. The
  // log keeps 10,200 entries: the page's own polls are logged too (as controls, never shown).
  const target = await startTarget({
    requestLogSize: 10_200,
    keys: [{ key: 'sk-load-0123456789', limits: { perMinute: 9_000, perDay: 1_000_000 } }],
  });
  for (let sent = 0; sent < 10_000; sent += 25) {
    await Promise.all(
      Array.from({ length: 25 }, () => sendTraffic(target.origin, { key: 'sk-load-0123456789', count: 1 })),
    );
  }
  const { tab } = await openDashboard(target);
  await expect.poll(() => tab.locator('#log-viewport').getAttribute('data-total')).toBe('10000');
  // Measured in the page with performance.now(): JSON decode + DOM update + layout of the snapshot.
  const renderMs = Number(await tab.locator('body').getAttribute('data-render-ms'));
  expect(renderMs).toBeGreaterThan(0);
  expect(renderMs).toBeLessThan(1000);
  // Virtual: a few dozen rows exist, not 10,000, and scrolling shows the right ones.
  expect(Number(await tab.locator('#log-viewport').getAttribute('data-rendered'))).toBeLessThan(100);
  expect(await tab.locator('#log-count').textContent()).toBe('(10000)');
  await tab.locator('#log-viewport').evaluate((viewport) => {
    viewport.scrollTop = 24 * 5000;
  });
  await expect.poll(() => tab.locator('.vt-body .vt-row[aria-rowindex="5002"]').count()).toBe(1);
  expect(await tab.locator('.vt-body .vt-row').count()).toBeLessThan(100);

  // The filter narrows the 10,000 at once (the 1,000 refusals, and any row whose time has "429" in it).
  await tab.getByLabel('Filter').fill('429');
  await expect
    .poll(async () =>
      Number(/^\((\d+) of 10000\)$/.exec((await tab.locator('#log-count').textContent()) ?? '')?.[1] ?? 0),
    )
    .toBeGreaterThanOrEqual(1000);
  await shot(tab, '09-10000-entries');
  console.info(`dashboard: 10,000 log entries decoded, rendered and laid out in ${renderMs} ms`);
});

it('shows one clear line when the mock fails, keeps the last figures and recovers with backoff', async (context) => {
  requireBrowser(context);
  // The one test on the fake server: a healthy mock cannot be made to fail its dashboard on demand.
  const target = await startFakeTarget();
  await sendTraffic(target.origin, { key: 'demo-free', count: 3 });
  const { tab } = await openDashboard(target);
  await expect.poll(() => gaugeText(tab, 'demo-free', 'minute')).toBe('3 / 60');

  // Fake-only: injected failures of the data endpoint.
  target.fake!.failDashboard('status-500', 2);
  await sendTraffic(target.origin, { key: 'demo-free', count: 1 });
  await expect
    .poll(() => tab.locator('#error-line').textContent())
    .toMatch(
      /^The mock answered 500 internal_error: Failed to build the dashboard: injected failure\. Retrying in \d+ s; the figures below are from the last answer\.$/,
    );
  expect(await tab.locator('#live-state').getAttribute('data-state')).toBe('error');
  expect(await gaugeText(tab, 'demo-free', 'minute')).toBe('3 / 60');
  await shot(tab, '10-error');
  await expect.poll(() => gaugeText(tab, 'demo-free', 'minute'), { timeout: 15_000 }).toBe('4 / 60');
  expect(await tab.locator('#error-line').isVisible()).toBe(false);

  target.fake!.failDashboard('bad-json', 1);
  await sendTraffic(target.origin, { key: 'demo-free', count: 1 });
  await expect
    .poll(() => tab.locator('#error-line').textContent())
    .toMatch(/^The mock sent a dashboard that is not valid JSON\. Retrying in/);
  await expect.poll(() => gaugeText(tab, 'demo-free', 'minute'), { timeout: 15_000 }).toBe('5 / 60');

  // The mock going away entirely: still one line, never a blank page.
  await target.close();
  await expect
    .poll(() => tab.locator('#error-line').textContent(), { timeout: 15_000 })
    .toMatch(/^Cannot reach the mock \(Failed to fetch\)\. Retrying in \d+ s/);
  expect(await card(tab, 'demo-free').isVisible()).toBe(true);
  expect(await tab.locator('#live-state').textContent()).toBe('⚠ Reconnecting');
});

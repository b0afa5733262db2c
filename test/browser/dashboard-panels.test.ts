import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import {
  card,
  requireBrowser,
  screenshotDir,
  sendTraffic,
  startTarget,
  useDashboardBrowser,
} from '../support/dashboard-browser.js';

// The dashboard's panels after an incident, against the real mock: the timeline across the page's
// width, the downloads (each one a real file with the control's bytes), the verdicts readable in the
// card. Screenshots go to test-output/, or to docs/images/ with UPDATE_SCREENSHOTS=1.

const { openDashboard } = useDashboardBrowser();

/** demo-free bursts into 429s and a ban, demo-pro polls, an unknown key meets 401s. */
async function incident(origin: string): Promise<void> {
  await sendTraffic(origin, { key: 'demo-free', count: 72 });
  await sendTraffic(origin, { key: 'demo-pro', count: 12 });
  await sendTraffic(origin, { key: 'sk-not-a-key', count: 3 });
}

async function download(tab: Page, button: string): Promise<{ name: string; text: string }> {
  const [file] = await Promise.all([tab.waitForEvent('download'), tab.getByRole('button', { name: button }).click()]);
  const path = await file.path();
  return { name: file.suggestedFilename(), text: await readFile(path, 'utf8') };
}

it('after an incident: the timeline across the full width, and downloads of the export and the report', async (context) => {
  requireBrowser(context);
  const target = await startTarget();
  await incident(target.origin);
  const { tab, watch } = await openDashboard(target);
  const image = tab.locator('#timeline-image');
  await expect.poll(() => image.isVisible()).toBe(true);
  await expect.poll(() => card(tab, 'demo-free').getAttribute('data-banned')).toBe('true');

  // As wide as the section that holds it, and that section as wide as the page's main column.
  const widths = await tab.evaluate(() => {
    const main = document.querySelector('main')!;
    const style = getComputedStyle(main);
    return {
      image: document.getElementById('timeline-image')!.getBoundingClientRect().width,
      main: main.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight),
    };
  });
  expect(widths.image).toBeGreaterThan(widths.main * 0.95);
  // The picture is the new timeline: outcomes told apart, the budget and the ban named.
  const svg = decodeURIComponent(
    (await image.getAttribute('src'))!.replace(/^data:image\/svg\+xml;charset=utf-8,/, ''),
  );
  expect(svg).toContain('>429 key_banned</text>');
  expect(svg).toContain('>budget 60/min</text>');
  expect(svg).toMatch(/<title>banned [^<]+<\/title>/);
  expect(svg).toContain('stroke="#CC79A7" stroke-width="2"');
  expect(svg).toContain('stroke="#D55E00" stroke-width="2"');

  // The overview of the docs: active clients first, the unused keys folded away.
  expect(await tab.locator('#unused-toggle').textContent()).toBe('Show 3 unused keys');
  await tab.evaluate(() => window.scrollTo(0, 0));
  await tab.screenshot({ path: join(screenshotDir, 'dashboard.png'), fullPage: true });

  // The downloads: the JSONL export and the report as JSON and JUnit, each a file named after the session.
  const exported = await download(tab, 'Request export (JSONL)');
  expect(exported.name).toBe('petstore-mock-default-requests.jsonl');
  const lines = exported.text
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line));
  // The session's starting state first, then every API request, none of the page's own polls, and no key.
  expect(lines[0]).toMatchObject({ type: 'state' });
  expect(lines.slice(1)).toHaveLength(72 + 12 + 3);
  expect(lines.filter((line) => line.code === 'key_banned').length).toBeGreaterThan(0);
  expect(exported.text).not.toContain('demo-free');
  expect(await tab.locator('#announcer').textContent()).toMatch(
    /^Downloaded the request export of session default as petstore-mock-default-requests\.jsonl \(\d+ bytes\)$/,
  );

  const report = await download(tab, 'Report (JSON)');
  expect(report.name).toBe('petstore-mock-default-report.json');
  const parsed = JSON.parse(report.text);
  expect(parsed.session).toBe('default');
  expect(parsed.clients.map((client: { client: string }) => client.client)).toContain('demo-free');

  const junit = await download(tab, 'Report (JUnit XML)');
  expect(junit.name).toBe('petstore-mock-default-report.junit.xml');
  expect(junit.text).toMatch(/^<\?xml/);
  expect(junit.text).toContain('<testsuite');
  expect(junit.text).toContain('<failure');

  // Fetched as the controls, with the page's session and token headers, not by navigating away.
  expect(watch.sent.map((request) => request.url)).toEqual(
    expect.arrayContaining(['/__mock/requests?format=jsonl', '/__mock/report', '/__mock/report?format=junit']),
  );
  expect(tab.url()).toBe(`${target.origin}/__mock/ui`);
});

it('says in one line when a download fails, asks for the token when that is why, and shows verdict evidence', async (context) => {
  requireBrowser(context);
  const target = await startTarget();
  await sendTraffic(target.origin, { key: 'demo-free', count: 62 });
  const { tab } = await openDashboard(target);
  await expect.poll(() => card(tab, 'demo-free').getAttribute('data-used')).toBe('true');

  // A mock that fails the report: its own Error line, no file, the page still live.
  const refuse = (status: number, code: string, message: string) =>
    tab.route('**/__mock/report?format=junit', (route) =>
      route.fulfill({ status, contentType: 'application/json', body: JSON.stringify({ code, message, status }) }),
    );
  await refuse(500, 'internal_error', 'Failed to build the report: injected failure');
  await tab.getByRole('button', { name: 'Report (JUnit XML)' }).click();
  await expect
    .poll(() => tab.locator('#error-line').textContent())
    .toBe('The mock answered 500 internal_error: Failed to build the report: injected failure');
  // It stays through the next polls (they succeed), until another click succeeds.
  await tab.waitForTimeout(1500);
  expect(await tab.locator('#error-line').isVisible()).toBe(true);
  expect(await tab.locator('#live-state').getAttribute('data-state')).toBe('live');
  await tab.unrouteAll();
  // Refused for the token (one rotated behind the page's back): the page asks for it.
  await refuse(403, 'control_forbidden', 'Missing or wrong X-Mock-Control-Token');
  await tab.getByRole('button', { name: 'Report (JUnit XML)' }).click();
  await expect.poll(() => tab.locator('#live-state').getAttribute('data-state')).toBe('needs-token');
  expect(await tab.locator('#token-reason').textContent()).toContain('X-Mock-Control-Token');
  await tab.unrouteAll();

  // Verdict evidence is text in the card, with the details one click away.
  const retry = card(tab, 'demo-free').locator('.verdict-item[data-rule="retry-after-honoured"]');
  expect(await retry.locator('.verdict-summary').textContent()).toMatch(/Retry-After/);
  await retry.locator('summary').click();
  expect(await retry.locator('.verdict-evidence dl').isVisible()).toBe(true);
  await card(tab, 'demo-free').screenshot({ path: join(screenshotDir, 'dashboard-verdict-evidence.png') });
});

/**
 * The dashboard's routes on the running mock (issue 13): GET /__mock/ui keeps the controls' address,
 * Host and Origin checks but needs no token; GET /__mock/dashboard is a control like the others
 * (token included), with ?limit and a conditional GET. Through MSW the page is not served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPetstoreHandlers } from '../../mocks/handlers.js';
import { createFixedClock } from '../../src/core/clock.js';
import type { DashboardSnapshot } from '../../src/lab/lab-types.js';
import { type RunningMockServer, startMockServer } from '../../src/server/start-server.js';
import { specDocument, testEpochMs } from '../support/core-test-app.js';

const token = 'dash-token-1234';
let mock: RunningMockServer;

beforeAll(async () => {
  mock = await startMockServer({
    port: 0,
    seed: 1,
    clock: createFixedClock(testEpochMs),
    config: { controlToken: token, ban: { threshold: 2, durationSeconds: 300 } },
  });
});
afterAll(async () => {
  await mock.close();
});

const withToken = { 'x-mock-control-token': token };

describe('GET /__mock/ui', () => {
  it('serves the page without the token, with its strict headers', async () => {
    const response = await fetch(`${mock.origin}/__mock/ui`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain("connect-src 'self'");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    const html = await response.text();
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/);
  });

  it('refuses a foreign Origin or Host like every control, and anything but GET', async () => {
    const origin = await fetch(`${mock.origin}/__mock/ui`, { headers: { origin: 'https://evil.example' } });
    expect(origin.status).toBe(403);
    expect(await origin.json()).toMatchObject({ code: 'control_forbidden' });
    const post = await fetch(`${mock.origin}/__mock/ui`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
  });
});

describe('GET /__mock/dashboard', () => {
  it('needs the token, like every control', async () => {
    const refused = await fetch(`${mock.origin}/__mock/dashboard`);
    expect(refused.status).toBe(403);
    expect((await refused.json()).message).toContain('X-Mock-Control-Token');
  });

  it('shows the windows, the ban and the time left, the unused keys, and answers 304 while nothing changed', async () => {
    const session = 'dash';
    const send = () =>
      fetch(`${mock.baseUrl}/categories`, {
        headers: { authorization: 'Bearer demo-free', 'x-mock-session': session },
      }).then((response) => response.arrayBuffer());
    for (let index = 0; index < 63; index += 1) await send();
    const response = await fetch(`${mock.origin}/__mock/dashboard?limit=5`, {
      headers: { ...withToken, 'x-mock-session': session },
    });
    expect(response.status).toBe(200);
    const etag = response.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]+"$/);
    const snapshot = (await response.json()) as DashboardSnapshot;
    expect(snapshot.session).toBe(session);
    expect(snapshot.tokenRequired).toBe(true);
    expect(snapshot.recent).toHaveLength(5);
    expect(snapshot.recent.at(-1)).toMatchObject({ client: 'demo-free', status: 429, code: 'key_banned' });
    const free = snapshot.clients.find((client) => client.client === 'demo-free')!;
    expect(free).toMatchObject({
      kind: 'key',
      plan: 'free',
      demo: true,
      used: true,
      ban: { until: '2026-01-01T00:05:00.000Z', secondsLeft: 300 },
    });
    expect(free.windows).toEqual([
      { name: 'minute', limit: 60, used: 60, resetsAt: '2026-01-01T00:01:00.000Z', resetsInSeconds: 60 },
      { name: 'day', limit: 1000, used: 60, resetsAt: '2026-01-02T00:00:00.000Z', resetsInSeconds: 86_400 },
    ]);
    expect(snapshot.clients.find((client) => client.client === 'demo-pro')).toMatchObject({
      used: false,
      ban: null,
      windows: [{ used: 0 }, { used: 0 }],
    });
    expect(snapshot.timelineSvg).toMatch(/^<svg/);
    const again = await fetch(`${mock.origin}/__mock/dashboard?limit=5`, {
      headers: { ...withToken, 'x-mock-session': session, 'if-none-match': etag },
    });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    // A minute later the minute window is full again (it refilled), the ban still runs.
    await fetch(`${mock.origin}/__mock/clock`, {
      method: 'POST',
      headers: { ...withToken, 'x-mock-session': session, 'content-type': 'application/json' },
      body: '{"advanceSeconds":60}',
    });
    const later = (await (
      await fetch(`${mock.origin}/__mock/dashboard?limit=5`, { headers: { ...withToken, 'x-mock-session': session } })
    ).json()) as DashboardSnapshot;
    const freeLater = later.clients.find((client) => client.client === 'demo-free')!;
    expect(freeLater.windows[0]).toEqual({ name: 'minute', limit: 60, used: 0, resetsAt: null, resetsInSeconds: null });
    expect(freeLater.ban).toEqual({ until: '2026-01-01T00:05:00.000Z', secondsLeft: 240 });
  });

  it('refuses a bad limit in one Error', async () => {
    const response = await fetch(`${mock.origin}/__mock/dashboard?limit=lots`, { headers: withToken });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'validation_failed', status: 400 });
  });
});

describe('through MSW', () => {
  it('serves the data but not the page (the page ships with the node server only)', async () => {
    const { app } = createPetstoreHandlers({ spec: specDocument });
    const page = await app.handle({ method: 'GET', url: '/__mock/ui', headers: {}, body: null });
    expect(page.status).toBe(404);
    expect(JSON.parse(page.body!)).toMatchObject({ code: 'not_found' });
    const data = await app.handle({ method: 'GET', url: '/__mock/dashboard', headers: {}, body: null });
    expect(data.status).toBe(200);
  });
});

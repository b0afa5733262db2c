import { expect, it } from 'vitest';
import { dashboardResponse, parseRecentLimit } from './dashboard-endpoint.js';
import type { DashboardSnapshot } from './dashboard-types.js';

const snapshot = {
  version: 1,
  session: 'default',
  sessions: [],
  clock: { now: '2026-01-15T09:00:00.000Z', epochSeconds: 1, offsetSeconds: 0 },
  clients: [],
  recent: [],
  coverage: { operations: [], situations: {} },
  tokenRequired: false,
  timelineSvg: '',
} as unknown as DashboardSnapshot;

it('answers 200 with a strong ETag, then 304 with no body to the same If-None-Match', () => {
  const first = dashboardResponse(snapshot, undefined);
  expect(first.status).toBe(200);
  expect(JSON.parse(first.body)).toEqual(snapshot);
  expect(first.headers.ETag).toMatch(/^"[0-9a-f]{32}"$/);
  expect(first.headers['Cache-Control']).toBe('no-store');
  expect(first.headers['Content-Type']).toBe('application/json; charset=utf-8');
  const again = dashboardResponse(snapshot, first.headers.ETag);
  expect(again).toEqual({
    status: 304,
    headers: { ETag: first.headers.ETag, 'Cache-Control': 'no-store', Vary: 'X-Mock-Session, X-Mock-Control-Token' },
    body: '',
  });
  expect(dashboardResponse(snapshot, `"other", W/${first.headers.ETag}`).status).toBe(304);
  expect(dashboardResponse({ ...snapshot, session: 'b' }, first.headers.ETag).status).toBe(200);
});

it('decodes ?limit= from 0 to 10,000 (default 10,000) and names anything else', () => {
  expect(parseRecentLimit(null)).toEqual({ ok: true, limit: 10_000 });
  expect(parseRecentLimit('')).toEqual({ ok: true, limit: 10_000 });
  expect(parseRecentLimit('0')).toEqual({ ok: true, limit: 0 });
  expect(parseRecentLimit('250')).toEqual({ ok: true, limit: 250 });
  expect(parseRecentLimit('10001')).toEqual({ ok: false, message: 'Invalid query parameter limit: at most 10000' });
  for (const bad of ['-1', '1e3', 'ten', '12.5', '9999999']) {
    expect(parseRecentLimit(bad)).toEqual({
      ok: false,
      message: 'Invalid query parameter limit: expected a whole number from 0 to 10000',
    });
  }
});

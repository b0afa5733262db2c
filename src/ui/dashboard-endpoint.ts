import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { DashboardSnapshot } from './dashboard-types.js';

// The transport-free half of GET /__mock/dashboard that the page relies on: the `limit` query and
// the conditional GET (ETag / If-None-Match). The core's route calls it with the snapshot it built;
// the test server (test/support/fake-dashboard-server.ts) calls the same function, so the page is proven against
// the same caching rules the mock applies. Browser-safe (no Node types), so MSW can use it too.

/** The most `recent` entries one snapshot carries, and the default. */
const maxRecentLimit = 10_000;

/**
 * Decodes `?limit=` (absent: 10,000). A bad value is the mock's usual 400 `validation_failed`.
 * @example parseRecentLimit('200') // { ok: true, limit: 200 }
 */
export function parseRecentLimit(
  raw: string | null | undefined,
): { ok: true; limit: number } | { ok: false; message: string } {
  if (raw === null || raw === undefined || raw === '') return { ok: true, limit: maxRecentLimit };
  if (!/^\d{1,6}$/.test(raw))
    return { ok: false, message: `Invalid query parameter limit: expected a whole number from 0 to ${maxRecentLimit}` };
  const limit = Number(raw);
  if (limit > maxRecentLimit) return { ok: false, message: `Invalid query parameter limit: at most ${maxRecentLimit}` };
  return { ok: true, limit };
}

/**
 * The answer to one dashboard poll: 200 with the JSON and a strong ETag of its bytes, or 304 with no
 * body when the page already holds those bytes (`If-None-Match`), which keeps a 1 s poll of an idle
 * mock to a few hundred bytes. `Cache-Control: no-store` keeps intermediaries out of it.
 *
 * @example
 * const answer = dashboardResponse(snapshot, request.headers['if-none-match']);
 * response.writeHead(answer.status, answer.headers).end(answer.body);
 */
export function dashboardResponse(
  snapshot: DashboardSnapshot,
  ifNoneMatch: string | null | undefined,
): { status: 200 | 304; headers: Record<string, string>; body: string } {
  const body = JSON.stringify(snapshot);
  const etag = `"${bytesToHex(sha256(new TextEncoder().encode(body))).slice(0, 32)}"`;
  const headers: Record<string, string> = {
    ETag: etag,
    'Cache-Control': 'no-store',
    Vary: 'X-Mock-Session, X-Mock-Control-Token',
  };
  if (ifNoneMatch?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)) {
    return { status: 304, headers, body: '' };
  }
  return { status: 200, headers: { ...headers, 'Content-Type': 'application/json; charset=utf-8' }, body };
}

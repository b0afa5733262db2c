import { describe, expect, it } from 'vitest';
import { isCreate, isListing } from './bug-servers/second-batch/helpers.js';
import { withHeader } from './bug-servers/wire.js';
import type { ReferenceHooks } from './reference/reference-hooks.js';
import type { PlainResponse } from './reference/reference-petstore.js';
import { referenceKeys, startReferenceServer } from './reference/reference-server.js';
import { createVirtualClock } from './reference/virtual-clock.js';
import { idsWith, runKit } from './support/run-kit.js';

/**
 * Correct servers that differ from the reference where the interface leaves things open or allows more than the
 * reference uses (decision 054, the red team's false-alarm hunt): each must CONFORM. They are built with the bug
 * corpus's hook points (reference/reference-hooks.ts), but each change keeps the server correct.
 */

type Category = Record<string, unknown>;

/** The body of a 201 or of a 200 list of categories, each category passed through `change`. */
function mapCategoryBodies(response: PlainResponse, change: (category: Category) => Category): PlainResponse {
  const value = JSON.parse(response.body) as Category | Category[];
  return { ...response, body: JSON.stringify(Array.isArray(value) ? value.map(change) : change(value)) };
}

const variants: readonly { name: string; hooks: ReferenceHooks }[] = [
  {
    // Section 2: "integer, format int64". Snowflake ids, or a sequence started high: unique int64 ids that
    // JSON.parse reads as equal doubles (1152921504606846001 and ...002 are both 1152921504606846000).
    name: 'hands out int64 ids beyond 2^53 (1152921504606846001, ...002, ...)',
    hooks: {
      response: (response) => ({
        ...response,
        body: response.body.replace(
          /"id":(\d+)/g,
          (_match, id: string) => `"id":1152921504606846${id.padStart(3, '0')}`,
        ),
      }),
    },
  },
  {
    // Nothing forbids more members, more headers or a charset parameter; a 201 may say where the category is.
    name: 'adds members to Category and Error, headers of its own, a charset parameter and a Location',
    hooks: {
      response: (response, request) => {
        let out: PlainResponse = {
          ...response,
          headers: {
            ...response.headers,
            'Content-Type': 'application/json; charset=utf-8',
            'X-Request-Id': 'req-1',
            'Cache-Control': 'no-store',
            Vary: 'Authorization',
            'RateLimit-Policy': '300;w=60',
          },
        };
        if (response.status >= 400 && response.status !== 429)
          out = { ...out, body: JSON.stringify({ ...JSON.parse(response.body), requestId: 'req-1', details: [] }) };
        const creates = isCreate(request) && response.status === 201;
        if (creates || (isListing(request) && response.status === 200))
          out = mapCategoryBodies(out, (category) => ({ ...category, createdAt: '2026-03-02T10:00:20Z' }));
        if (creates) out = withHeader(out, 'Location', `/v1/categories/${(JSON.parse(out.body) as Category).id}`);
        return out;
      },
    },
  },
  {
    // Section 7: the set of codes is not shown, a message is any human-readable text, the 429 body is not shown;
    // Retry-After may be an HTTP-date (RFC 9110 10.2.3); the list's order is not shown.
    name: 'writes other codes and messages, a text 429 with Retry-After as a date, and lists by name descending',
    hooks: {
      response: (response, request) => {
        let out = response;
        if (response.status >= 400 && response.status !== 429) {
          const { status } = JSON.parse(response.body) as { status: number };
          out = { ...out, body: JSON.stringify({ status, message: 'Anfrage abgelehnt ✓', code: `E${status}` }) };
        }
        const retryAfter = response.headers['Retry-After'];
        if (response.status === 429 && retryAfter !== undefined) {
          const at = Date.parse(response.headers.Date!) + Number(retryAfter) * 1000;
          out = withHeader(out, 'Retry-After', new Date(at).toUTCString());
          out = { ...withHeader(out, 'Content-Type', 'text/plain'), body: 'slow down' };
        }
        if (isListing(request) && response.status === 200) {
          const byName = (JSON.parse(response.body) as { name: string }[]).sort((a, b) => (a.name < b.name ? 1 : -1));
          out = { ...out, body: JSON.stringify(byName) };
        }
        return out;
      },
    },
  },
];

describe('correct servers that use what the interface leaves open conform', () => {
  for (const { name, hooks } of variants)
    it(`a server that ${name} CONFORMS`, async () => {
      const clock = createVirtualClock({ startMs: Date.parse('2026-03-02T10:00:20.500Z') });
      const server = await startReferenceServer({ clock, hooks });
      try {
        const run = await runKit({
          baseUrl: server.baseUrl,
          apiKey: referenceKeys.main,
          rateLimitKey: referenceKeys.limited,
          clock,
          timeoutSeconds: 2,
        });
        expect(idsWith(run, 'FAIL')).toEqual([]);
        expect(run.exitCode).toBe(0);
      } finally {
        await server.close();
      }
    });
});

import { Pool } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { MockConfigInput } from '../../src/core/config/mock-config.js';
import { type RunningMockServer, startMockServer } from '../../src/server/start-server.js';
import { errorShapeProblems } from './support/error-shape.js';

/**
 * Concurrency exactness (issue 6): many requests in flight at once over several keep-alive
 * connections must be counted exactly, and concurrent creates must never share an id.
 */
const limit = 50;
const concurrent = 120;

const opened: { mock: RunningMockServer; pool: Pool }[] = [];

afterEach(async () => {
  for (const { mock, pool } of opened.splice(0)) {
    await pool.close();
    await mock.close(1_000);
  }
});

async function start(config: MockConfigInput): Promise<{ mock: RunningMockServer; pool: Pool }> {
  const mock = await startMockServer({ port: 0, config });
  // 30 keep-alive connections with 4 pipelined requests each: all 120 requests of a test are on the
  // wire at once, and the server interleaves them across connections.
  const pool = new Pool(mock.origin, { connections: 30, pipelining: 4 });
  opened.push({ mock, pool });
  return { mock, pool };
}

interface Outcome {
  status: number;
  code: string | undefined;
  problems: string[];
}

async function get(pool: Pool, key: string): Promise<Outcome> {
  const response = await pool.request({
    method: 'GET',
    path: '/v1/categories',
    headers: { authorization: `Bearer ${key}` },
  });
  const body = await response.body.text();
  const contentType = response.headers['content-type'];
  const problems =
    response.statusCode >= 400
      ? errorShapeProblems({
          status: response.statusCode,
          contentType: Array.isArray(contentType) ? contentType.join(', ') : contentType,
          body,
        })
      : [];
  return {
    status: response.statusCode,
    code: response.statusCode >= 400 ? (JSON.parse(body) as { code: string }).code : undefined,
    problems,
  };
}

function tally(outcomes: Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { status, code } of outcomes) {
    const label = code === undefined ? String(status) : `${status} ${code}`;
    counts[label] = (counts[label] ?? 0) + 1;
  }
  return counts;
}

describe('concurrency exactness', () => {
  it(`lets exactly ${limit} of ${concurrent} concurrent requests of one key through; the other ${concurrent - limit} get 429`, async () => {
    const { pool } = await start({
      keys: [{ key: 'conc', limits: { perMinute: limit, perDay: 100_000 } }],
      ban: { enabled: false },
    });
    const outcomes = await Promise.all(Array.from({ length: concurrent }, () => get(pool, 'conc')));
    expect(tally(outcomes)).toEqual({ '200': limit, '429 rate_limited': concurrent - limit });
    expect(outcomes.flatMap((outcome) => outcome.problems)).toEqual([]);
  });

  it('counts the same with the ban on: the first refusals are rate_limited, the rest key_banned, all 429', async () => {
    const threshold = 10;
    const { pool } = await start({
      keys: [{ key: 'conc', limits: { perMinute: limit, perDay: 100_000 } }],
      ban: { enabled: true, threshold, durationSeconds: 900 },
    });
    const outcomes = await Promise.all(Array.from({ length: concurrent }, () => get(pool, 'conc')));
    // The ban policy: `threshold` requests may be refused in a row before the next one bans the key.
    expect(tally(outcomes)).toEqual({
      '200': limit,
      '429 rate_limited': threshold,
      '429 key_banned': concurrent - limit - threshold,
    });
    expect(outcomes.flatMap((outcome) => outcome.problems)).toEqual([]);
  });

  it('keeps two keys apart under concurrency: each gets exactly its own budget', async () => {
    const { pool } = await start({
      keys: [
        { key: 'conc-a', limits: { perMinute: limit, perDay: 100_000 } },
        { key: 'conc-b', limits: { perMinute: limit * 2, perDay: 100_000 } },
      ],
      ban: { enabled: false },
    });
    const outcomes = await Promise.all(
      Array.from({ length: concurrent * 2 }, (_, index) => get(pool, index % 2 === 0 ? 'conc-a' : 'conc-b')),
    );
    expect(tally(outcomes.filter((_, index) => index % 2 === 0))).toEqual({
      '200': limit,
      '429 rate_limited': concurrent - limit,
    });
    expect(tally(outcomes.filter((_, index) => index % 2 === 1))).toEqual({
      '200': limit * 2,
      '429 rate_limited': concurrent - limit * 2,
    });
  });

  it('gives 1,000 concurrent creates 1,000 distinct ids, and lists all 1,000 afterwards', async () => {
    const { pool } = await start({ seedCategories: 0 });
    const created = await Promise.all(
      Array.from({ length: 1_000 }, async (_, index) => {
        const response = await pool.request({
          method: 'POST',
          path: '/v1/categories',
          headers: { authorization: 'Bearer demo-enterprise', 'content-type': 'application/json' },
          body: JSON.stringify({ name: `concurrent-${index}` }),
        });
        return { status: response.statusCode, category: (await response.body.json()) as { id: number; name: string } };
      }),
    );
    expect(created.filter(({ status }) => status !== 201)).toEqual([]);
    const ids = created.map(({ category }) => category.id);
    expect(new Set(ids).size).toBe(1_000);

    const response = await pool.request({
      method: 'GET',
      path: '/v1/categories',
      headers: { authorization: 'Bearer demo-enterprise' },
    });
    const listed = (await response.body.json()) as { id: number; name: string }[];
    const byId = new Map(listed.map((category) => [category.id, category.name]));
    // Every create is listed under its own id with its own name: no write was lost or crossed.
    expect(created.filter(({ category }) => byId.get(category.id) !== category.name)).toEqual([]);
    expect(listed).toHaveLength(1_000);
  });
});

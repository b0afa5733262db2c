import { expect } from 'vitest';

/**
 * The interface's rules as ONE table of cases, run against every transport (the core, node:http,
 * MSW) and every store (memory, Redis) by `interface-rules.test.ts`, like hono's `common.case`
 * test runs one file against every router. A case talks to the mock only through `send`, so what
 * it asserts is what any client of any transport sees.
 */
export interface Sent {
  key?: string;
  headers?: Record<string, string>;
  json?: unknown;
  body?: string;
}

export interface Received {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  json: any;
}

export interface CaseContext {
  send(method: string, path: string, sent?: Sent): Promise<Received>;
  /** The virtual clock of the mock at start, in ms (the tests' clock stands still). */
  startMs: number;
}

export interface RuleCase {
  name: string;
  run(context: CaseContext): Promise<void>;
}

/** The config every transport's mock gets. */
export const caseConfig = {
  keys: [{ key: 'tiny-plan-key', limits: { perMinute: 3, perDay: 100 } }],
  ban: { enabled: true, threshold: 2, durationSeconds: 120 },
};
export const caseStartMs = Date.parse('2026-03-01T12:00:00Z');

export function expectError(response: Received, status: number, code: string, message?: string | RegExp): void {
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(response.json).toEqual({ code, message: expect.any(String), status });
  if (message !== undefined) expect(response.json.message).toMatch(message);
}

function expectRateLimitHeaders(response: Received): void {
  for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(response.headers[name], name).toMatch(/^\d+$/);
}

export const ruleCases: RuleCase[] = [
  ...(
    [
      ['no Authorization header', {}, 'Missing API key; send Authorization: Bearer <API_KEY>'],
      ['another scheme', { headers: { authorization: 'Basic ZGVtbzpmcmVl' } }, /^Unsupported authorization scheme Basic/],
      ['Bearer without a token', { headers: { authorization: 'Bearer' } }, /^Malformed Authorization header/],
      ['an unknown key', { key: 'sk_nope' }, 'Invalid API key'],
    ] as const
  ).map(([what, auth, message]) => ({
    name: `401 with an Error for ${what}, on listCategories and createCategory`,
    async run({ send }: CaseContext) {
      expectError(await send('GET', '/categories', auth), 401, 'unauthorized', message);
      expectError(await send('POST', '/categories', { ...auth, json: { name: 'dog' } }), 401, 'unauthorized', message);
    },
  })),
  {
    name: 'requests without a valid key count against the anonymous budget of the client',
    async run({ send }) {
      const first = await send('GET', '/categories');
      const second = await send('GET', '/categories', { key: 'sk_nope' });
      expect(first.headers['x-ratelimit-limit']).toBe('60');
      expect(Number(second.headers['x-ratelimit-remaining'])).toBe(Number(first.headers['x-ratelimit-remaining']) - 1);
    },
  },
  {
    name: 'the scheme is case-insensitive (RFC 9110)',
    async run({ send }) {
      expect((await send('GET', '/categories', { headers: { authorization: 'bearer demo-pro' } })).status).toBe(200);
    },
  },
  {
    name: '200 with the seeded list and X-RateLimit-* for a valid key',
    async run({ send }) {
      const response = await send('GET', '/categories', { key: 'demo-free' });
      expect(response.status).toBe(200);
      expect(Array.isArray(response.json)).toBe(true);
      expect(response.json.length).toBeGreaterThan(0);
      expectRateLimitHeaders(response);
      expect(response.headers['x-ratelimit-limit']).toBe('60');
      expect(response.headers['x-ratelimit-remaining']).toBe('59');
    },
  },
  {
    name: '201 with Location and a new id, and the list has it afterwards',
    async run({ send }) {
      const created = await send('POST', '/categories', { key: 'demo-pro', json: { name: 'dog', description: 'Good boys' } });
      expect(created.status).toBe(201);
      expect(created.json).toMatchObject({ name: 'dog', description: 'Good boys', id: expect.any(Number) });
      expect(created.headers.location).toBe(`/v1/categories/${created.json.id}`);
      const second = await send('POST', '/categories', { key: 'demo-pro', json: { name: 'cat' } });
      expect(second.json.id).toBeGreaterThan(created.json.id);
      const listed = await send('GET', '/categories', { key: 'demo-pro' });
      expect(listed.json.slice(-2)).toEqual([created.json, second.json]);
    },
  },
  {
    name: '400 validation_failed naming the field, 400 malformed_json, 400 body_required, 415 for a body that is not JSON',
    async run({ send }) {
      expectError(await send('POST', '/categories', { key: 'demo-pro', json: { description: 'x' } }), 400, 'validation_failed', /name is required/);
      expectError(await send('POST', '/categories', { key: 'demo-pro', json: { name: 42 } }), 400, 'validation_failed', /name/);
      expectError(await send('POST', '/categories', { key: 'demo-pro', body: '{"name":', headers: { 'content-type': 'application/json' } }), 400, 'malformed_json');
      expectError(await send('POST', '/categories', { key: 'demo-pro', headers: { 'content-type': 'application/json' } }), 400, 'body_required');
      expectError(await send('POST', '/categories', { key: 'demo-pro', body: 'name=x', headers: { 'content-type': 'text/plain' } }), 415, 'unsupported_media_type');
    },
  },
  {
    name: '404 for an unknown path, 405 with Allow for an unknown method',
    async run({ send }) {
      expectError(await send('GET', '/dogs', { key: 'demo-pro' }), 404, 'not_found');
      const wrong = await send('DELETE', '/categories', { key: 'demo-pro' });
      expectError(wrong, 405, 'method_not_allowed');
      expect(wrong.headers.allow).toBe('GET, POST');
    },
  },
  {
    name: 'X-RateLimit-* on every response: 200, 201, 400, 401, 404, 405, 429',
    async run({ send }) {
      const responses = [
        await send('GET', '/categories', { key: 'demo-pro' }),
        await send('POST', '/categories', { key: 'demo-pro', json: { name: 'x' } }),
        await send('POST', '/categories', { key: 'demo-pro', json: {} }),
        await send('GET', '/categories', { key: 'nope' }),
        await send('GET', '/nothing', { key: 'demo-pro' }),
        await send('DELETE', '/categories', { key: 'demo-pro' }),
        await send('GET', '/categories', { key: 'demo-pro', headers: { prefer: 'code=429' } }),
      ];
      expect(responses.map((response) => response.status)).toEqual([200, 201, 400, 401, 404, 405, 429]);
      for (const response of responses) expectRateLimitHeaders(response);
    },
  },
  {
    name: '429 rate_limited with Retry-After past the limit, a ban after the threshold, and back after the ban',
    async run({ send }) {
      for (let index = 0; index < 3; index += 1) expect((await send('GET', '/categories', { key: 'tiny-plan-key' })).status).toBe(200);
      const limited = await send('GET', '/categories', { key: 'tiny-plan-key' });
      expectError(limited, 429, 'rate_limited');
      expect(limited.headers['retry-after']).toBe('60');
      expect(limited.headers['x-ratelimit-remaining']).toBe('0');
      expectError(await send('GET', '/categories', { key: 'tiny-plan-key' }), 429, 'rate_limited');
      const banned = await send('GET', '/categories', { key: 'tiny-plan-key' });
      expectError(banned, 429, 'key_banned');
      expect(banned.headers['retry-after']).toBe('120');
      // Not even Prefer serves a banned client.
      expectError(await send('GET', '/categories', { key: 'tiny-plan-key', headers: { prefer: 'code=200' } }), 429, 'key_banned');
      await send('POST', '/__mock/clock', { json: { advanceSeconds: 120 } });
      expect((await send('GET', '/categories', { key: 'tiny-plan-key' })).status).toBe(200);
    },
  },
  {
    name: 'a new window when the clock is advanced past the minute; Date follows the virtual clock',
    async run({ send, startMs }) {
      for (let index = 0; index < 3; index += 1) await send('GET', '/categories', { key: 'tiny-plan-key' });
      expect((await send('GET', '/categories', { key: 'tiny-plan-key' })).status).toBe(429);
      const clock = await send('POST', '/__mock/clock', { json: { advanceSeconds: 60 } });
      expect(clock.json.offsetSeconds).toBe(60);
      const served = await send('GET', '/categories', { key: 'tiny-plan-key' });
      expect(served.status).toBe(200);
      expect(Date.parse(served.headers.date!)).toBe(startMs + 60_000);
    },
  },
  {
    name: 'Prefer: code=429 answers the 429 shape without spending the budget; an example by name; an undeclared code is a 400',
    async run({ send }) {
      const forced = await send('GET', '/categories', { key: 'demo-free', headers: { prefer: 'code=429' } });
      expectError(forced, 429, 'rate_limited');
      expect(forced.headers['retry-after']).toMatch(/^\d+$/);
      expect((await send('GET', '/categories', { key: 'demo-free' })).headers['x-ratelimit-remaining']).toBe('58');
      expectError(await send('GET', '/categories', { key: 'demo-free', headers: { prefer: 'code=418' } }), 400, 'invalid_prefer');
    },
  },
  {
    name: 'the deprecated operation carries Deprecation and Sunset',
    async run({ send }) {
      const response = await send('GET', '/pets/1', { key: 'demo-pro' });
      expect(response.status).toBe(200);
      expect(response.headers.deprecation).toMatch(/^@\d+$/);
      expect(Date.parse(response.headers.sunset!)).not.toBeNaN();
      expect((await send('GET', '/categories', { key: 'demo-pro' })).headers.deprecation).toBeUndefined();
    },
  },
  {
    name: 'controls at /__mock/*: keys added at run time work, the log masks keys, reset starts over; none of it is counted',
    async run({ send }) {
      expect((await send('POST', '/__mock/keys', { json: { key: 'run-time-key', plan: 'pro' } })).status).toBe(201);
      expect((await send('GET', '/categories', { key: 'run-time-key' })).headers['x-ratelimit-limit']).toBe('300');
      const log = await send('GET', '/__mock/requests');
      expect(JSON.stringify(log.json)).not.toContain('run-time-key');
      expect(log.json.at(-1)).toMatchObject({ path: '/v1/categories', plan: 'pro', status: 200 });
      expect((await send('POST', '/__mock/reset')).status).toBe(200);
      expectError(await send('GET', '/categories', { key: 'run-time-key' }), 401, 'unauthorized');
      expectError(await send('POST', '/__mock/clock', { json: { advanceSeconds: -1 } }), 400, 'invalid_control_request');
    },
  },
  {
    name: 'sessions: isolated data, counters, clock and keys; 400 invalid_session for a bad name',
    async run({ send }) {
      const inA = { 'x-mock-session': 'job-a' };
      const inB = { 'x-mock-session': 'job-b' };
      const created = await send('POST', '/categories', { key: 'demo-pro', json: { name: 'only-in-a' }, headers: inA });
      expect(created.status).toBe(201);
      expect(created.headers['x-mock-session']).toBe('job-a');
      const listedB = await send('GET', '/categories', { key: 'demo-pro', headers: inB });
      expect(listedB.json.map((category: { name: string }) => category.name)).not.toContain('only-in-a');
      // Same id in B: every session has its own sequence.
      expect((await send('POST', '/categories', { key: 'demo-pro', json: { name: 'b' }, headers: inB })).json.id).toBe(created.json.id);
      for (let index = 0; index < 4; index += 1) await send('GET', '/categories', { key: 'tiny-plan-key', headers: inA });
      expect((await send('GET', '/categories', { key: 'tiny-plan-key', headers: inB })).status).toBe(200);
      await send('POST', '/__mock/clock', { json: { advanceSeconds: 600 }, headers: inA });
      expect((await send('GET', '/__mock/clock', { headers: inB })).json.offsetSeconds).toBe(0);
      await send('POST', '/__mock/keys', { json: { key: 'key-of-a', plan: 'free' }, headers: inA });
      expectError(await send('GET', '/categories', { key: 'key-of-a', headers: inB }), 401, 'unauthorized');
      expectError(await send('GET', '/categories', { key: 'key-of-a' }), 401, 'unauthorized');
      const sessions = await send('GET', '/__mock/sessions');
      expect(sessions.json.sessions.map((session: { name: string }) => session.name)).toEqual(expect.arrayContaining(['job-a', 'job-b', 'default']));
      expectError(await send('GET', '/categories', { key: 'demo-pro', headers: { 'x-mock-session': 'no spaces allowed' } }), 400, 'invalid_session');
    },
  },
];

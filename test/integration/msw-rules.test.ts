import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createFixedClock } from '../../src/core/clock.js';
import { setupPetstoreServer, unhandledRequests } from '../../mocks/node.js';

// Every rule of the interface through MSW's setupServer and the GLOBAL fetch, as a frontend's
// tests would see it. The clock stands still unless a test moves it, so no test waits.

const startMs = Date.parse('2026-03-01T12:00:00Z');
const startSeconds = startMs / 1000;
const base = 'https://api.petstore.example/v1';
const origin = 'https://api.petstore.example';
const { server, controls } = setupPetstoreServer({
  seed: 11,
  clock: createFixedClock(startMs),
  config: { keys: [{ key: 'tiny-plan-key', limits: { perMinute: 3, perDay: 100 } }] },
});

// Strict on msw 2 and 3 alike (msw 3 renamed the option and ignores the old name).
beforeAll(() => server.listen(unhandledRequests('error')));
afterEach(() => controls.reset());
afterAll(() => server.close());

interface Sent {
  key?: string;
  authorization?: string;
  json?: unknown;
  body?: string;
  headers?: Record<string, string>;
}

async function send(method: string, path: string, options: Sent = {}) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  let body = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(path.startsWith('/__mock') ? `${origin}${path}` : `${base}${path}`, { method, headers, body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: text === '' ? null : (JSON.parse(text) as unknown) };
}

type Received = Awaited<ReturnType<typeof send>>;

function expectRateHeaders(response: Received) {
  for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) expect(response.headers.get(name), name).toMatch(/^\d+$/);
}

function expectError(response: Received, status: number, code: string, message?: string | RegExp) {
  expect(response.status).toBe(status);
  expect(response.headers.get('Content-Type')).toBe('application/json');
  expect(response.json).toEqual({ code, message: message === undefined ? expect.any(String) : typeof message === 'string' ? message : expect.stringMatching(message), status });
  expectRateHeaders(response);
}

describe('authentication (401)', () => {
  it.each([
    ['no Authorization header', {}, 'Missing API key; send Authorization: Bearer <API_KEY>'],
    ['another scheme', { authorization: 'Basic ZGVtbzpmcmVl' }, /^Unsupported authorization scheme Basic/],
    ['Bearer without a token', { authorization: 'Bearer' }, /^Malformed Authorization header/],
    ['an unknown key', { key: 'sk_nope' }, 'Invalid API key'],
  ])('answers 401 with an Error for %s, on listCategories and createCategory', async (_, auth: Sent, message) => {
    expectError(await send('GET', '/categories', auth), 401, 'unauthorized', message);
    expectError(await send('POST', '/categories', { ...auth, json: { name: 'dog' } }), 401, 'unauthorized', message);
  });

  it('counts requests without a valid key against the anonymous budget', async () => {
    const first = await send('GET', '/categories');
    const second = await send('GET', '/categories', { key: 'sk_nope' });
    expect(first.headers.get('X-RateLimit-Limit')).toBe('60');
    expect(Number(second.headers.get('X-RateLimit-Remaining'))).toBe(Number(first.headers.get('X-RateLimit-Remaining')) - 1);
  });
});

describe('createCategory (400, 201)', () => {
  it.each([
    ['no body', {}, 'body_required'],
    ['a body without name', { json: { description: 'no name' } }, 'validation_failed', 'Invalid request body: name is required'],
    ['a name that is not a string', { json: { name: 42 } }, 'validation_failed', /^Invalid request body: name: expected string/],
    ['a description that is not a string', { json: { name: 'dog', description: ['x'] } }, 'validation_failed', /^Invalid request body: description: expected string/],
    ['a JSON array', { json: [{ name: 'dog' }] }, 'validation_failed', 'Invalid request body: the body must be a JSON object, got an array'],
    ['malformed JSON', { body: '{"name": ', headers: { 'content-type': 'application/json' } }, 'malformed_json', /^Invalid request body: malformed JSON/],
  ])('answers 400 for %s', async (_, sent: Sent, code, message?: string | RegExp) => {
    expectError(await send('POST', '/categories', { key: 'demo-pro', ...sent }), 400, code, message);
  });

  it('answers 415 when the body is not JSON', async () => {
    expectError(await send('POST', '/categories', { key: 'demo-pro', body: 'name=dog', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415, 'unsupported_media_type');
  });

  it('answers 201 with Location and a unique id, and lists the new categories afterwards', async () => {
    const ids = new Set<number>();
    for (const name of ['dog', 'cat', 'dog']) {
      const created = await send('POST', '/categories', { key: 'demo-pro', json: { name, description: `${name}s` } });
      expect(created.status).toBe(201);
      const category = created.json as { id: number; name: string; description: string };
      expect(category).toEqual({ id: expect.any(Number), name, description: `${name}s` });
      expect(created.headers.get('Location')).toBe(`/v1/categories/${category.id}`);
      expectRateHeaders(created);
      ids.add(category.id);
    }
    expect(ids.size).toBe(3);
    const list = await send('GET', '/categories', { key: 'demo-pro' });
    expect(list.status).toBe(200);
    expect((list.json as { id: number }[]).filter((category) => ids.has(category.id))).toHaveLength(3);
  });
});

describe('routing (404, 405) and the other operations', () => {
  it('answers 404 for an unknown path and 405 with Allow for an unknown method', async () => {
    expectError(await send('GET', '/nope', { key: 'demo-pro' }), 404, 'not_found');
    const notAllowed = await send('DELETE', '/categories', { key: 'demo-pro' });
    expectError(notAllowed, 405, 'method_not_allowed');
    expect(notAllowed.headers.get('Allow')).toBe('GET, POST');
  });

  it('marks GET /v1/pets/{id} as deprecated with Deprecation and Sunset, and nothing else', async () => {
    const pet = await send('GET', '/pets/7', { key: 'demo-pro' });
    expect(pet.status).toBe(200);
    expect(pet.headers.get('Deprecation')).toBe(`@${Date.parse('2026-01-01T00:00:00Z') / 1000}`);
    expect(pet.headers.get('Sunset')).toBe('Fri, 31 Dec 2027 23:59:59 GMT');
    const categories = await send('GET', '/categories', { key: 'demo-pro' });
    expect(categories.headers.get('Deprecation')).toBeNull();
    expect(categories.headers.get('Sunset')).toBeNull();
  });
});

describe('rate limits (interface section 8)', () => {
  it('puts X-RateLimit-* on every response: 200, 201, 400, 401, 404, 405, 429', async () => {
    const responses = [
      await send('GET', '/categories', { key: 'demo-free' }),
      await send('POST', '/categories', { key: 'demo-free', json: { name: 'dog' } }),
      await send('POST', '/categories', { key: 'demo-free', json: {} }),
      await send('GET', '/categories'),
      await send('GET', '/nope', { key: 'demo-free' }),
      await send('PUT', '/categories', { key: 'demo-free' }),
      await send('GET', '/categories', { key: 'demo-free', headers: { prefer: 'code=429' } }),
    ];
    expect(responses.map((response) => response.status)).toEqual([200, 201, 400, 401, 404, 405, 429]);
    for (const response of responses) expectRateHeaders(response);
    expect(responses[0]!.headers.get('X-RateLimit-Reset')).toBe(String(startSeconds + 60));
  });

  it('answers 429 with Retry-After after the Free plan’s 60 requests per minute', async () => {
    for (let index = 1; index <= 60; index += 1) {
      const allowed = await send('GET', '/categories', { key: 'demo-free' });
      expect(allowed.status).toBe(200);
      expect(allowed.headers.get('X-RateLimit-Remaining')).toBe(String(60 - index));
    }
    const limited = await send('GET', '/categories', { key: 'demo-free' });
    expectError(limited, 429, 'rate_limited', 'Rate limit exceeded; retry after 60 seconds and back off exponentially');
    expect(limited.headers.get('Retry-After')).toBe('60');
    expect(limited.headers.get('X-RateLimit-Limit')).toBe('60');
    expect(limited.headers.get('X-RateLimit-Remaining')).toBe('0');
    expect(limited.headers.get('X-RateLimit-Reset')).toBe(String(startSeconds + 60));
    // Another key has its own budget.
    expect((await send('GET', '/categories', { key: 'demo-pro' })).status).toBe(200);
  });

  it('bans a key that keeps sending after 429, then lets it back after the ban', async () => {
    const statuses: number[] = [];
    for (let index = 0; index < 3; index += 1) statuses.push((await send('GET', '/categories', { key: 'tiny-plan-key' })).status);
    expect(statuses).toEqual([200, 200, 200]);
    // The default policy: ten 429s in a row are tolerated, the eleventh request bans for 900 s.
    for (let index = 0; index < 10; index += 1) expectError(await send('GET', '/categories', { key: 'tiny-plan-key' }), 429, 'rate_limited');
    const banned = await send('GET', '/categories', { key: 'tiny-plan-key' });
    expectError(banned, 429, 'key_banned', 'Too many requests after a 429: this API key is banned for 900 seconds');
    expect(banned.headers.get('Retry-After')).toBe('900');
    (await controls.advanceClock(60));
    expectError(await send('GET', '/categories', { key: 'tiny-plan-key' }), 429, 'key_banned');
    (await controls.advanceClock(840));
    expect((await send('GET', '/categories', { key: 'tiny-plan-key' })).status).toBe(200);
  });

  it('starts a new window when the clock is advanced past the minute', async () => {
    for (let index = 0; index < 3; index += 1) await send('GET', '/categories', { key: 'tiny-plan-key' });
    expect((await send('GET', '/categories', { key: 'tiny-plan-key' })).status).toBe(429);
    const clock = (await controls.advanceClock(60));
    expect(clock.offsetSeconds).toBeGreaterThanOrEqual(60);
    const again = await send('GET', '/categories', { key: 'tiny-plan-key' });
    expect(again.status).toBe(200);
    expect(again.headers.get('X-RateLimit-Remaining')).toBe('2');
    expect(again.headers.get('X-RateLimit-Reset')).toBe(String(clock.epochSeconds + 60));
  });
});

describe('Prefer (forced responses)', () => {
  it('answers Prefer: code=429 with the 429 shape and headers, without spending the budget', async () => {
    const forced = await send('GET', '/categories', { key: 'demo-free', headers: { prefer: 'code=429' } });
    expectError(forced, 429, 'rate_limited', 'Forced by Prefer: code=429');
    expect(forced.headers.get('Retry-After')).toMatch(/^\d+$/);
    expect(forced.headers.get('X-RateLimit-Remaining')).toBe('0');
  });

  it('serves a named example, and refuses a code the operation does not declare', async () => {
    const empty = await send('GET', '/categories', { key: 'demo-free', headers: { prefer: 'example=empty' } });
    expect(empty.status).toBe(200);
    expect(empty.json).toEqual([]);
    expectError(await send('GET', '/categories', { key: 'demo-free', headers: { prefer: 'code=418' } }), 400, 'invalid_prefer');
  });
});

describe('controls', () => {
  it('works as functions: addKey, requests, reset', async () => {
    const { entry, created } = (await controls.addKey({ key: 'sk_test_from_code', plan: 'pro' }));
    expect(created).toBe(true);
    expect(entry.masked).not.toContain('from_code');
    const response = await send('POST', '/categories', { key: 'sk_test_from_code', json: { name: 'hamster' } });
    expect(response.status).toBe(201);
    expect(response.headers.get('X-RateLimit-Limit')).toBe('300');
    expect((await controls.requests())).toEqual([expect.objectContaining({ method: 'POST', path: '/v1/categories', operationId: 'createCategory', plan: 'pro', status: 201, code: null })]);
    expect((await controls.categories()).map((category) => category.name)).toContain('hamster');
    (await controls.reset());
    expect((await controls.categories()).map((category) => category.name)).not.toContain('hamster');
    expect((await controls.requests())).toEqual([]);
    expect((await send('GET', '/categories', { key: 'sk_test_from_code' })).status).toBe(401);
  });

  it('works through /__mock/* URLs on the same origin, uncounted', async () => {
    expect(await send('GET', '/__mock/health')).toMatchObject({ status: 200, json: { status: 'ok' } });
    const added = await send('POST', '/__mock/keys', { json: { key: 'sk_test_from_url', limits: { perMinute: 1, perDay: 10 } } });
    expect(added).toMatchObject({ status: 201, json: { plan: 'custom', limits: { perMinute: 1, perDay: 10 } } });
    expect((await send('GET', '/categories', { key: 'sk_test_from_url' })).status).toBe(200);
    expect((await send('GET', '/categories', { key: 'sk_test_from_url' })).status).toBe(429);
    const clock = await send('POST', '/__mock/clock', { json: { advanceSeconds: 60 } });
    expect(clock).toMatchObject({ status: 200, json: { offsetSeconds: expect.any(Number) } });
    expect((await send('GET', '/categories', { key: 'sk_test_from_url' })).status).toBe(200);
    const log = await send('GET', '/__mock/requests');
    expect((log.json as { path: string; status: number }[]).map((entry) => `${entry.path} ${entry.status}`)).toEqual([
      '/__mock/health 200',
      '/__mock/keys 201',
      '/v1/categories 200',
      '/v1/categories 429',
      '/__mock/clock 200',
      '/v1/categories 200',
    ]);
    expect(await send('POST', '/__mock/reset')).toMatchObject({ status: 200, json: { reset: true } });
    expect((await send('GET', '/categories', { key: 'sk_test_from_url' })).status).toBe(401);
    const refused = await send('POST', '/__mock/clock', { json: { advanceSeconds: -1 } });
    expect(refused).toMatchObject({ status: 400, json: { code: 'invalid_control_request', status: 400 } });
    // Control requests are not API requests: no budget spent, no rate-limit headers.
    expect(refused.headers.get('X-RateLimit-Limit')).toBeNull();
  });
});

describe('requests no handler matches', () => {
  it('are refused, not passed through, on the installed msw major (msw 3 renamed the option)', async () => {
    // A real server that counts what reaches it: a request MSW let through would be answered by
    // it, one MSW refused fails with MSW's own "unhandled" error and never arrives.
    let arrived = 0;
    const bystander = createServer((_request, response) => {
      arrived += 1;
      response.end('passed through');
    });
    await new Promise<void>((resolve) => bystander.listen(0, '127.0.0.1', resolve));
    const { port } = bystander.address() as AddressInfo;
    const outcome = await fetch(`http://127.0.0.1:${port}/elsewhere`).then(
      (response) => `answered ${response.status}`,
      (error: Error) => String((error.cause as Error | undefined)?.message ?? error.message),
    );
    await new Promise((resolve) => bystander.close(resolve));
    expect(arrived).toBe(0);
    expect(outcome).not.toMatch(/ECONNREFUSED|answered/);
    expect(outcome).toMatch(/unhandled|onUnhandled|\[MSW\]/i);
  });
});

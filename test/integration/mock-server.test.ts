import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startMockServer, type RunningMockServer } from '../../src/server/start-server.js';

let mock: RunningMockServer;

beforeAll(async () => {
  mock = await startMockServer({ port: 0, seed: 1, config: { keys: [{ key: 'tiny-key', limits: { perMinute: 2, perDay: 100 } }], ban: { threshold: 2, durationSeconds: 300 }, maxBodyBytes: 64 * 1024 } });
});
afterAll(() => mock.close());
beforeEach(async () => {
  await request(`${mock.origin}/__mock/reset`, { method: 'POST' }).then((response) => response.body.dump());
});

async function api(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, options: { key?: string; json?: unknown; body?: string | Buffer; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | Buffer | undefined = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  }
  const response = await request(`${mock.baseUrl}${path}`, { method, headers, body });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, text, json: text ? JSON.parse(text) : null };
}

function expectErrorShape(response: Awaited<ReturnType<typeof api>>, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toBe('application/json');
  expect(response.json).toEqual({ code, message: expect.any(String), status });
  for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(response.headers[name]).toMatch(/^\d+$/);
}

describe('the mock server over HTTP', () => {
  it('serves the API under /v1 with rate-limit headers', async () => {
    expect(mock.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const response = await api('GET', '/categories', { key: 'demo-free' });
    expect(response.status).toBe(200);
    expect(response.json).toHaveLength(3);
    expect(response.headers['x-ratelimit-limit']).toBe('60');
    expect(response.headers['x-ratelimit-remaining']).toBe('59');
    const reset = Number(response.headers['x-ratelimit-reset']);
    expect(reset).toBeGreaterThan(Date.now() / 1000);
    expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 61);
    expect(response.headers['content-length']).toBe(String(Buffer.byteLength(response.text)));
  });

  it('creates categories, answers 201 with Location, and lists them', async () => {
    const created = await api('POST', '/categories', { key: 'demo-pro', json: { name: 'hamster', description: 'Small' } });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({ id: 4, name: 'hamster', description: 'Small' });
    expect(created.headers.location).toBe('/v1/categories/4');
    expect((await api('GET', '/categories', { key: 'demo-pro' })).json).toContainEqual(created.json);
  });

  it('keeps ids unique under concurrent creation', async () => {
    const responses = await Promise.all(Array.from({ length: 200 }, (_, index) => api('POST', '/categories', { key: 'demo-enterprise', json: { name: `c${index}` } })));
    const ids = responses.map((response) => response.json.id as number);
    expect(new Set(ids).size).toBe(200);
    const listed = (await api('GET', '/categories', { key: 'demo-enterprise' })).json as { id: number }[];
    expect(listed.map((category) => category.id)).toEqual(expect.arrayContaining(ids));
  });

  it('refuses a body over the limit with 413 without reading it, by Content-Length or chunked', async () => {
    const big = Buffer.alloc(200 * 1024, 0x20);
    expectErrorShape(await api('POST', '/categories', { key: 'demo-pro', body: big, headers: { 'content-type': 'application/json' } }), 413, 'payload_too_large');
    // A stream has no Content-Length: the server must stop reading at the limit by itself.
    const chunks = () => Readable.from(Array.from({ length: 10 }, () => Buffer.alloc(16 * 1024, 0x20)));
    const chunked = await request(`${mock.baseUrl}/categories`, { method: 'POST', headers: { authorization: 'Bearer demo-pro', 'content-type': 'application/json' }, body: chunks() });
    expect(chunked.statusCode).toBe(413);
    expect(await chunked.body.json()).toMatchObject({ code: 'payload_too_large', status: 413 });
    expect((await api('GET', '/categories', { key: 'demo-pro' })).status).toBe(200);
  });

  it('reproduces a 429 in under a second and a ban, then recovers through the virtual clock', async () => {
    expect((await api('GET', '/categories', { key: 'tiny-key' })).status).toBe(200);
    expect((await api('GET', '/categories', { key: 'tiny-key' })).status).toBe(200);
    const limited = await api('GET', '/categories', { key: 'tiny-key' });
    expectErrorShape(limited, 429, 'rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    await api('GET', '/categories', { key: 'tiny-key' });
    const banned = await api('GET', '/categories', { key: 'tiny-key' });
    expectErrorShape(banned, 429, 'key_banned');
    expect(banned.headers['retry-after']).toBe('300');
    const advanced = await request(`${mock.origin}/__mock/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ advanceSeconds: 300 }) });
    expect((await advanced.body.json()) as object).toMatchObject({ offsetSeconds: expect.any(Number) });
    expect((await api('GET', '/categories', { key: 'tiny-key' })).status).toBe(200);
  });

  it('serves the controls and the request log with keys masked', async () => {
    await api('GET', '/categories', { key: 'demo-business' });
    const log = (await (await request(`${mock.origin}/__mock/requests`)).body.json()) as { key: string; plan: string }[];
    expect(log.at(-1)).toMatchObject({ plan: 'business', key: 'demo…(13)' });
    expect(JSON.stringify(log)).not.toContain('demo-business');
    const health = await request(`${mock.origin}/__mock/health`);
    // Readiness, and what the store holds against its bounds; nothing dropped yet.
    expect(await health.body.json()).toMatchObject({ status: 'ok', categories: { count: 3, maxCount: 10_000, maxBytes: 16 * 1024 * 1024 }, dropped: { categories: 0 } });
  });

  it('answers unparseable HTTP with a 400 in the Error shape, with rate-limit headers, and stays up', async () => {
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(mock.port, '127.0.0.1', () => socket.write('GET /v1/categories HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'));
      let data = '';
      socket.on('data', (chunk) => (data += chunk.toString()));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(raw).toMatch(/\r\nX-RateLimit-Limit: 60\r\nX-RateLimit-Remaining: \d+\r\nX-RateLimit-Reset: \d+\r\n/);
    expect(JSON.parse(raw.split('\r\n\r\n')[1]!)).toMatchObject({ code: 'bad_request', status: 400 });
    expect((await api('GET', '/categories', { key: 'demo-pro' })).status).toBe(200);
  });
});

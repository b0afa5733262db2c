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

// The interface's rules (401, 400, 415, 201, 404, 405, X-RateLimit-*, 429, bans, windows, Prefer, deprecation,
// sessions) run on MSW as on every transport and store from one table: interface-rules.case.ts.

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

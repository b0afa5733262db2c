import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { setupPetstoreServer, unhandledRequests } from '../../mocks/node.js';
import { createFixedClock } from '../../src/core/clock.js';
import { fromFetchResponse, requestInit, type Sent } from '../support/interface-client.js';

// MSW's setupServer and the GLOBAL fetch, as a frontend's tests would see it. The clock stands
// still unless a test moves it, so no test waits.

const startMs = Date.parse('2026-03-01T12:00:00Z');
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

async function send(method: string, path: string, sent: Sent = {}) {
  return fromFetchResponse(
    await fetch(path.startsWith('/__mock') ? `${origin}${path}` : `${base}${path}`, requestInit(method, sent)),
  );
}

// What is MSW's own: setupServer intercepting the GLOBAL fetch, the controls as functions next to
// the handlers, strictness for unhandled requests. The interface's rules (401, 400, 415, 201, 404,
// 405, X-RateLimit-*, 429, bans, windows, Prefer, deprecation, controls over /__mock/*, sessions)
// run on MSW as on every transport and store from one table: interface-rules.case.ts.

describe('controls', () => {
  it('works as functions: addKey, requests, reset', async () => {
    const { entry, created } = await controls.addKey({ key: 'sk_test_from_code', plan: 'pro' });
    expect(created).toBe(true);
    expect(entry.masked).not.toContain('from_code');
    const response = await send('POST', '/categories', { key: 'sk_test_from_code', json: { name: 'hamster' } });
    expect(response.status).toBe(201);
    expect(response.headers['x-ratelimit-limit']).toBe('300');
    expect(await controls.requests()).toEqual([
      expect.objectContaining({
        method: 'POST',
        path: '/v1/categories',
        operationId: 'createCategory',
        plan: 'pro',
        status: 201,
        code: null,
      }),
    ]);
    expect((await controls.categories()).map((category) => category.name)).toContain('hamster');
    await controls.reset();
    expect((await controls.categories()).map((category) => category.name)).not.toContain('hamster');
    expect(await controls.requests()).toEqual([]);
    expect((await send('GET', '/categories', { key: 'sk_test_from_code' })).status).toBe(401);
  });

  it('are served over /__mock/* on the API origin through the global fetch, acting on the same state', async () => {
    expect(await send('POST', '/__mock/keys', { json: { key: 'sk_test_from_url', plan: 'business' } })).toMatchObject({
      status: 201,
    });
    expect((await controls.keys()).map((key) => key.masked)).toContain('sk_t…(16)');
    expect((await send('GET', '/categories', { key: 'sk_test_from_url' })).headers['x-ratelimit-limit']).toBe('1000');
    await controls.advanceClock(60);
    expect((await send('GET', '/__mock/clock')).json).toMatchObject({ offsetSeconds: 60 });
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

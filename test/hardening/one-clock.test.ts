import { getResponse } from 'msw';
import { afterEach, describe, expect, it } from 'vitest';
import { createPetstoreHandlers } from '../../mocks/handlers.js';
import { type RunningMockServer, startMockServer } from '../../src/server/start-server.js';
import { idsWith, runKit } from '../contract-kit/support/run-kit.js';
import { specDocument } from './support/core-app.js';
import { headerValue, headerValues, parseResponses } from './support/http-response-parser.js';
import { rawExchange } from './support/raw-exchange.js';

/**
 * Issue 10, item 13: one clock. After `POST /__mock/clock`, every time the mock states (`Date`,
 * `X-RateLimit-Reset`, `Retry-After`, the request log) comes from the virtual clock, over node:http
 * and MSW alike, so a client that judges time by `Date` (as the contract kit does) sees them agree.
 */
const dayAndMinute = 90_060;
let mock: RunningMockServer | undefined;
afterEach(async () => {
  await mock?.close(1_000);
  mock = undefined;
});

const dateOf = (value: string | null | undefined) => Date.parse(value ?? '');

describe('node:http', () => {
  it('after advancing a day and a minute, Date is the virtual time and Reset is within a minute of it', async () => {
    mock = await startMockServer({ port: 0 });
    const moved = await fetch(`${mock.origin}/__mock/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ advanceSeconds: dayAndMinute }),
    });
    expect(moved.status).toBe(200);
    const virtualNow = await virtualNowOf(mock);
    expect(Math.abs(dateOf(moved.headers.get('date')) - virtualNow)).toBeLessThan(5_000);

    const listed = await fetch(`${mock.baseUrl}/categories`, { headers: { authorization: 'Bearer demo-free' } });
    const date = dateOf(listed.headers.get('date'));
    expect(Math.abs(date - (await virtualNowOf(mock)))).toBeLessThan(5_000);
    const secondsToReset = Number(listed.headers.get('x-ratelimit-reset')) - date / 1000;
    expect(secondsToReset).toBeGreaterThan(0);
    expect(secondsToReset).toBeLessThanOrEqual(61);

    // One Date header: node:http does not add its own (wall-clock) one beside the mock's.
    const { bytes } = await rawExchange(mock.port, [
      Buffer.from(
        'GET /v1/categories HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer demo-free\r\nConnection: close\r\n\r\n',
      ),
    ]);
    const dates = headerValues(parseResponses(bytes, { connectionClosed: true })[0]!.headers, 'date');
    expect(dates).toHaveLength(1);
    expect(Math.abs(dateOf(dates[0]) - (await virtualNowOf(mock)))).toBeLessThan(5_000);

    // The request log's times are on the same clock.
    const logged = (await mock.app.controls.requests()).at(-1)!;
    expect(Math.abs(Date.parse(logged.time) - date)).toBeLessThan(5_000);
  });

  it('a 429 says Retry-After and Reset consistently with its own Date', async () => {
    mock = await startMockServer({
      port: 0,
      config: { keys: [{ key: 'tiny', limits: { perMinute: 1, perDay: 100 } }] },
    });
    await mock.app.controls.advanceClock(dayAndMinute);
    await fetch(`${mock.baseUrl}/categories`, { headers: { authorization: 'Bearer tiny' } });
    const limited = await fetch(`${mock.baseUrl}/categories`, { headers: { authorization: 'Bearer tiny' } });
    expect(limited.status).toBe(429);
    const date = dateOf(limited.headers.get('date')) / 1000;
    const retryAfter = Number(limited.headers.get('retry-after'));
    const reset = Number(limited.headers.get('x-ratelimit-reset'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(61);
    expect(Math.abs(reset - date - retryAfter)).toBeLessThanOrEqual(2);
  });

  it('the answers node:http gives before the core (unparseable bytes) carry the virtual Date too', async () => {
    mock = await startMockServer({ port: 0 });
    await mock.app.controls.advanceClock(dayAndMinute);
    const { bytes } = await rawExchange(mock.port, [Buffer.from('NOT HTTP AT ALL\r\n\r\n')]);
    const [answer] = parseResponses(bytes, { connectionClosed: true });
    expect(answer?.status).toBe(400);
    expect(Math.abs(dateOf(headerValue(answer!.headers, 'date')) - (await virtualNowOf(mock)))).toBeLessThan(5_000);
  });

  it('the contract kit, which judges time by Date, finds the mock conforming after the clock moved', async () => {
    mock = await startMockServer({ port: 0, seed: 1 });
    const moved = await fetch(`${mock.origin}/__mock/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ advanceSeconds: dayAndMinute }),
    });
    expect(moved.status).toBe(200);
    const run = await runKit({ baseUrl: mock.baseUrl, apiKey: 'demo-pro', rateLimitKey: 'demo-free' });
    expect(idsWith(run, 'FAIL')).toEqual([]);
    expect(run.exitCode).toBe(0);
  });
});

describe('MSW', () => {
  it('Date follows the same virtual clock as X-RateLimit-Reset', async () => {
    const { handlers, controls } = createPetstoreHandlers({ spec: specDocument });
    await controls.advanceClock(dayAndMinute);
    const response = await getResponse(
      handlers,
      new Request('http://localhost/v1/categories', { headers: { authorization: 'Bearer demo-free' } }),
    );
    expect(response?.status).toBe(200);
    const date = dateOf(response!.headers.get('date'));
    expect(Math.abs(date - (Date.now() + dayAndMinute * 1000))).toBeLessThan(5_000);
    const secondsToReset = Number(response!.headers.get('x-ratelimit-reset')) - date / 1000;
    expect(secondsToReset).toBeGreaterThan(0);
    expect(secondsToReset).toBeLessThanOrEqual(61);
    const control = await getResponse(handlers, new Request('http://localhost/__mock/clock'));
    expect(Math.abs(dateOf(control!.headers.get('date')) - date)).toBeLessThan(5_000);
  });
});

/** The default session's virtual time, as the controls report it. */
async function virtualNowOf(running: RunningMockServer): Promise<number> {
  return Date.parse((await running.app.controls.clock()).now);
}

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OverBudget } from './check-errors.js';
import type { ContractTarget } from './contract-target.js';
import { type ApiRequest, ContractHttpClient } from './http-client.js';
import type { KitClock } from './kit-clock.js';
import { createRunState } from './run-state.js';

/** A server that answers the rate-limit key 429 (Retry-After 30) and everything else 200, with the time it was asked. */
let server: Server;
let baseUrl: string;
beforeAll(async () => {
  server = createServer((request, response) => {
    const limited = request.headers.authorization === 'Bearer limited';
    response.writeHead(limited ? 429 : 200, {
      'content-type': 'application/json',
      ...(limited ? { 'retry-after': '30' } : {}),
    });
    response.end('[]');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function clientOn(clock: KitClock, windowWaitMs: number) {
  const target = {
    runId: 'r1',
    baseUrl,
    directBaseUrl: baseUrl,
    viaPrism: false,
    timeoutMs: 2_000,
    concurrency: 2,
    maxWaitMs: 0,
    windowWaitMs,
    deadlineAtMs: Date.now() + 60_000,
    clock,
    extraHeaders: {},
    maxBodyBytes: 65_536,
  } as unknown as ContractTarget;
  const state = createRunState();
  const log: string[] = [];
  return { client: new ContractHttpClient(target, state, (line) => log.push(line)), state, log };
}

function virtualClock(start: number): KitClock & { slept: number[] } {
  let now = start;
  const slept: number[] = [];
  return {
    virtual: true,
    slept,
    now: () => now,
    sleep: async (ms) => {
      slept.push(ms);
      now += ms;
    },
  };
}

const list = (authorization: string, extra: Partial<ApiRequest> = {}): ApiRequest => ({
  operationId: 'listCategories',
  method: 'GET',
  path: '/categories',
  authorization,
  identity: 'rate-limit',
  ...extra,
});

describe('ContractHttpClient on an injected clock', () => {
  it('stamps exchanges with the kit clock, not the wall clock', async () => {
    const clock = virtualClock(Date.parse('2026-03-02T10:00:00Z'));
    const { client } = clientOn(clock, 0);
    const exchange = await client.send('t', { ...list('Bearer main'), identity: 'main' });
    expect(exchange.sentAtMs).toBe(Date.parse('2026-03-02T10:00:00Z'));
    expect(exchange.receivedAtMs).toBe(Date.parse('2026-03-02T10:00:00Z'));
    await client.close();
  });

  it('waits on purpose on the kit clock when --window-wait allows it, and says so', async () => {
    const clock = virtualClock(Date.parse('2026-03-02T10:00:00Z'));
    const { client, log } = clientOn(clock, 60_000);
    const exchange = await client.send('t', {
      ...list('Bearer main'),
      identity: 'main',
      notBefore: { atMs: clock.now() + 45_000, why: 'the end of the window' },
    });
    expect(clock.slept).toEqual([45_000]);
    expect(exchange.sentAtMs).toBe(Date.parse('2026-03-02T10:00:45Z'));
    expect(log).toEqual(['petstore-contract: waiting 45 s on purpose: the end of the window']);
    await client.close();
  });

  it('ends the check INCONCLUSIVE for its cell (OverBudget) when the wait does not fit --window-wait, sending nothing', async () => {
    const clock = virtualClock(Date.parse('2026-03-02T10:00:00Z'));
    const { client, state } = clientOn(clock, 10_000);
    const sending = client.send('t', {
      ...list('Bearer main'),
      identity: 'main',
      notBefore: { atMs: clock.now() + 45_000, why: 'the end of the window' },
    });
    await expect(sending).rejects.toThrow(OverBudget);
    await expect(sending).rejects.toThrow(
      'INCONCLUSIVE for this cell (over budget): the end of the window needs 45 s of waiting; --window-wait allows 10 s more',
    );
    expect(state.exchanges).toEqual([]);
    await client.close();
  });

  it("stops using the rate-limit key after its 429, unless a request first waits out that 429's Retry-After", async () => {
    const clock = virtualClock(Date.parse('2026-03-02T10:00:00Z'));
    const { client, state } = clientOn(clock, 60_000);
    const limited = await client.send('t', list('Bearer limited'));
    expect(limited.response?.status).toBe(429);
    expect(state.rateLimitRetryAtMs).toBe(Date.parse('2026-03-02T10:00:30Z'));
    await expect(client.send('t', list('Bearer limited'))).rejects.toThrow(
      'the kit stopped using the rate-limit key after its 429',
    );
    await expect(
      client.send('t', list('Bearer limited', { notBefore: { atMs: clock.now() + 10_000, why: 'too short' } })),
    ).rejects.toThrow('stopped using the rate-limit key');
    const after = await client.send(
      't',
      list('Bearer limited', { notBefore: { atMs: state.rateLimitRetryAtMs!, why: 'Retry-After' } }),
    );
    expect(after.sentAtMs).toBe(Date.parse('2026-03-02T10:00:30Z'));
    // Keeping on sending is only for the check that means to.
    expect((await client.send('t', list('Bearer limited', { keepSendingAfter429: true }))).response?.status).toBe(429);
    await client.close();
  });
});

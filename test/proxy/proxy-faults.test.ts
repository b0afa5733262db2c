import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../src/core/state/request-log.js';
import { type RunningProxyServer, startProxyServer } from '../../src/server/proxy-server.js';
import { type RunningMockServer, startMockServer } from '../../src/server/start-server.js';

/**
 * The judging proxy's latency and faults towards its client (decision 042), in front of our mock: the
 * request still reaches the upstream (a POST behind a reset creates its category: what a client that
 * retries blindly duplicates), and the client meets the fault. One key per fault kind, by the rules'
 * `keys`. Delays are asserted as "at least", never "at most".
 */
const kinds = ['reset', 'close', 'timeout', 'slow-body', 'status', 'malformed', 'empty'] as const;
const keyOf = (kind: string) => `k-${kind}`;

let mock: RunningMockServer;
let proxy: RunningProxyServer;
beforeAll(async () => {
  mock = await startMockServer({
    port: 0,
    config: { keys: [...kinds, 'slow'].map((kind) => ({ key: keyOf(kind), plan: 'pro' })) },
  });
  proxy = await startProxyServer({
    upstream: mock.baseUrl,
    port: 0,
    faults: {
      timeoutMs: 150,
      slowBody: { chunks: 4, durationMs: 80 },
      rules: [
        ...kinds.map((fault) => ({ fault, rate: 1, keys: [keyOf(fault)] })),
        { latency: { minMs: 60, maxMs: 60 }, rate: 1, keys: [keyOf('slow')] },
      ],
    },
  });
});
afterAll(async () => {
  await proxy.close(0);
  await mock.close(0);
});

interface Exchange {
  status?: number;
  headers?: Record<string, string | string[] | undefined>;
  body?: Buffer;
  pieces: number;
  error?: string;
  elapsedMs: number;
}

function send(key: string, init: { method?: string; body?: string; giveUpMs?: number } = {}) {
  return new Promise<Exchange>((resolve) => {
    const started = performance.now();
    const done = (exchange: Omit<Exchange, 'elapsedMs'>) =>
      resolve({ ...exchange, elapsedMs: performance.now() - started });
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    const request = httpRequest(`${proxy.baseUrl}/categories`, { method: init.method ?? 'GET', headers, agent: false });
    if (init.giveUpMs !== undefined) request.setTimeout(init.giveUpMs, () => request.destroy(new Error('gave up')));
    request.on('error', (error) => done({ error: error.message, pieces: 0 }));
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', (error) => done({ error: error.message, pieces: chunks.length }));
      response.on('end', () =>
        done({
          status: response.statusCode,
          headers: response.headers,
          body: Buffer.concat(chunks),
          pieces: chunks.length,
        }),
      );
    });
    request.end(init.body);
  });
}

/** The upstream's API requests (its log holds the control calls too). */
const upstreamLog = async () =>
  ((await (await fetch(`${mock.origin}/__mock/requests`)).json()) as RequestLogEntry[]).filter(
    (entry) => entry.plan !== 'control',
  );

it('reset: the client sees its connection reset; the POST still reached the upstream and created the category', async () => {
  const answer = await send(keyOf('reset'), { method: 'POST', body: '{"name":"behind-a-reset"}' });
  expect(answer.status).toBeUndefined();
  expect(answer.error).toMatch(/ECONNRESET/);
  const categories = (await (await fetch(`${mock.origin}/__mock/categories`)).json()) as { name: string }[];
  expect(categories.map((category) => category.name)).toContain('behind-a-reset');
});

it('close: closed without an answer', async () => {
  expect((await send(keyOf('close'))).error).toBe('socket hang up');
});

it('timeout: nothing until the client gives up, or closed unanswered after timeoutMs', async () => {
  expect((await send(keyOf('timeout'), { giveUpMs: 40 })).error).toBe('gave up');
  const held = await send(keyOf('timeout'));
  expect(held.error).toBe('socket hang up');
  expect(held.elapsedMs).toBeGreaterThanOrEqual(140);
});

it('slow-body: the upstream answer whole, in pieces, with its Content-Length', async () => {
  const answer = await send(keyOf('slow-body'));
  expect(answer.status).toBe(200);
  expect(answer.pieces).toBeGreaterThanOrEqual(2);
  expect(Number(answer.headers!['content-length'])).toBe(answer.body!.byteLength);
  expect(Array.isArray(JSON.parse(answer.body!.toString('utf8')))).toBe(true);
});

it("status: the proxy's own answer, a status the operation declares (the Petstore's 429), not forwarded", async () => {
  const before = (await upstreamLog()).length;
  const answer = await send(keyOf('status'));
  expect(answer.status).toBe(429);
  expect(JSON.parse(answer.body!.toString('utf8'))).toMatchObject({ code: 'rate_limited', status: 429 });
  expect((await upstreamLog()).length).toBe(before);
});

it('malformed and empty: the upstream status and media type, a body that does not parse or none', async () => {
  const malformed = await send(keyOf('malformed'));
  expect(malformed.status).toBe(200);
  expect(malformed.headers!['content-type']).toMatch(/application\/json/);
  expect(() => JSON.parse(malformed.body!.toString('utf8'))).toThrow(SyntaxError);
  const empty = await send(keyOf('empty'));
  expect([empty.status, empty.headers!['content-length'], empty.body!.byteLength]).toEqual([200, '0', 0]);
});

it('latency: the answer at least that late; other clients untouched', async () => {
  const slow = await send(keyOf('slow'));
  expect(slow.status).toBe(200);
  expect(slow.elapsedMs).toBeGreaterThanOrEqual(55);
  expect((await send('demo-pro')).status).toBe(200);
});

import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningMockServer, startMockServer } from '../../src/server/start-server.js';
import {
  expectError,
  expectRateLimitHeaders,
  fromFetchResponse,
  requestInit,
  type Sent,
} from '../support/interface-client.js';

// What is the node:http adapter's own: the real clock, Content-Length, bodies read off a socket
// (by Content-Length or chunked), and HTTP that does not parse. The interface's rules over
// node:http run from the case table (interface-rules.case.ts), on every store.

let mock: RunningMockServer;

beforeAll(async () => {
  mock = await startMockServer({ port: 0, seed: 1, config: { maxBodyBytes: 64 * 1024 } });
});
afterAll(() => mock.close());
beforeEach(async () => {
  await request(`${mock.origin}/__mock/reset`, { method: 'POST' }).then((response) => response.body.dump());
});

async function api(method: string, path: string, sent: Sent = {}) {
  return fromFetchResponse(await fetch(`${mock.baseUrl}${path}`, requestInit(method, sent)));
}

describe('the mock server over HTTP', () => {
  it('serves the API under /v1 on the real clock, with Content-Length', async () => {
    expect(mock.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const response = await api('GET', '/categories', { key: 'demo-free' });
    expect(response.status).toBe(200);
    expect(response.json).toHaveLength(3);
    expect(response.headers['x-ratelimit-remaining']).toBe('59');
    const reset = Number(response.headers['x-ratelimit-reset']);
    expect(reset).toBeGreaterThan(Date.now() / 1000);
    expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 61);
    expect(Math.abs(Date.parse(response.headers.date!) - Date.now())).toBeLessThan(5_000);
    expect(response.headers['content-length']).toBe(String(Buffer.byteLength(response.text)));
  });

  it('refuses a body over the limit with 413 without reading it, by Content-Length or chunked', async () => {
    const big = new Uint8Array(200 * 1024).fill(0x20);
    const refused = await api('POST', '/categories', {
      key: 'demo-pro',
      body: big,
      headers: { 'content-type': 'application/json' },
    });
    expectError(refused, 413, 'payload_too_large');
    expectRateLimitHeaders(refused);
    // A stream has no Content-Length: the server must stop reading at the limit by itself.
    const chunks = () => Readable.from(Array.from({ length: 10 }, () => Buffer.alloc(16 * 1024, 0x20)));
    const chunked = await request(`${mock.baseUrl}/categories`, {
      method: 'POST',
      headers: { authorization: 'Bearer demo-pro', 'content-type': 'application/json' },
      body: chunks(),
    });
    expect(chunked.statusCode).toBe(413);
    expect(await chunked.body.json()).toMatchObject({ code: 'payload_too_large', status: 413 });
    expect((await api('GET', '/categories', { key: 'demo-pro' })).status).toBe(200);
  });

  it('answers unparseable HTTP with a 400 in the Error shape, with rate-limit headers, and stays up', async () => {
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(mock.port, '127.0.0.1', () =>
        socket.write('GET /v1/categories HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'),
      );
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

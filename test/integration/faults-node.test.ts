import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../src/core/state/request-log.js';
import { type RunningMockServer, startMockServer } from '../../src/server/start-server.js';

// Latency and faults (decision 042) on node:http, seen by a node:http client on real sockets: what
// a client meets for each kind, and what the log records. Delays are asserted as "at least", never
// "at most" (no timed tests: the machine may be slow).

interface Exchange {
  status?: number;
  headers?: Record<string, string | string[] | undefined>;
  body?: Buffer;
  /** How many pieces the body came in. */
  pieces: number;
  /** The client's error when the connection failed: its message ("read ECONNRESET", "socket hang up"). */
  error?: string;
  elapsedMs: number;
}

function send(url: string, headers: Record<string, string> = {}, options: { giveUpMs?: number } = {}) {
  return new Promise<Exchange>((resolve) => {
    const started = performance.now();
    const done = (exchange: Omit<Exchange, 'elapsedMs'>) =>
      resolve({ ...exchange, elapsedMs: performance.now() - started });
    const request = httpRequest(url, { headers: { authorization: 'Bearer demo-pro', ...headers }, agent: false });
    if (options.giveUpMs !== undefined)
      request.setTimeout(options.giveUpMs, () => request.destroy(new Error('gave up')));
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
    request.end();
  });
}

let mock: RunningMockServer;
const api = (path: string) => `${mock.origin}/v1${path}`;

async function control(path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${mock.origin}/__mock/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function lastLogged(): Promise<RequestLogEntry> {
  const requests = (await control('requests')).body as unknown as RequestLogEntry[];
  return requests[requests.length - 1]!;
}

beforeAll(async () => {
  mock = await startMockServer({
    port: 0,
    seed: 7,
    config: { faults: { timeoutMs: 150, slowBody: { chunks: 4, durationMs: 120 } } },
  });
});
afterAll(() => mock.close(0));
beforeEach(async () => {
  await control('reset', {});
});

describe('Prefer: fault=KIND and delay=MS on node:http', () => {
  it('waits at least the delay asked for, and logs it', async () => {
    const answer = await send(api('/categories'), { prefer: 'delay=80' });
    expect(answer.status).toBe(200);
    expect(answer.elapsedMs).toBeGreaterThanOrEqual(75);
    expect(await lastLogged()).toMatchObject({ status: 200, delayMs: 80 });
  });

  it('reset: the connection is reset, no status reaches the client', async () => {
    const answer = await send(api('/categories'), { prefer: 'fault=reset' });
    expect(answer.status).toBeUndefined();
    expect(answer.error).toMatch(/ECONNRESET/);
    expect(await lastLogged()).toMatchObject({ fault: 'reset', operationId: 'listCategories' });
  });

  it('close: the connection is closed without an answer', async () => {
    const answer = await send(api('/categories'), { prefer: 'fault=close' });
    expect(answer.status).toBeUndefined();
    expect(answer.error).toBe('socket hang up');
    expect((await lastLogged()).fault).toBe('close');
  });

  it('timeout: a client that gives up first gets nothing', async () => {
    const answer = await send(api('/categories'), { prefer: 'fault=timeout' }, { giveUpMs: 40 });
    expect(answer.error).toBe('gave up');
    expect((await lastLogged()).fault).toBe('timeout');
  });

  it('timeout: the mock closes the connection unanswered after timeoutMs', async () => {
    const answer = await send(api('/categories'), { prefer: 'fault=timeout' });
    expect(answer.status).toBeUndefined();
    expect(answer.error).toBe('socket hang up');
    expect(answer.elapsedMs).toBeGreaterThanOrEqual(140);
  });

  it('slow-body: the whole body, in pieces, over the configured duration', async () => {
    const answer = await send(api('/categories'), { prefer: 'fault=slow-body' });
    expect(answer.status).toBe(200);
    expect(answer.pieces).toBeGreaterThanOrEqual(2);
    expect(Array.isArray(JSON.parse(answer.body!.toString('utf8')))).toBe(true);
    expect(answer.elapsedMs).toBeGreaterThanOrEqual(80);
  });

  it("status: a status the operation declares (the Petstore's 429), in the document's error shape", async () => {
    const answer = await send(api('/categories'), { prefer: 'fault=status' });
    expect(answer.status).toBe(429);
    expect(JSON.parse(answer.body!.toString('utf8'))).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(await lastLogged()).toMatchObject({ status: 429, fault: 'status', code: 'rate_limited' });
  });

  it('malformed: the declared media type with a body that does not parse', async () => {
    const answer = await send(api('/categories'), { prefer: 'fault=malformed' });
    expect(answer.status).toBe(200);
    expect(answer.headers!['content-type']).toMatch(/application\/json/);
    expect(answer.body!.byteLength).toBeGreaterThan(0);
    expect(() => JSON.parse(answer.body!.toString('utf8'))).toThrow(SyntaxError);
  });

  it('empty: the status and media type with no body at all', async () => {
    const answer = await send(api('/categories'), { prefer: 'fault=empty' });
    expect([answer.status, answer.headers!['content-length'], answer.body!.byteLength]).toEqual([200, '0', 0]);
    expect(answer.headers!['content-type']).toMatch(/application\/json/);
  });

  it('never beats authentication: a request without a key is still a 401, after the delay', async () => {
    const answer = await send(api('/categories'), { prefer: 'fault=status', authorization: '' });
    expect(answer.status).toBe(401);
  });

  it('refuses an unknown fault kind or a bad delay with invalid_prefer', async () => {
    for (const prefer of ['fault=explode', 'delay=-1', 'delay=fast']) {
      const answer = await send(api('/categories'), { prefer });
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body!.toString('utf8'))).toMatchObject({ code: 'invalid_prefer' });
    }
  });

  it('keeps the order of pipelined requests on a connection that waits for a latency', async () => {
    const { port } = new URL(mock.origin);
    const head = (path: string, prefer: string) =>
      `GET /v1${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer demo-pro\r\n${prefer}\r\n`;
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        // Both at once: the second is parsed while the first waits for its latency.
        socket.write(`${head('/categories', 'Prefer: delay=60\r\n')}${head('/store/orders', 'Connection: close\r\n')}`);
      });
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
      socket.on('end', () => resolve(received));
      socket.on('error', reject);
    });
    const answers = text.split(/(?=HTTP\/1\.1 )/);
    expect(answers).toHaveLength(2);
    // The first answer is the categories' (objects with a name), the second the orders' (with a petId).
    expect(answers[0]).toMatch(/"name"/);
    expect(answers[0]).not.toMatch(/"petId"/);
    expect(answers[1]).toMatch(/"petId"/);
  });
});

describe('the dashboard', () => {
  it('shows the fault and the latency in the recent log, and the fault on the timeline', async () => {
    await send(api('/categories'), { prefer: 'fault=close, delay=5' });
    const { body } = await control('dashboard');
    const recent = body.recent as { fault?: string; delayMs?: number }[];
    expect(recent.at(-1)).toMatchObject({ fault: 'close', delayMs: 5 });
    expect(body.timelineSvg).toContain('stroke="#56B4E9"');
  });
});

describe('run-time faults through POST /__mock/faults', () => {
  const pattern = async (count: number) => {
    const statuses: string[] = [];
    for (let index = 0; index < count; index += 1) {
      const answer = await send(api('/categories'));
      statuses.push(answer.status === undefined ? 'x' : String(answer.status));
    }
    return statuses.join(' ');
  };

  it('draws the rate from the session seed: the same after a reset, neither all nor none', async () => {
    const settings = { rules: [{ fault: 'close', rate: 0.5 }] };
    expect((await control('faults', settings)).status).toBe(200);
    const first = await pattern(16);
    await control('reset', {});
    // Back to the config's settings (which inject nothing by themselves).
    expect((await control('faults')).body.faults).toEqual({ timeoutMs: 150, slowBody: { chunks: 4, durationMs: 120 } });
    await control('faults', settings);
    expect(await pattern(16)).toBe(first);
    expect(first).toContain('x');
    expect(first).toContain('200');
  });

  it('applies a rule to its operations and keys only, and a latency range to every answer', async () => {
    await control('faults', {
      latency: '5-9ms',
      rules: [{ fault: 'empty', operations: ['listCategories'], keys: ['demo-free'] }],
    });
    const free = await send(api('/categories'), { authorization: 'Bearer demo-free' });
    expect(free.body!.byteLength).toBe(0);
    const pro = await send(api('/categories'), { authorization: 'Bearer demo-pro' });
    expect(pro.body!.byteLength).toBeGreaterThan(0);
    const logged = await lastLogged();
    expect(logged.fault).toBeUndefined();
    expect(logged.delayMs).toBeGreaterThanOrEqual(5);
    expect(logged.delayMs).toBeLessThanOrEqual(9);
  });

  it('shows the keys a rule names masked (the demo keys by name)', async () => {
    const set = await control('faults', { rules: [{ fault: 'reset', keys: ['sk_live_secret_123456', 'demo-free'] }] });
    expect(JSON.stringify(set.body)).not.toContain('sk_live_secret_123456');
    const { body } = await control('faults');
    expect((body.faults as { rules: { keys: string[] }[] }).rules[0]!.keys).toEqual(['sk_l…(21)', 'demo-free']);
  });

  it('refuses bad settings naming the field, and a cross-site caller', async () => {
    const bad = await control('faults', { rules: [{ fault: 'boom' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/rules\.0\.fault/);
    const range = await control('faults', { latency: '300-50ms' });
    expect(range.status).toBe(400);
    const crossSite = await control('faults', {}, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(403);
  });
});

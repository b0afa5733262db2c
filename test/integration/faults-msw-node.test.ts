import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { setupPetstoreServer, unhandledRequests } from '../../mocks/node.js';

// Latency and faults (decision 042) through the MSW handlers in Node, seen by the global fetch: a
// network error for reset, close and timeout, a streamed body for slow-body, the core's answer for
// status, malformed and empty. Delays are asserted as "at least", never "at most".

const origin = 'https://api.faults-msw.example';
const { server, controls } = setupPetstoreServer({
  seed: 7,
  baseUrl: `${origin}/v1`,
  config: { faults: { timeoutMs: 150, slowBody: { chunks: 4, durationMs: 80 } } },
});

beforeAll(() => server.listen(unhandledRequests('error')));
afterAll(() => server.close());
beforeEach(() => controls.reset());

const get = (headers: Record<string, string> = {}, init: RequestInit = {}) =>
  fetch(`${origin}/v1/categories`, { ...init, headers: { authorization: 'Bearer demo-pro', ...headers } });

async function outcome(promise: Promise<Response>): Promise<string> {
  try {
    const response = await promise;
    return `status ${response.status}`;
  } catch (error) {
    return `${(error as Error).name}`;
  }
}

const lastLogged = async () => (await controls.requests()).at(-1)!;

describe('Prefer: fault=KIND and delay=MS through MSW in Node', () => {
  it('waits at least the delay, and logs it', async () => {
    const started = performance.now();
    expect((await get({ prefer: 'delay=60' })).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
    expect(await lastLogged()).toMatchObject({ delayMs: 60 });
  });

  it.each(['reset', 'close'])('%s: a network error (fetch rejects with a TypeError)', async (kind) => {
    expect(await outcome(get({ prefer: `fault=${kind}` }))).toBe('TypeError');
    expect((await lastLogged()).fault).toBe(kind);
  });

  it('timeout: nothing until the client gives up', async () => {
    expect(await outcome(get({ prefer: 'fault=timeout' }, { signal: AbortSignal.timeout(40) }))).toMatch(
      /AbortError|TimeoutError/,
    );
    expect((await lastLogged()).fault).toBe('timeout');
  });

  it('timeout: a network error once timeoutMs has passed', async () => {
    const started = performance.now();
    expect(await outcome(get({ prefer: 'fault=timeout' }))).toBe('TypeError');
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('slow-body: the whole body, streamed in pieces', async () => {
    const response = await get({ prefer: 'fault=slow-body' });
    const reader = response.body!.getReader();
    const pieces: Uint8Array[] = [];
    for (let read = await reader.read(); !read.done; read = await reader.read()) pieces.push(read.value);
    expect(pieces.length).toBeGreaterThanOrEqual(2);
    const text = new TextDecoder().decode(Buffer.concat(pieces));
    expect(Array.isArray(JSON.parse(text))).toBe(true);
  });

  it('status, malformed and empty: as on node:http', async () => {
    const status = await get({ prefer: 'fault=status' });
    expect(status.status).toBe(429);
    expect(await status.json()).toMatchObject({ code: 'rate_limited' });
    const malformed = await get({ prefer: 'fault=malformed' });
    expect(malformed.headers.get('content-type')).toMatch(/application\/json/);
    await expect(malformed.json()).rejects.toThrow(SyntaxError);
    const empty = await get({ prefer: 'fault=empty' });
    expect([empty.status, await empty.text()]).toEqual([200, '']);
  });
});

describe('controls.setFaults', () => {
  it('sets the session faults, drawn from the seed: the same pattern after a reset', async () => {
    const pattern = async () => {
      const seen: string[] = [];
      for (let index = 0; index < 12; index += 1) seen.push(await outcome(get()));
      return seen.join(',');
    };
    const settings = { rules: [{ fault: 'reset' as const, rate: 0.5 }] };
    await controls.setFaults(settings);
    const first = await pattern();
    await controls.reset();
    await controls.setFaults(settings);
    expect(await pattern()).toBe(first);
    expect(first).toContain('TypeError');
    expect(first).toContain('status 200');
    expect(await controls.faults()).toMatchObject({ rules: [{ fault: 'reset', rate: 0.5 }] });
  });

  it('refuses bad settings with invalid_control_request naming the field', async () => {
    await expect(async () => controls.setFaults({ rules: [{ fault: 'reset', rate: 2 }] })).rejects.toThrow(
      /rules\.0\.rate/,
    );
  });
});

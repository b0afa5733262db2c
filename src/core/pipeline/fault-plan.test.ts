import { describe, expect, it } from 'vitest';
import { createTestApp, request } from '../../../test/support/core-test-app.js';
import { malformedAnswer } from '../wire/faults.js';

// The core's fault decision (decision 042), without any transport: what each request meets is on
// the answer (`fault`) and in the log; nothing here waits.

const proKey = { key: 'demo-pro' };

describe('the fault stages of the core', () => {
  it('flaky-network: every kind of the preset met over a run, each latency in its range, all reproduced after a reset', async () => {
    const app = createTestApp();
    await app.controls.applyScenario({ presets: ['flaky-network'] });
    const run = async () => {
      for (let index = 0; index < 300; index += 1) await app.handle(request('GET', '/v1/categories', proKey));
      return (await app.controls.requests()).filter((entry) => entry.plan !== 'control');
    };
    const first = await run();
    expect(new Set(first.map((entry) => entry.fault))).toEqual(
      new Set([undefined, 'reset', 'status', 'slow-body', 'timeout']),
    );
    expect(first.every((entry) => entry.delayMs! >= 50 && entry.delayMs! <= 300)).toBe(true);
    expect(first.filter((entry) => entry.fault === 'status').every((entry) => entry.status === 429)).toBe(true);
    await app.controls.reset();
    await app.controls.applyScenario({ presets: ['flaky-network'] });
    const again = await run();
    expect(again.map((entry) => [entry.fault, entry.delayMs])).toEqual(
      first.map((entry) => [entry.fault, entry.delayMs]),
    );
  });

  it('hands the transport what to carry out, and changes the answer for status, malformed and empty', async () => {
    const app = createTestApp();
    const answer = async (prefer: string) =>
      app.handle(request('GET', '/v1/categories', { ...proKey, headers: { prefer } }));
    expect((await answer('fault=reset, delay=20')).fault).toMatchObject({
      kind: 'reset',
      delayMs: 20,
      timeoutMs: 30_000,
    });
    expect((await answer('fault=slow-body')).fault).toMatchObject({
      kind: 'slow-body',
      slowBody: { chunks: 10, durationMs: 2_000 },
    });
    expect((await answer('fault=empty')).body).toBe('');
    const status = await answer('fault=status, code=502');
    expect([status.status, JSON.parse(status.body!).code]).toEqual([502, 'injected_fault']);
    expect((await answer('fault=status, code=404')).status).toBe(400);
    // Nothing asked, nothing set: no fault on the answer at all.
    expect((await answer('code=200')).fault).toBeUndefined();
  });

  it('never answers a status fault over a 401, nor logs one there', async () => {
    const app = createTestApp();
    const refused = await app.handle(request('GET', '/v1/categories', { headers: { prefer: 'fault=status' } }));
    expect(refused.status).toBe(401);
    expect((await app.controls.requests()).at(-1)?.fault).toBeUndefined();
  });

  it('leaves the controls and the routes the document does not serve alone', async () => {
    const app = createTestApp({ config: { faults: { rules: [{ fault: 'reset', rate: 1 }] } } });
    expect((await app.handle(request('GET', '/v1/dogs', proKey))).fault).toBeUndefined();
    expect((await app.handle(request('GET', '/__mock/health'))).fault).toBeUndefined();
    expect((await app.handle(request('GET', '/v1/categories', proKey))).fault?.kind).toBe('reset');
  });
});

describe('malformedAnswer', () => {
  const text = (body: string, type: string) =>
    malformedAnswer({ status: 200, headers: { 'Content-Type': type }, body });
  it.each([
    ['[{"id":1,"name":"dog"}]', 'application/json'],
    ['12345678', 'application/json'],
    ['""', 'application/problem+json'],
    ['', 'application/json'],
  ])('leaves JSON %j unparseable and not empty', (body, type) => {
    const cut = text(body, type).body!;
    expect(cut.length).toBeGreaterThan(0);
    expect(() => JSON.parse(cut)).toThrow(SyntaxError);
  });

  it('leaves XML open, other text with an invalid UTF-8 sequence, and cuts bytes', () => {
    expect(text('<pet><name>dog</name></pet>', 'application/xml').body).toBe('<pet><name>do<');
    const plain = text('hello world', 'text/plain; charset=utf-8');
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(plain.bytes)).toThrow(TypeError);
    const image = malformedAnswer({
      status: 200,
      headers: { 'Content-Type': 'image/png' },
      body: null,
      bytes: new Uint8Array(10),
    });
    expect(image.bytes!.byteLength).toBe(5);
  });
});

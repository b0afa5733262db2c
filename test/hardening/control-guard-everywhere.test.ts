import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockApp } from '../../src/core/mock-app.js';
import { type RunningProxyServer, startProxyServer } from '../../src/server/proxy-server.js';
import { createCoreApp } from './support/core-app.js';
import { errorCodeOf } from './support/error-shape.js';

/**
 * Issue 40, rows 4 and 15 (item 7): every control path, the mock's and the judging proxy's, goes
 * through one guard. The proxy's report, export and page refuse a DNS-rebinding Host and a foreign
 * Origin as the mock's controls do; and a control that changes state refuses a browser's cross-site
 * request sent without Origin (`Sec-Fetch-Site: cross-site`, or `same-site`: another port of the same
 * host), as Fetch Metadata tells it.
 */
const encoder = new TextEncoder();

/** The state-changing controls a hostile page would call, with what each changes. */
const changingControls = [
  { path: '/__mock/clock', body: '{"advanceSeconds":86400}' },
  { path: '/__mock/keys', body: '{"key":"planted-key-0123456789","plan":"enterprise"}' },
  { path: '/__mock/reset', body: null },
] as const;

async function postEach(app: MockApp, headers: Record<string, string>): Promise<string[]> {
  const outcomes: string[] = [];
  for (const { path, body } of changingControls) {
    const response = await app.handle({
      method: 'POST',
      url: path,
      headers: { ...(body ? { 'content-type': 'application/json' } : {}), host: '127.0.0.1:4010', ...headers },
      body: body === null ? null : encoder.encode(body),
      clientAddress: '127.0.0.1',
      serverAddress: '127.0.0.1',
    });
    outcomes.push(`${path} ${response.status}${response.status >= 400 ? ` ${errorCodeOf(response.body)}` : ''}`);
  }
  return outcomes;
}

async function changes(app: MockApp): Promise<string[]> {
  const changed: string[] = [];
  if ((await app.controls.clock()).offsetSeconds !== 0) changed.push('clock moved');
  if ((await app.controls.keys()).some((entry) => entry.plan === 'enterprise' && !entry.masked.startsWith('demo')))
    changed.push('key planted');
  return changed;
}

describe('state-changing controls and Sec-Fetch-Site without Origin (row 15)', () => {
  it.each(['cross-site', 'same-site', 'Cross-Site'])(
    'refuses a POST with Sec-Fetch-Site: %s and no Origin, and changes nothing',
    async (site) => {
      const app = createCoreApp();
      const outcomes = await postEach(app, { 'sec-fetch-site': site });
      expect(outcomes).toEqual(changingControls.map(({ path }) => `${path} 403 control_forbidden`));
      expect(await changes(app)).toEqual([]);
    },
  );

  it.each([
    ['same-origin', { 'sec-fetch-site': 'same-origin' }],
    ['none (typed by the user)', { 'sec-fetch-site': 'none' }],
    ['absent (a script, curl)', {}],
    [
      'same-site with a loopback Origin (decided by Origin)',
      { 'sec-fetch-site': 'same-site', origin: 'http://localhost:5173' },
    ],
  ])('serves a POST with Sec-Fetch-Site %s', async (_label, headers) => {
    const outcomes = await postEach(createCoreApp(), headers);
    for (const outcome of outcomes) expect(outcome).toMatch(/ 20[01]$/);
  });

  it('serves a reading control sent cross-site: a page cannot read the answer (no CORS headers)', async () => {
    const response = await createCoreApp().handle({
      method: 'GET',
      url: '/__mock/clock',
      headers: { host: '127.0.0.1:4010', 'sec-fetch-site': 'cross-site' },
      body: null,
      clientAddress: '127.0.0.1',
      serverAddress: '127.0.0.1',
    });
    expect(response.status).toBe(200);
  });
});

describe("the judging proxy's controls (row 4)", () => {
  let proxy: RunningProxyServer;
  beforeAll(async () => {
    // The controls never reach the upstream: a closed port will do.
    proxy = await startProxyServer({ upstream: 'http://127.0.0.1:9/v1', port: 0 });
  });
  afterAll(() => proxy.close(1_000));

  const call = (method: string, path: string, headers: Record<string, string>) =>
    new Promise<{ status: number; code: string | undefined }>((resolve, reject) => {
      const request = httpRequest(
        { host: '127.0.0.1', port: proxy.port, method, path, headers, setHost: false },
        (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString()));
          response.on('end', () => {
            let code: string | undefined;
            try {
              code = (JSON.parse(text) as { code?: string }).code;
            } catch {
              code = undefined;
            }
            resolve({ status: response.statusCode ?? 0, code });
          });
        },
      );
      request.on('error', reject);
      request.end();
    });

  const controls = ['/__mock/requests?format=jsonl', '/__mock/report', '/__mock/report?format=markdown', '/__mock/ui'];

  it.each(['evil.example', 'evil.example:80', '127.0.0.1.nip.io', 'attacker.localhost.evil'])(
    'refuses every control under the DNS-rebinding Host %j with 403 control_forbidden',
    async (host) => {
      for (const path of controls)
        expect(await call('GET', path, { host }), `${path} Host ${host}`).toEqual({
          status: 403,
          code: 'control_forbidden',
        });
    },
  );

  it('refuses a foreign Origin, and a cross-site POST without Origin', async () => {
    for (const path of controls)
      expect(
        (await call('GET', path, { host: `127.0.0.1:${proxy.port}`, origin: 'https://evil.example' })).status,
      ).toBe(403);
    expect(
      (await call('POST', '/__mock/report', { host: `127.0.0.1:${proxy.port}`, 'sec-fetch-site': 'cross-site' }))
        .status,
    ).toBe(403);
  });

  it("serves them under the proxy's own names", async () => {
    for (const host of [`127.0.0.1:${proxy.port}`, `localhost:${proxy.port}`])
      for (const path of controls) expect((await call('GET', path, { host })).status, `${path} Host ${host}`).toBe(200);
  });

  it('serves the names it is told to allow', async () => {
    const named = await startProxyServer({ upstream: 'http://127.0.0.1:9/v1', port: 0, allowedHosts: ['proxy.test'] });
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const request = httpRequest(
          {
            host: '127.0.0.1',
            port: named.port,
            path: '/__mock/report',
            headers: { host: 'proxy.test' },
            setHost: false,
          },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        request.on('error', reject);
        request.end();
      });
      expect(status).toBe(200);
    } finally {
      await named.close(1_000);
    }
  });
});

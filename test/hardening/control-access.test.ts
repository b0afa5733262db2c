import { describe, expect, it } from 'vitest';
import type { MockApp } from '../../src/core/mock-app.js';
import type { MockRequest } from '../../src/core/types.js';
import { createCoreApp, listRequest } from './support/core-app.js';
import { errorCodeOf, errorShapeProblems } from './support/error-shape.js';

/**
 * The control API is refused to non-loopback clients unless allowed, and guarded by a token when
 * one is configured (issue 6, "Secrets"). In-process with app.handle: a loopback socket cannot
 * come from 10.1.2.3, and the tests must never send traffic off the machine.
 */
const encoder = new TextEncoder();
const remote = '10.1.2.3';

const controlRequests: Record<string, (clientAddress: string, headers?: Record<string, string>) => MockRequest> = {
  'GET /__mock/health': (clientAddress, headers = {}) => ({
    method: 'GET',
    url: '/__mock/health',
    headers,
    body: null,
    clientAddress,
  }),
  'GET /__mock/requests': (clientAddress, headers = {}) => ({
    method: 'GET',
    url: '/__mock/requests',
    headers,
    body: null,
    clientAddress,
  }),
  'GET /__mock/keys': (clientAddress, headers = {}) => ({
    method: 'GET',
    url: '/__mock/keys',
    headers,
    body: null,
    clientAddress,
  }),
  'GET /__mock/clock': (clientAddress, headers = {}) => ({
    method: 'GET',
    url: '/__mock/clock',
    headers,
    body: null,
    clientAddress,
  }),
  'POST /__mock/reset': (clientAddress, headers = {}) => ({
    method: 'POST',
    url: '/__mock/reset',
    headers,
    body: null,
    clientAddress,
  }),
  'POST /__mock/clock': (clientAddress, headers = {}) => ({
    method: 'POST',
    url: '/__mock/clock',
    headers: { 'content-type': 'application/json', ...headers },
    body: encoder.encode('{"advanceSeconds":86400}'),
    clientAddress,
  }),
  'POST /__mock/keys': (clientAddress, headers = {}) => ({
    method: 'POST',
    url: '/__mock/keys',
    headers: { 'content-type': 'application/json', ...headers },
    body: encoder.encode('{"key":"planted-by-remote","plan":"enterprise"}'),
    clientAddress,
  }),
};

/** Status and Error code of every control, called from `clientAddress`. */
async function callAll(
  app: MockApp,
  clientAddress: string,
  headers: Record<string, string> = {},
): Promise<Record<string, string>> {
  const outcomes: Record<string, string> = {};
  for (const [route, build] of Object.entries(controlRequests)) {
    const response = await app.handle(build(clientAddress, headers));
    const problems =
      response.status >= 400
        ? errorShapeProblems({
            status: response.status,
            contentType: response.headers['Content-Type'],
            body: response.body,
          })
        : [];
    outcomes[route] =
      `${response.status}${response.status >= 400 ? ` ${errorCodeOf(response.body)}` : ''}${problems.length > 0 ? ` (${problems.join('; ')})` : ''}`;
  }
  return outcomes;
}

const everyControl = (outcome: string) =>
  Object.fromEntries(Object.keys(controlRequests).map((route) => [route, outcome]));
const served = (outcomes: Record<string, string>) =>
  Object.values(outcomes).every((outcome) => /^20[01]$/.test(outcome));

describe('control API access', () => {
  it('refuses every control to a non-loopback client: 403 control_forbidden with an Error body', async () => {
    expect(await callAll(createCoreApp(), remote)).toEqual(everyControl('403 control_forbidden'));
  });

  it('changes nothing when refusing: no key planted, no reset, no clock moved', async () => {
    const app = createCoreApp();
    const created = await app.handle({
      method: 'POST',
      url: '/v1/categories',
      headers: { authorization: 'Bearer demo-enterprise', 'content-type': 'application/json' },
      body: encoder.encode('{"name":"kept"}'),
      clientAddress: '127.0.0.1',
    });
    expect(created.status).toBe(201);
    const clockBefore = (await app.controls.clock()).offsetSeconds;
    await callAll(app, remote);
    expect((await app.handle(listRequest({ key: 'planted-by-remote' }))).status).toBe(401);
    expect((await app.controls.categories()).map((category) => category.name)).toContain('kept');
    expect((await app.controls.clock()).offsetSeconds).toBe(clockBefore);
  });

  it('refuses IPv4-mapped remote addresses and IPv6 remote addresses too', async () => {
    for (const address of ['::ffff:10.1.2.3', '2001:db8::1', 'fe80::1', '0.0.0.0', '128.0.0.1', '1.127.0.0']) {
      expect(await callAll(createCoreApp(), address), address).toEqual(everyControl('403 control_forbidden'));
    }
  });

  it('serves loopback clients: 127.0.0.0/8, ::1 and IPv4-mapped loopback', async () => {
    for (const address of ['127.0.0.1', '127.255.255.254', '::1', '::ffff:127.0.0.1']) {
      expect(served(await callAll(createCoreApp(), address)), address).toBe(true);
    }
  });

  it('is not fooled by X-Forwarded-For or Forwarded headers naming a loopback address', async () => {
    expect(
      await callAll(createCoreApp(), remote, {
        'x-forwarded-for': '127.0.0.1',
        forwarded: 'for=127.0.0.1',
        'x-real-ip': '127.0.0.1',
      }),
    ).toEqual(everyControl('403 control_forbidden'));
  });

  it('reaches no control through another spelling of the path from a remote client', async () => {
    const app = createCoreApp();
    for (const url of [
      '/__MOCK/reset',
      '/%5f%5fmock/reset',
      '/v1/../__mock/reset',
      '//__mock/reset',
      '/__mock/./reset',
      '/__mock//reset',
      'http://127.0.0.1/__mock/reset',
    ]) {
      const response = await app.handle({ method: 'POST', url, headers: {}, body: null, clientAddress: remote });
      expect(response.status, url).toBeGreaterThanOrEqual(400);
      expect(response.status, url).toBeLessThan(500);
    }
  });

  it('still serves the API itself to remote clients: only the controls are loopback-only', async () => {
    expect((await createCoreApp().handle(listRequest({ key: 'demo-free', clientAddress: remote }))).status).toBe(200);
  });

  it('serves remote clients when allowRemoteControl is set', async () => {
    expect(served(await callAll(createCoreApp({ allowRemoteControl: true }), remote))).toBe(true);
  });

  it('with a control token, refuses callers without it or with a near miss, even on loopback', async () => {
    const token = 'ctl_0123456789abcdef';
    const attempts: Record<string, string>[] = [
      {},
      { 'x-mock-control-token': '' },
      { 'x-mock-control-token': 'ctl_0123456789abcdeX' },
      { 'x-mock-control-token': `${token} ` },
      { 'x-mock-control-token': token.slice(0, -1) },
      { authorization: `Bearer ${token}` },
    ];
    for (const headers of attempts) {
      expect(
        await callAll(createCoreApp({ controlToken: token }), '127.0.0.1', headers),
        JSON.stringify(headers),
      ).toEqual(everyControl('403 control_forbidden'));
    }
    expect(
      served(await callAll(createCoreApp({ controlToken: token }), '127.0.0.1', { 'x-mock-control-token': token })),
    ).toBe(true);
  });

  it('with allowRemoteControl and a token, serves a remote client only with the token', async () => {
    const token = 'ctl_0123456789abcdef';
    expect(await callAll(createCoreApp({ allowRemoteControl: true, controlToken: token }), remote)).toEqual(
      everyControl('403 control_forbidden'),
    );
    expect(
      served(
        await callAll(createCoreApp({ allowRemoteControl: true, controlToken: token }), remote, {
          'x-mock-control-token': token,
        }),
      ),
    ).toBe(true);
  });
});

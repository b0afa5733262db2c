import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockConfigInput } from '../../src/core/config/mock-config.js';
import type { MockApp } from '../../src/core/mock-app.js';
import type { MockRequest } from '../../src/core/types.js';
import { type RunningMockServer, startMockServer } from '../../src/server/start-server.js';
import { startCli } from './support/cli-process.js';
import { createCoreApp } from './support/core-app.js';
import { errorCodeOf } from './support/error-shape.js';
import { parseResponses } from './support/http-response-parser.js';
import { rawExchange } from './support/raw-exchange.js';

/**
 * Issue 10, items 1 and 2: a website cannot drive the controls. `Origin` is parsed (a loopback IP
 * literal or `localhost`, never a name that merely starts with "127."), and `Host` must name the
 * mock (a loopback name or address, the address the connection arrived on, or an allowed name), so
 * a DNS-rebinding page, which sends a foreign Host and its own Origin, gets nothing.
 */
const encoder = new TextEncoder();

function control(
  method: 'GET' | 'POST',
  path: string,
  headers: Record<string, string>,
  extra: Partial<MockRequest> = {},
): MockRequest {
  const body =
    path === '/__mock/clock' && method === 'POST'
      ? '{"advanceSeconds":86400}'
      : path === '/__mock/keys' && method === 'POST'
        ? '{"key":"planted","plan":"enterprise"}'
        : null;
  return {
    method,
    url: path,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body === null ? null : encoder.encode(body),
    clientAddress: '127.0.0.1',
    serverAddress: '127.0.0.1',
    ...extra,
  };
}

/** Status and code of every control a hostile page would call, and whether anything changed. */
async function attack(
  app: MockApp,
  headers: Record<string, string>,
  extra: Partial<MockRequest> = {},
): Promise<{ outcomes: string[]; changed: string[] }> {
  const outcomes: string[] = [];
  for (const [method, path] of [
    ['GET', '/__mock/requests'],
    ['GET', '/__mock/keys'],
    ['GET', '/__mock/clock'],
    ['POST', '/__mock/reset'],
    ['POST', '/__mock/clock'],
    ['POST', '/__mock/keys'],
  ] as const) {
    const response = await app.handle(control(method, path, headers, extra));
    outcomes.push(
      `${method} ${path} ${response.status}${response.status >= 400 ? ` ${errorCodeOf(response.body)}` : ''}`,
    );
  }
  const changed: string[] = [];
  if ((await app.controls.clock()).offsetSeconds !== 0) changed.push('clock moved');
  if ((await app.controls.keys()).some((entry) => entry.plan === 'enterprise' && !entry.masked.startsWith('demo')))
    changed.push('key planted');
  return { outcomes, changed };
}

const refusedEverywhere = (outcomes: string[]) =>
  outcomes.every((outcome) => outcome.endsWith(' 403 control_forbidden'));
const servedEverywhere = (outcomes: string[]) => outcomes.every((outcome) => / 20[01]$/.test(outcome));

function fresh(config: MockConfigInput = {}): MockApp {
  return createCoreApp(config);
}

describe('Origin: only loopback pages (item 1)', () => {
  const lookAlikes = [
    'http://127.attacker.example',
    'http://127.0.0.1.nip.io:8080',
    'http://127.0.0.1.evil.example',
    'http://localhost.evil.example',
    'http://localhost-evil.example',
    'http://[::1].evil.example',
    'https://evil.example',
    'http://0.0.0.0:4010',
    'http://10.0.0.1',
    'null',
    'file://',
    'chrome-extension://abcdef',
    'http://127.0.0.1:4010/path',
    'http://user@127.0.0.1',
    'not a url',
    '',
  ];

  it.each(lookAlikes)(
    "refuses Origin %j on every control and changes nothing (Host is the mock's own)",
    async (origin) => {
      const app = fresh();
      const { outcomes, changed } = await attack(app, { host: '127.0.0.1:4010', origin });
      expect(refusedEverywhere(outcomes), outcomes.join('\n')).toBe(true);
      expect(changed).toEqual([]);
    },
  );

  const loopbackPages = [
    'http://localhost:5173',
    'http://LOCALHOST:5173',
    'http://localhost.:5173',
    'http://app.localhost:3000',
    'http://127.0.0.1:3000',
    'http://127.1:3000',
    'https://127.0.0.2',
    'http://[::1]:8080',
    'http://[0:0:0:0:0:0:0:1]',
  ];
  it.each(loopbackPages)("serves a page of the developer's own machine, Origin %j", async (origin) => {
    expect(servedEverywhere((await attack(fresh(), { host: 'localhost:4010', origin })).outcomes)).toBe(true);
  });

  it('serves an Origin whose host the user allowed, and never every Origin, even with allowedHosts: all', async () => {
    expect(
      servedEverywhere(
        (
          await attack(fresh({ allowedHosts: ['mock.internal'] }), {
            host: 'mock.internal',
            origin: 'http://mock.internal:4010',
          })
        ).outcomes,
      ),
    ).toBe(true);
    expect(
      refusedEverywhere(
        (await attack(fresh({ allowedHosts: 'all' }), { host: 'localhost', origin: 'https://evil.example' })).outcomes,
      ),
    ).toBe(true);
  });
});

describe('Host: the controls answer only under a name of the mock (item 2)', () => {
  const foreignHosts = [
    'evil.example',
    'evil.example:4010',
    'EVIL.EXAMPLE',
    '127.0.0.1.nip.io',
    '127.attacker.example:4010',
    'localhost.evil.example',
    'localhost:4010@evil.example',
    '127.0.0.1@evil.example',
    'evil.example/127.0.0.1',
    'evil.example#127.0.0.1',
    '',
    ' ',
    '10.0.0.5:4010',
    '[2001:db8::1]:4010',
    '0.0.0.0',
  ];
  it.each(foreignHosts)(
    'refuses Host %j (a DNS-rebinding page) with no Origin and with its own Origin',
    async (host) => {
      for (const headers of [{ host }, { host, origin: `http://${host}` }] as Record<string, string>[]) {
        const app = fresh();
        const { outcomes, changed } = await attack(app, headers);
        expect(refusedEverywhere(outcomes), `${JSON.stringify(headers)}\n${outcomes.join('\n')}`).toBe(true);
        expect(changed).toEqual([]);
      }
    },
  );

  const ownHosts = [
    'localhost',
    'localhost:4010',
    'LOCALHOST:4010',
    'localhost.:4010',
    'api.localhost:4010',
    '127.0.0.1',
    '127.0.0.1:4010',
    '127.0.0.2:4010',
    '127.1:4010',
    '[::1]:4010',
    '[::1]',
    '[::ffff:127.0.0.1]:4010',
  ];
  it.each(ownHosts)('serves Host %j (loopback)', async (host) => {
    expect(servedEverywhere((await attack(fresh(), { host })).outcomes)).toBe(true);
  });

  it('serves a request without Host (HTTP/1.0, a script): every browser sends one', async () => {
    expect(servedEverywhere((await attack(fresh(), {})).outcomes)).toBe(true);
  });

  it('serves the address the connection arrived on (a 0.0.0.0 bind reached on a LAN address), and only that one', async () => {
    const lan = { clientAddress: '127.0.0.1', serverAddress: '192.168.1.20' };
    expect(servedEverywhere((await attack(fresh(), { host: '192.168.1.20:4010' }, lan)).outcomes)).toBe(true);
    expect(
      servedEverywhere(
        (await attack(fresh(), { host: '192.168.1.20' }, { ...lan, serverAddress: '::ffff:192.168.1.20' })).outcomes,
      ),
    ).toBe(true);
    expect(
      servedEverywhere(
        (await attack(fresh(), { host: '[fd00::20]:4010' }, { ...lan, serverAddress: 'fd00::20' })).outcomes,
      ),
    ).toBe(true);
    expect(refusedEverywhere((await attack(fresh(), { host: '192.168.1.21:4010' }, lan)).outcomes)).toBe(true);
  });

  it('serves the names of allowedHosts (".name" allows its subdomains too), and "all" switches the check off', async () => {
    const app = () => fresh({ allowedHosts: ['mock.internal', '.corp.example'] });
    for (const host of [
      'mock.internal',
      'MOCK.INTERNAL:4010',
      'mock.internal.',
      'corp.example',
      'a.corp.example:80',
      'a.b.corp.example',
    ]) {
      expect(servedEverywhere((await attack(app(), { host })).outcomes), host).toBe(true);
    }
    for (const host of ['evilcorp.example', 'mock.internal.evil.example', 'internal', 'corp.example.evil.example']) {
      expect(refusedEverywhere((await attack(app(), { host })).outcomes), host).toBe(true);
    }
    expect(
      servedEverywhere((await attack(fresh({ allowedHosts: 'all' }), { host: 'anything.example' })).outcomes),
    ).toBe(true);
  });

  it('applies with allowRemoteControl too: a remote client is served under an allowed name only', async () => {
    const remote = { clientAddress: '10.1.2.3', serverAddress: '10.1.2.1' };
    expect(
      servedEverywhere((await attack(fresh({ allowRemoteControl: true }), { host: '10.1.2.1:4010' }, remote)).outcomes),
    ).toBe(true);
    expect(
      refusedEverywhere((await attack(fresh({ allowRemoteControl: true }), { host: 'evil.example' }, remote)).outcomes),
    ).toBe(true);
    expect(
      servedEverywhere(
        (await attack(fresh({ allowRemoteControl: true, allowedHosts: ['mock.ci'] }), { host: 'mock.ci' }, remote))
          .outcomes,
      ),
    ).toBe(true);
  });

  it('leaves the API itself open under any Host: only the controls are guarded', async () => {
    const response = await fresh().handle({
      method: 'GET',
      url: '/v1/categories',
      headers: { host: 'evil.example', authorization: 'Bearer demo-free' },
      body: null,
      clientAddress: '127.0.0.1',
    });
    expect(response.status).toBe(200);
  });

  it('refuses config allowedHosts that are not host names, by name', async () => {
    expect(() => fresh({ allowedHosts: ['http://x.example'] })).toThrow(/allowedHosts\.0: must be a host name/);
    expect(() => fresh({ allowedHosts: ['a b'] })).toThrow(/allowedHosts\.0/);
  });
});

describe('over node:http', () => {
  let mock: RunningMockServer;
  beforeAll(async () => {
    mock = await startMockServer({ port: 0 });
  });
  afterAll(() => mock.close(1_000));

  const get = (path: string, headers: Record<string, string>) =>
    new Promise<number>((resolve, reject) => {
      const request = httpRequest({ host: '127.0.0.1', port: mock.port, path, headers, setHost: false }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on('error', reject);
      request.end();
    });

  it("refuses /__mock/requests and /__mock/keys under a foreign Host, serves them under the mock's own", async () => {
    expect(await get('/__mock/requests', { host: 'evil.example' })).toBe(403);
    expect(await get('/__mock/keys', { host: `evil.example:${mock.port}` })).toBe(403);
    expect(await get('/__mock/keys', { host: `127.0.0.1.nip.io:${mock.port}` })).toBe(403);
    expect(await get('/__mock/requests', { host: `localhost:${mock.port}` })).toBe(200);
    expect(await get('/__mock/requests', { host: `127.0.0.1:${mock.port}` })).toBe(200);
    expect(
      await get('/__mock/requests', { host: `127.0.0.1:${mock.port}`, origin: 'http://127.attacker.example' }),
    ).toBe(403);
  });

  it('serves an HTTP/1.0 request without Host', async () => {
    const { bytes } = await rawExchange(mock.port, [Buffer.from('GET /__mock/health HTTP/1.0\r\n\r\n')]);
    expect(parseResponses(bytes, { connectionClosed: true }).map((response) => response.status)).toEqual([200]);
  });
});

describe('the --allowed-hosts flag', () => {
  it('adds names under which the controls answer', async () => {
    const cli = await startCli(['--allowed-hosts', 'mock.test', '--allowed-hosts', '.ci.test']);
    try {
      const statusUnder = async (host: string) => {
        const { bytes } = await rawExchange(cli.port, [
          Buffer.from(`GET /__mock/keys HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`),
        ]);
        return parseResponses(bytes, { connectionClosed: true })[0]?.status;
      };
      expect(await statusUnder('mock.test')).toBe(200);
      expect(await statusUnder('runner-1.ci.test:4010')).toBe(200);
      expect(await statusUnder('evil.example')).toBe(403);
    } finally {
      await cli.kill();
    }
  });
});

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningProxyServer, startProxyServer } from '../../src/server/proxy-server.js';

/**
 * Values from the upstream that no clock or number type can hold (issue 40, row 3): a Retry-After of
 * 10^17 seconds, a Date or a Retry-After date in the year 275760 (the last day ECMAScript dates reach). Each arrives on a 429 after a 200 that said Remaining 0, where the rules across a key's answers
 * do arithmetic on them. The proxy forwards each answer, stays up, and judges the value: a failed rule
 * with the answer as evidence, never a crash.
 */
let upstream: Server | undefined;
let proxy: RunningProxyServer | undefined;
afterEach(async () => {
  await proxy?.close(100);
  upstream?.closeAllConnections();
  await new Promise<void>((resolve) => (upstream ? upstream.close(() => resolve()) : resolve()));
  proxy = undefined;
  upstream = undefined;
});

/** An upstream that answers 200 with Remaining 0, then 429 with the headers given. */
async function startUpstream(limited: Record<string, string>): Promise<string> {
  let answered = 0;
  upstream = createServer((_request, response) => {
    answered += 1;
    const nowSeconds = Math.floor(Date.now() / 1000);
    const common = {
      'content-type': 'application/json',
      date: new Date().toUTCString(),
      'x-ratelimit-limit': '60',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(nowSeconds + 30),
    };
    if (answered === 1) {
      response.writeHead(200, common).end('[]');
      return;
    }
    response
      .writeHead(429, { ...common, 'retry-after': '30', ...limited })
      .end('{"code":"rate_limited","message":"slow down","status":429}');
  });
  await new Promise<void>((resolve) => upstream!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
}

const hostile: { name: string; headers: Record<string, string>; rule: string }[] = [
  {
    name: 'Retry-After 99999999999999999',
    headers: { 'retry-after': '99999999999999999' },
    rule: 'every.429-retry-after',
  },
  {
    name: 'a Date in the year 275760',
    headers: { date: 'Sat, 13 Sep 275760 00:00:00 GMT' },
    rule: 'every.date-header',
  },
  {
    name: 'a Retry-After date in the year 275760',
    headers: { 'retry-after': 'Sat, 13 Sep 275760 00:00:00 GMT' },
    rule: 'every.429-retry-after',
  },
];

describe('the proxy judges values no clock can hold, and stays up', () => {
  for (const { name, headers, rule } of hostile)
    it(`${name} on a 429 after a 200 with Remaining 0: forwarded, judged under ${rule}`, async () => {
      proxy = await startProxyServer({ upstream: await startUpstream(headers), port: 0 });
      const authorization = { authorization: 'Bearer hostile-key' };
      expect((await fetch(`${proxy.baseUrl}/categories`, { headers: authorization })).status).toBe(200);
      const limited = await fetch(`${proxy.baseUrl}/categories`, { headers: authorization });
      expect(limited.status).toBe(429);
      await limited.text();
      // Still up: another request is forwarded and answered.
      expect((await fetch(`${proxy.baseUrl}/categories`, { headers: authorization })).status).toBe(429);
      const report = proxy.report();
      expect(report.requests.answered).toBe(3);
      const result = report.server.rules.find((entry) => entry.id === rule)!;
      expect(result.outcome).toBe('fail');
      expect(result.evidence[0]).toMatchObject({ status: 429, request: expect.stringContaining('GET /v1/categories') });
      expect(JSON.stringify(report)).not.toContain('Invalid time value');
    });
});

import { bypass } from 'msw';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { setupPetstoreServer, unhandledRequests } from '../../mocks/node.js';
import { createFixedClock } from '../../src/core/clock.js';
import { type RunningMockServer, startMockServer } from '../../src/server/start-server.js';
import { requestInit, type Sent } from '../support/interface-client.js';

// The same request sequence to the node:http server and to the MSW handlers must get the same
// answers: status, the headers that matter, and the body, byte for byte.
//
// One process, two transports, the SAME URLs, both through the global fetch: MSW's setupServer
// answers a plain `fetch(url)`, and `fetch(bypass(url))` (MSW's own "perform this as-is" marker)
// reaches the real server. The marker, not the choice of HTTP client, says where a request goes:
// msw 3 intercepts at the socket level (net.Socket#connect) and attributes a request to a client by
// async context, so "undici.request is never intercepted" (true of msw 2, which patched fetch
// itself) no longer holds, and on a pooled keep-alive connection a fetch could even be taken for
// a pass-through request and reach the real server. The test does not take the split on trust:
// each app's request log must hold exactly the requests sent to it.

const seed = 7;
const startMs = Date.parse('2026-03-01T12:00:00Z');
// The IETF RateLimit fields are on, so both transports are compared on them too.
const config = {
  keys: [{ key: 'sk_parity', plan: 'free' }],
  rateLimitHeaders: ['x-ratelimit', 'ietf'] as ('x-ratelimit' | 'ietf')[],
};

let server: RunningMockServer;
const msw = setupPetstoreServer({ seed, config, clock: createFixedClock(startMs) });

beforeAll(async () => {
  server = await startMockServer({ port: 0, seed, config, clock: createFixedClock(startMs) });
  msw.server.listen(unhandledRequests('error'));
});

afterAll(async () => {
  msw.server.close();
  await server.close();
});

interface Step extends Sent {
  method: string;
  path: string;
}

const comparedHeaders = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'ratelimit',
  'ratelimit-policy',
  'retry-after',
  'location',
  'allow',
  'deprecation',
  'sunset',
  'content-type',
  'x-stability',
  'access-control-allow-origin',
  'access-control-expose-headers',
];

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function pick(get: (name: string) => string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of comparedHeaders) {
    const value = get(name);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

async function viaNodeServer(step: Step): Promise<Answer> {
  const response = await fetch(bypass(`${server.origin}${step.path}`, requestInit(step.method, step)));
  return {
    status: response.status,
    headers: pick((name) => response.headers.get(name) ?? undefined),
    body: await response.text(),
  };
}

async function viaMsw(step: Step): Promise<Answer> {
  const response = await fetch(`${server.origin}${step.path}`, requestInit(step.method, step));
  return {
    status: response.status,
    headers: pick((name) => response.headers.get(name) ?? undefined),
    body: await response.text(),
  };
}

/** The health answer's memory in use is the process's (each app here was sent other requests first): left out of the comparison. */
function withoutMemoryUse(answer: Answer): Answer {
  if (!answer.body.startsWith('{"status":"ok"')) return answer;
  const health = JSON.parse(answer.body) as { memory?: { usedBytes?: number } };
  if (health.memory?.usedBytes !== undefined) health.memory.usedBytes = -1;
  return { ...answer, body: JSON.stringify(health) };
}

const repeat = (count: number, step: Step): Step[] => Array.from({ length: count }, () => step);
const list: Step = { method: 'GET', path: '/v1/categories', key: 'demo-free' };

const sequence: Step[] = [
  // Success, state and ids.
  list,
  {
    method: 'POST',
    path: '/v1/categories',
    key: 'demo-free',
    json: { name: 'dog', description: 'Domestic dogs of every breed.' },
  },
  { method: 'POST', path: '/v1/categories', key: 'demo-free', json: { name: 'cat' } },
  list,
  { method: 'GET', path: '/v1/store/orders', key: 'demo-free' },
  { method: 'GET', path: '/v1/pets/42', key: 'demo-free' },
  // 401 in all its forms (the anonymous budget).
  { method: 'GET', path: '/v1/categories' },
  { method: 'GET', path: '/v1/categories', headers: { authorization: 'Basic ZGVtbzpmcmVl' } },
  { method: 'GET', path: '/v1/categories', headers: { authorization: 'Bearer' } },
  { method: 'POST', path: '/v1/categories', key: 'sk_unknown', json: { name: 'dog' } },
  // 400, 415.
  { method: 'POST', path: '/v1/categories', key: 'demo-free' },
  { method: 'POST', path: '/v1/categories', key: 'demo-free', json: {} },
  { method: 'POST', path: '/v1/categories', key: 'demo-free', json: { name: 5 } },
  { method: 'POST', path: '/v1/categories', key: 'demo-free', json: [] },
  {
    method: 'POST',
    path: '/v1/categories',
    key: 'demo-free',
    body: '{"name":',
    headers: { 'content-type': 'application/json' },
  },
  {
    method: 'POST',
    path: '/v1/categories',
    key: 'demo-free',
    body: 'name=dog',
    headers: { 'content-type': 'text/plain' },
  },
  // 404, 405.
  { method: 'GET', path: '/v1', key: 'demo-free' },
  { method: 'GET', path: '/v1/nope', key: 'demo-free' },
  { method: 'DELETE', path: '/v1/categories', key: 'demo-free' },
  { method: 'PUT', path: '/v1/pets/42', key: 'demo-free' },
  // Prefer.
  { ...list, headers: { prefer: 'code=429' } },
  { ...list, headers: { prefer: 'code=401' } },
  { ...list, headers: { prefer: 'example=empty' } },
  { ...list, headers: { prefer: 'code=418' } },
  {
    method: 'POST',
    path: '/v1/categories',
    key: 'demo-free',
    json: { name: 'x' },
    headers: { prefer: 'example=nameOnly, code=201' },
  },
  // Registered preferences that are not ours are ignored (RFC 7240); ours next to them still count.
  { ...list, headers: { prefer: 'return=minimal, respond-async, wait=5' } },
  {
    method: 'POST',
    path: '/v1/categories',
    key: 'demo-free',
    json: { name: 'y' },
    headers: { prefer: 'return=representation' },
  },
  { ...list, headers: { prefer: 'handling=lenient, code=429' } },
  // Controls.
  { method: 'GET', path: '/__mock/health' },
  { method: 'GET', path: '/__mock/clock' },
  { method: 'GET', path: '/__mock/keys' },
  { method: 'POST', path: '/__mock/keys', json: { key: 'sk_parity_tiny', limits: { perMinute: 2, perDay: 100 } } },
  { method: 'POST', path: '/__mock/keys', json: { key: 'sk_parity_tiny', plan: 'nope' } },
  { method: 'DELETE', path: '/__mock/reset' },
  // The Free plan's 60 per minute: the rest of the budget, then 429s, then the ban.
  ...repeat(40, list),
  ...repeat(11, list),
  { method: 'POST', path: '/v1/categories', key: 'demo-free', json: { name: 'late' } },
  // Another key of the same plan is not affected.
  { method: 'GET', path: '/v1/categories', key: 'sk_parity' },
  // A minute later the window is new but the ban (900 s) still holds; after it, all is well.
  { method: 'POST', path: '/__mock/clock', json: { advanceSeconds: 60 } },
  list,
  { method: 'POST', path: '/__mock/clock', json: { advanceSeconds: 840 } },
  list,
  // A custom limit of 2 per minute.
  ...repeat(3, { method: 'GET', path: '/v1/categories', key: 'sk_parity_tiny' }),
  // The request log, then a reset back to the seeded state.
  { method: 'GET', path: '/__mock/requests' },
  { method: 'POST', path: '/__mock/reset' },
  list,
];

it('reaches the node:http server with fetch(bypass(url)) and the MSW handlers with fetch(url), on the same URL', async () => {
  // The premise of this file, checked rather than assumed.
  const before = {
    server: (await server.app.controls.requests()).length,
    msw: (await msw.app.controls.requests()).length,
  };
  await viaNodeServer(list);
  await viaNodeServer(list);
  await viaMsw(list);
  expect((await server.app.controls.requests()).length - before.server).toBe(2);
  expect((await msw.app.controls.requests()).length - before.msw).toBe(1);
  // Back to the seeded state on both before the sequence.
  await viaNodeServer({ method: 'POST', path: '/__mock/reset' });
  await viaMsw({ method: 'POST', path: '/__mock/reset' });
});

it('answers the same sequence identically over node:http and MSW', async () => {
  expect(sequence.length).toBeGreaterThanOrEqual(25);
  const statuses = new Set<number>();
  const codes = new Set<string>();
  for (const [index, step] of sequence.entries()) {
    const [fromServer, fromMsw] = [withoutMemoryUse(await viaNodeServer(step)), withoutMemoryUse(await viaMsw(step))];
    // Bodies are compared whole: same seed, same clock, same core, so even the ids agree.
    expect(fromMsw, `step ${index}: ${step.method} ${step.path}`).toEqual(fromServer);
    statuses.add(fromServer.status);
    const code = /^\{"code":"([a-z_]+)"/.exec(fromServer.body)?.[1];
    if (code) codes.add(code);
  }
  // The sequence really covers what it claims.
  expect([...statuses].sort()).toEqual([200, 201, 400, 401, 404, 405, 415, 429]);
  expect([...codes].sort()).toEqual([
    'body_required',
    'invalid_control_request',
    'invalid_prefer',
    'key_banned',
    'malformed_json',
    'method_not_allowed',
    'not_found',
    'rate_limited',
    'unauthorized',
    'unsupported_media_type',
    'validation_failed',
  ]);
  // Both request logs, as the control API reports them, agree too.
  const logs = [
    await viaNodeServer({ method: 'GET', path: '/__mock/requests' }),
    await viaMsw({ method: 'GET', path: '/__mock/requests' }),
  ];
  expect(logs[1]).toEqual(logs[0]);
  expect(await msw.app.controls.requests()).toEqual(await server.app.controls.requests());
});

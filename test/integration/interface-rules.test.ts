import { getResponse } from 'msw';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createPetstoreHandlers } from '../../mocks/handlers.js';
import { readSpecFile } from '../../spec/load-spec.js';
import { createFixedClock } from '../../src/core/clock.js';
import { createMockApp, mockStoreOptions } from '../../src/core/mock-app.js';
import type { StateStore } from '../../src/core/state-store.js';
import { connectRedisStore } from '../../src/server/redis-store.js';
import { startMockServer } from '../../src/server/start-server.js';
import { redisTestGate, startRedisServer, type RedisServerHandle } from '../support/redis-server.js';
import { caseConfig, caseStartMs, ruleCases, type CaseContext, type Received, type Sent } from './interface-rules.case.js';

const spec = await readSpecFile();
const encoder = new TextEncoder();
const gate = redisTestGate();

/** A fresh mock behind one transport; `close` releases it. */
type Transport = (store: (() => Promise<StateStore>) | undefined) => Promise<{ send: CaseContext['send']; close(): Promise<void> }>;

function requestParts(sent: Sent = {}): { headers: Record<string, string>; body: string | undefined } {
  const headers: Record<string, string> = { ...sent.headers };
  if (sent.key !== undefined) headers.authorization = `Bearer ${sent.key}`;
  let body = sent.body;
  if (sent.json !== undefined) {
    body = JSON.stringify(sent.json);
    headers['content-type'] ??= 'application/json';
  }
  return { headers, body };
}

async function received(response: Response): Promise<Received> {
  const text = await response.text();
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  return { status: response.status, headers, json: text === '' ? null : JSON.parse(text) };
}

const transports: Record<string, Transport> = {
  async core(store) {
    const app = createMockApp({ spec, config: caseConfig, clock: createFixedClock(caseStartMs), seed: 3, store: store ? await store() : undefined });
    return {
      async send(method, path, sent) {
        const { headers, body } = requestParts(sent);
        const lower: Record<string, string> = {};
        for (const [name, value] of Object.entries(headers)) lower[name.toLowerCase()] = value;
        const response = await app.handle({ method, url: path.startsWith('/__mock') ? path : `/v1${path}`, headers: lower, body: body === undefined ? null : encoder.encode(body), clientAddress: '127.0.0.1' });
        const responseHeaders: Record<string, string> = {};
        for (const [name, value] of Object.entries(response.headers)) responseHeaders[name.toLowerCase()] = value;
        return { status: response.status, headers: responseHeaders, json: response.body === null ? null : JSON.parse(response.body) };
      },
      close: () => app.close(),
    };
  },
  async 'node:http'(store) {
    const given = store ? await store() : undefined;
    const mock = await startMockServer({ port: 0, config: caseConfig, clock: createFixedClock(caseStartMs), seed: 3, store: given });
    return {
      async send(method, path, sent) {
        const { headers, body } = requestParts(sent);
        return received(await fetch(path.startsWith('/__mock') ? `${mock.origin}${path}` : `${mock.baseUrl}${path}`, { method, headers, body }));
      },
      close: async () => {
        await mock.close(1_000);
        await given?.close();
      },
    };
  },
  async msw(store) {
    const origin = 'https://api.petstore.example';
    const { handlers, app } = createPetstoreHandlers({ spec, baseUrl: `${origin}/v1`, config: caseConfig, clock: createFixedClock(caseStartMs), seed: 3, store: store ? await store() : undefined });
    return {
      async send(method, path, sent) {
        const { headers, body } = requestParts(sent);
        const response = await getResponse(handlers, new Request(path.startsWith('/__mock') ? `${origin}${path}` : `${origin}/v1${path}`, { method, headers, body }));
        if (!response) throw new Error(`No MSW handler answered ${method} ${path}`);
        return received(response);
      },
      close: () => app.close(),
    };
  },
};

let redis: RedisServerHandle | undefined;
let prefixes = 0;
const stores: Record<string, { skip: string | false; open: (() => Promise<StateStore>) | undefined }> = {
  memory: { skip: false, open: undefined },
  redis: {
    skip: gate.skip ? gate.reason : false,
    open: async () => connectRedisStore({ url: redis!.url, prefix: `rules-${process.pid}-${(prefixes += 1)}:` }, mockStoreOptions({ spec, config: caseConfig, seed: 3 })),
  },
};

beforeAll(async () => {
  if (!gate.skip) redis = await startRedisServer();
}, 30_000);
afterAll(async () => {
  await redis?.stop();
});

for (const [storeName, store] of Object.entries(stores)) {
  for (const [transportName, transport] of Object.entries(transports)) {
    // MSW runs in the page or the test process, with the memory store: a browser has no Redis client.
    if (transportName === 'msw' && storeName === 'redis') continue;
    describe.skipIf(store.skip !== false)(`interface rules: ${transportName}, ${storeName} store${store.skip ? ` (skipped: ${store.skip})` : ''}`, () => {
      for (const ruleCase of ruleCases) {
        it(ruleCase.name, async () => {
          const mock = await transport(store.open);
          try {
            await ruleCase.run({ send: mock.send, startMs: caseStartMs });
          } finally {
            await mock.close();
          }
        });
      }
    });
  }
}

import { getResponse } from 'msw';
import { Agent, fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPetstoreHandlers } from '../../mocks/handlers.js';
import { readSpecFile } from '../../spec/load-spec.js';
import { createFixedClock } from '../../src/core/clock.js';
import type { MockConfigInput } from '../../src/core/config/mock-config.js';
import { createMockApp, mockStoreOptions } from '../../src/core/mock-app.js';
import type { StateStore } from '../../src/core/state/state-store.js';
import { connectRedisStore } from '../../src/server/redis-store.js';
import { startMockServer } from '../../src/server/start-server.js';
import {
  fromFetchResponse,
  fromMockResponse,
  mockRequest,
  requestInit,
  requestParts,
} from '../support/interface-client.js';
import { type RedisServerHandle, redisTestGate, startRedisServer } from '../support/redis-server.js';
import {
  type CaseContext,
  type CaseSent,
  caseConfig,
  caseStartMs,
  type RuleCase,
  ruleCases,
  type TransportName,
} from './interface-rules.case.js';

const spec = await readSpecFile();
const gate = redisTestGate();
const seed = 3;

/** Opens the store a mock is given (undefined: the mock's own memory store). */
type OpenStore = ((config: MockConfigInput) => Promise<StateStore>) | undefined;
/**
 * A fresh mock behind one transport; `close` releases it and its store. With `session`, the case
 * runs inside that named session, the way a CI job sharing the mock would: by the header on every
 * request, or for MSW by the setups' `session` option.
 */
type Transport = (
  config: MockConfigInput,
  openStore: OpenStore,
  session?: string,
) => Promise<{ send: CaseContext['send']; close(): Promise<void> }>;

/** `sent` with `X-Mock-Session: <session>` unless it names a session itself. */
function inSession(sent: CaseSent, session: string | undefined): CaseSent {
  if (session === undefined || Object.keys(sent.headers ?? {}).some((name) => name.toLowerCase() === 'x-mock-session'))
    return sent;
  return { ...sent, headers: { ...sent.headers, 'x-mock-session': session } };
}

const transports: Record<TransportName, Transport> = {
  async core(config, openStore, session) {
    const app = createMockApp({
      spec,
      config,
      clock: createFixedClock(caseStartMs),
      seed,
      store: await openStore?.(config),
    });
    return {
      async send(method, path, given = {}) {
        const sent = inSession(given, session);
        const url = path.startsWith('/__mock') || sent.fromOrigin ? path : `${app.basePath}${path}`;
        // A loopback client, as node:http would report a local one.
        return fromMockResponse(await app.handle(mockRequest(method, url, sent, '127.0.0.1')));
      },
      close: () => app.close(),
    };
  },
  async 'node:http'(config, openStore, session) {
    const store = await openStore?.(config);
    const mock = await startMockServer({ port: 0, config, clock: createFixedClock(caseStartMs), seed, store });
    // Without keep-alive every connection ends with its answer, so the graceful close finds none
    // left to sweep and each case's server stops at once.
    const dispatcher = new Agent({ pipelining: 0 });
    return {
      async send(method, path, given = {}) {
        const sent = inSession(given, session);
        const url = path.startsWith('/__mock') || sent.fromOrigin ? `${mock.origin}${path}` : `${mock.baseUrl}${path}`;
        const { headers, body } = requestParts(sent);
        return fromFetchResponse(await fetch(url, { method, headers, body, dispatcher }));
      },
      close: async () => {
        await dispatcher.close();
        await mock.close(1_000);
        await store?.close();
      },
    };
  },
  async msw(config, openStore, session) {
    const origin = 'https://api.petstore.example';
    const { handlers, app } = createPetstoreHandlers({
      spec,
      baseUrl: `${origin}/v1`,
      config,
      clock: createFixedClock(caseStartMs),
      seed,
      store: await openStore?.(config),
      session,
    });
    return {
      async send(method, path, sent = {}) {
        const url = path.startsWith('/__mock') || sent.fromOrigin ? `${origin}${path}` : `${origin}/v1${path}`;
        const response = await getResponse(handlers, new Request(url, requestInit(method, sent)));
        if (!response) throw new Error(`No MSW handler answered ${method} ${url}`);
        return fromFetchResponse(response);
      },
      close: () => app.close(),
    };
  },
};

let redis: RedisServerHandle | undefined;
let prefixes = 0;
const stores: Record<string, { skip: string | false; open: OpenStore }> = {
  memory: { skip: false, open: undefined },
  redis: {
    skip: gate.skip ? gate.reason : false,
    open: async (config) => {
      prefixes += 1;
      return connectRedisStore(
        { url: redis!.url, prefix: `rules-${process.pid}-${prefixes}:` },
        mockStoreOptions({ spec, config, seed }),
      );
    },
  },
};

beforeAll(async () => {
  if (!gate.skip) redis = await startRedisServer();
}, 30_000);
afterAll(async () => {
  await redis?.stop();
});

function defineCase(
  ruleCase: RuleCase,
  transportName: TransportName,
  transport: Transport,
  openStore: OpenStore,
  session?: string,
): void {
  // A case that does not apply here (its reason is in the table) is not defined, so the suite's
  // skip count stays the count of what could not run on this machine.
  if (
    ruleCase.notFor?.[transportName] !== undefined ||
    (session !== undefined && ruleCase.defaultSessionOnly !== undefined)
  )
    return;
  const title =
    ruleCase.knownGap !== undefined
      ? `${ruleCase.name} (known gap, expected to fail: ${ruleCase.knownGap})`
      : ruleCase.name;
  const test = ruleCase.knownGap !== undefined ? it.fails : it;
  test(title, async () => {
    const config = ruleCase.config ?? caseConfig;
    const mock = await transport(config, openStore, session);
    try {
      await ruleCase.run({ send: mock.send, startMs: caseStartMs });
      if (session !== undefined) {
        // The case really ran in the named session: the default one saw none of it.
        const token: Record<string, string> =
          config.controlToken === undefined ? {} : { 'x-mock-control-token': config.controlToken };
        const defaultLog = await mock.send('GET', '/__mock/requests', {
          headers: { 'x-mock-session': 'default', ...token },
        });
        expect(defaultLog.json, 'the default session was untouched').toEqual([]);
      }
    } finally {
      await mock.close();
    }
  });
}

for (const [storeName, store] of Object.entries(stores)) {
  for (const [transportName, transport] of Object.entries(transports) as [TransportName, Transport][]) {
    // MSW in a page has no Redis client (the browser bundle must not contain one); MSW in Node
    // (setupServer in a test process) takes any StateStore, so it is run on Redis too.
    describe.skipIf(store.skip !== false)(
      `interface rules: ${transportName}, ${storeName} store${store.skip ? ` (skipped: ${store.skip})` : ''}`,
      () => {
        for (const ruleCase of ruleCases) defineCase(ruleCase, transportName, transport, store.open);
      },
    );
  }
}

// A named session is a whole world of its own: every rule holds inside one as in the default
// session (on Redis too: test/store/sessions.test.ts drives sessions there under load).
for (const [transportName, transport] of Object.entries(transports) as [TransportName, Transport][]) {
  describe(`interface rules: ${transportName}, memory store, inside session ci-job-7`, () => {
    for (const ruleCase of ruleCases) defineCase(ruleCase, transportName, transport, stores.memory!.open, 'ci-job-7');
  });
}

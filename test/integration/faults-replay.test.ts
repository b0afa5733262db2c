/**
 * Faults in the log, the export and the replay (decision 042), on the memory store and on Redis: a run
 * with seeded fault rules records each request's fault and latency; its export carries them; the replay
 * asks for each again (Prefer) and meets exactly the recorded faults and statuses, whatever its own config draws.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MockConfigInput, parseMockConfig } from '../../src/core/config/mock-config.js';
import { createMockApp, type MockApp, mockStoreOptions } from '../../src/core/mock-app.js';
import type { RequestLogEntry } from '../../src/core/state/request-log.js';
import { replay } from '../../src/lab/replay.js';
import { parseRecording } from '../../src/lab/replay-input.js';
import { connectRedisStore } from '../../src/server/redis-store.js';
import { specDocument, testEpochMs } from '../support/core-test-app.js';
import { type RedisServerHandle, redisTestGate, startRedisServer } from '../support/redis-server.js';

const gate = redisTestGate();
let redis: RedisServerHandle | undefined;
beforeAll(async () => {
  if (!gate.skip) redis = await startRedisServer();
}, 30_000);
afterAll(async () => {
  await redis?.stop();
});

const config: MockConfigInput = {
  faults: {
    latency: '10-90ms',
    rules: [
      { fault: 'status', rate: 0.2, status: 503 },
      { fault: 'reset', rate: 0.2, operations: ['listCategories'] },
      { fault: 'empty', rate: 0.2, keys: ['demo-pro'] },
      { fault: 'malformed', rate: 0.2 },
    ],
  },
};
const parsedConfig = parseMockConfig(config);

const stores = [
  { name: 'memory', skip: false as const, open: async () => undefined },
  {
    name: 'Redis',
    skip: gate.skip ? gate.reason : (false as const),
    open: async () =>
      connectRedisStore(
        { url: redis!.url, prefix: `faults-${process.pid}:` },
        mockStoreOptions({ spec: specDocument, config, seed: 3 }),
      ),
  },
];

const faultsOf = (log: RequestLogEntry[]) =>
  log.map((entry) => `${entry.status} ${entry.fault ?? '-'} ${entry.delayMs ?? 0}`);

async function exportOf(app: MockApp): Promise<string> {
  const answer = await app.handle({ method: 'GET', url: '/__mock/requests?format=jsonl', headers: {}, body: null });
  return answer.body as string;
}

for (const target of stores) {
  describe.skipIf(target.skip)(
    `faults on the ${target.name} store${target.skip ? ` (skipped: ${target.skip})` : ''}`,
    () => {
      it('records fault and delayMs in the log and the export, and the replay meets the same ones', async () => {
        let nowMs = testEpochMs;
        const store = await target.open();
        const app = createMockApp({
          spec: specDocument,
          config,
          seed: 3,
          clock: { now: () => nowMs },
          ...(store ? { store } : {}),
        });
        try {
          for (let step = 0; step < 40; step += 1) {
            const key = step % 2 === 0 ? 'demo-pro' : 'demo-business';
            const path = step % 3 === 0 ? '/v1/store/orders' : '/v1/categories';
            await app.handle({ method: 'GET', url: path, headers: { authorization: `Bearer ${key}` }, body: null });
            nowMs += 500;
          }
          const recorded = await app.controls.requests();
          const kinds = new Set(recorded.map((entry) => entry.fault));
          for (const kind of ['status', 'reset', 'empty', 'malformed', undefined]) expect(kinds).toContain(kind);
          expect(recorded.every((entry) => entry.delayMs! >= 10 && entry.delayMs! <= 90)).toBe(true);
          expect(recorded.filter((entry) => entry.fault === 'status').every((entry) => entry.status === 503)).toBe(
            true,
          );
          expect(
            recorded
              .filter((entry) => entry.fault === 'reset')
              .every((entry) => entry.operationId === 'listCategories'),
          ).toBe(true);

          const text = await exportOf(app);
          const lines = text
            .trim()
            .split('\n')
            .slice(1)
            .map((line) => JSON.parse(line) as { fault?: string; delayMs?: number });
          expect(lines.map((line) => line.fault)).toEqual(recorded.map((entry) => entry.fault));
          expect(lines.map((line) => line.delayMs)).toEqual(recorded.map((entry) => entry.delayMs));

          // The replay's mock draws with another seed and its own rules: only the recorded faults may show.
          let replayed: MockApp | undefined;
          const recording = parseRecording(text, { plans: parsedConfig.plans });
          const result = await replay(recording.requests, {
            recording,
            banPolicy: { enabled: true, threshold: 10, durationMs: 900_000 },
            createApp(clock) {
              replayed = createMockApp({ spec: specDocument, clock, seed: 99 });
              return {
                handle: (request) => replayed!.respond(request),
                addKey: (input) => replayed!.controls.addKey(input),
                applyScenario: (scenario) => replayed!.controls.applyScenario(scenario),
              };
            },
          });
          expect(result.recorded.differences).toEqual([]);
          const drawn = result.timeline.clients.flatMap((lane) => lane.requests.map((request) => request.fault));
          expect(drawn.filter((fault) => fault !== undefined).length).toBe(
            recorded.filter((entry) => entry.fault !== undefined).length,
          );
          expect(faultsOf(await replayed!.controls.requests())).toEqual(faultsOf(recorded));
        } finally {
          await app.close();
        }
      });
    },
  );
}

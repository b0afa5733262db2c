/**
 * An export that replays faithfully (docs/decisions/026-faithful-export.md): an incident that began from a
 * scenario (a spent budget, a ban) and an incident longer than the request log, each exported and replayed,
 * reproduce every recorded status, on the memory store and on Redis. An export without its state line (an
 * older mock's) still replays, with a one-line warning and the cause of each difference.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatReplaySummary, replayAgainstMockApp } from '../../src/cli/replay-command.js';
import { parseMockConfig } from '../../src/core/config/mock-config.js';
import { createMockApp, type MockAppOptions, mockStoreOptions } from '../../src/core/mock-app.js';
import type { StateStore } from '../../src/core/state/state-store.js';
import type { MockRequest } from '../../src/core/types.js';
import { parseRecording, type StateLine } from '../../src/lab/replay-input.js';
import { connectRedisStore } from '../../src/server/redis-store.js';
import { specDocument, testEpochMs } from '../support/core-test-app.js';
import { type RedisServerHandle, redisTestGate, startRedisServer } from '../support/redis-server.js';

const gate = redisTestGate();
let redis: RedisServerHandle | undefined;
let prefixes = 0;

beforeAll(async () => {
  if (!gate.skip) redis = await startRedisServer();
}, 30_000);
afterAll(async () => {
  await redis?.stop();
});

const config = {
  keys: [{ key: 'sk_live_incident_secret_42', limits: { perMinute: 20, perDay: 300 } }],
  ban: { threshold: 3, durationSeconds: 30 },
};
const parsedConfig = parseMockConfig(config);

type OpenStore = ((options: NonNullable<MockAppOptions['config']>) => Promise<StateStore>) | undefined;
const stores: { name: string; skip: string | false; open: OpenStore }[] = [
  { name: 'memory', skip: false, open: undefined },
  {
    name: 'Redis',
    skip: gate.skip ? gate.reason : false,
    open: async () => {
      prefixes += 1;
      return connectRedisStore(
        { url: redis!.url, prefix: `faithful-${process.pid}-${prefixes}:` },
        mockStoreOptions({ spec: specDocument, config, seed: 1 }),
      );
    },
  },
];

/** A mock on a clock the test moves: no control moves it, so the export alone must say where things stood. */
async function openMock(open: OpenStore) {
  let nowMs = testEpochMs;
  const store = await open?.(config);
  const app = createMockApp({
    spec: specDocument,
    config,
    seed: 1,
    clock: { now: () => nowMs },
    ...(store ? { store } : {}),
  });
  const send = async (path: string, init: { key?: string; method?: string; body?: string; address?: string } = {}) => {
    const headers: Record<string, string> = {};
    if (init.key !== undefined) headers.authorization = `Bearer ${init.key}`;
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    const request: MockRequest = {
      method: init.method ?? 'GET',
      url: path,
      headers,
      body: init.body === undefined ? null : new TextEncoder().encode(init.body),
      clientAddress: init.address ?? '10.0.0.7',
    };
    return (await app.handle(request)).status;
  };
  const exported = async () => {
    const response = await app.handle({
      method: 'GET',
      url: '/__mock/requests?format=jsonl',
      headers: {},
      body: null,
      clientAddress: '127.0.0.1',
    });
    return response.body as string;
  };
  return {
    app,
    send,
    exported,
    advance: (ms: number) => {
      nowMs += ms;
    },
    close: () => app.close(),
  };
}

async function replayText(text: string) {
  const recording = parseRecording(text, { plans: parsedConfig.plans });
  return replayAgainstMockApp(recording.requests, parsedConfig, specDocument, { title: 'incident.jsonl', recording });
}

for (const target of stores) {
  describe.skipIf(target.skip)(
    `a faithful export on the ${target.name} store${target.skip ? ` (skipped: ${target.skip})` : ''}`,
    () => {
      it('replays an incident that began from a scenario (a spent minute, a ban) status for status', async () => {
        const mock = await openMock(target.open);
        try {
          await mock.app.controls.applyScenario({
            keys: [
              { key: 'sk_live_incident_secret_42', spent: { minute: 'full', day: 250 } },
              { key: 'demo-free', bannedSeconds: 45 },
            ],
            anonymous: [{ address: '10.0.0.7', spent: { minute: 'one-left' } }],
            categories: [{ name: 'ferrets' }],
          });
          const statuses: number[] = [];
          for (let step = 0; step < 90; step += 1) {
            statuses.push(await mock.send('/v1/categories', { key: 'sk_live_incident_secret_42' }));
            if (step % 3 === 0) statuses.push(await mock.send('/v1/categories', { key: 'demo-free' }));
            if (step % 5 === 0) statuses.push(await mock.send('/v1/store/orders'));
            mock.advance(1_000);
          }
          // What happened: the key refused and banned from its first request, demo-free banned, then served.
          expect(statuses[0]).toBe(429);
          expect(statuses).toContain(200);
          const text = await mock.exported();
          const state = JSON.parse(text.slice(0, text.indexOf('\n'))) as StateLine;
          expect(state).toMatchObject({ v: 1, type: 'state', logSize: 500, dropped: null });
          expect(text).not.toContain('sk_live_incident_secret_42');
          expect(state.scenario.keys?.some((key) => key.windows?.bannedUntil !== null)).toBe(true);
          expect(state.scenario.categories?.at(-1)?.name).toBe('ferrets');

          const result = await replayText(text);
          expect(result.recorded.differences).toEqual([]);
          expect(result.recorded.same).toBe(statuses.length);
          expect(result.warning).toBeNull();

          // The same export without its state line (an older mock's) replays, and says why it differs.
          const old = await replayText(text.slice(text.indexOf('\n') + 1));
          expect(old.warning).toMatch(/^This export has no starting state .*the recording starts mid-window/);
          expect(old.recorded.same).toBeLessThan(statuses.length);
          expect(Object.keys(old.recorded.causes)[0]).toMatch(/^recording starts mid-window/);
          const summary = formatReplaySummary(old);
          expect(summary.split('\n').filter((line) => line.startsWith('Warning: '))).toHaveLength(1);
          expect(summary).toContain('Differences by cause:');
        } finally {
          await mock.close();
        }
      });

      it('replays 600 requests over a 500-entry log status for status, and says what the log dropped', async () => {
        const mock = await openMock(target.open);
        try {
          const statuses: number[] = [];
          for (let step = 0; statuses.length < 600; step += 1) {
            statuses.push(await mock.send('/v1/categories', { key: 'sk_live_incident_secret_42' }));
            if (step % 3 === 0 && statuses.length < 600) statuses.push(await mock.send('/v1/store/orders'));
            mock.advance(700);
          }
          expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(50);
          const text = await mock.exported();
          const lines = text.trimEnd().split('\n');
          expect(lines).toHaveLength(501);
          const state = JSON.parse(lines[0]!) as StateLine;
          expect(state.dropped?.count).toBe(100);
          expect(state.time).toBe(state.dropped?.to);

          const health = await mock.app.controls.health();
          // The export's own request (a control) took a place in the log since: one more API request dropped.
          expect(health.requestLog).toEqual({ size: 500, dropped: 101 });

          const result = await replayText(text);
          expect(result.recorded.differences).toEqual([]);
          expect(result.recorded.same).toBe(500);
          expect(result.warning).toMatch(/^The log was truncated: 100 earlier requests/);
          expect(formatReplaySummary(result)).toContain('Recorded statuses: 500 of 500 the same');

          // Without the state line, the tail alone replays from fresh windows: the difference is put down to it.
          const old = await replayText(lines.slice(1).join('\n'));
          expect(old.warning).toContain('it holds exactly 500 requests, the default log size');
          expect(old.recorded.same).toBeLessThan(500);
        } finally {
          await mock.close();
        }
      });
    },
  );
}

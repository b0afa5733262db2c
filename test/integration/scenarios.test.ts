/**
 * Scenario files (issue 12 section 3), proven by real requests: every preset, applied over HTTP to
 * the node:http server (`POST /__mock/scenario`) and through the MSW handlers (the `scenario` option,
 * and the same control route), sets up exactly the situation its description promises.
 */
import { getResponse } from 'msw';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPetstoreHandlers } from '../../mocks/handlers.js';
import { createFixedClock } from '../../src/core/clock.js';
import { type ScenarioPresetName, scenarioPresetNames } from '../../src/core/config/scenario-file.js';
import { type RunningMockServer, startMockServer } from '../../src/server/start-server.js';
import { specDocument, testEpochMs } from '../support/core-test-app.js';
import { fromFetchResponse, type Received } from '../support/interface-client.js';

const sunsetMs = Date.parse('2027-12-31T23:59:59Z');

/** One way to reach a mock: send a request to a session, and set a preset up in a new session. */
interface Transport {
  name: string;
  /** The anonymous client address the transport's requests carry. */
  address: string;
  send(
    session: string,
    method: string,
    path: string,
    init?: { key?: string; body?: string; contentType?: string },
  ): Promise<Received>;
  /** A new session with the preset applied, and how to send to it. */
  withPreset(preset: ScenarioPresetName): Promise<(path: string, key?: string) => Promise<Received>>;
}

function headersOf(session: string, init: { key?: string; contentType?: string } = {}): Record<string, string> {
  const headers: Record<string, string> = { 'x-mock-session': session };
  if (init.key !== undefined) headers.authorization = `Bearer ${init.key}`;
  if (init.contentType !== undefined) headers['content-type'] = init.contentType;
  return headers;
}

let server: RunningMockServer;
let sessionCounter = 0;
const newSession = (prefix: string) => {
  sessionCounter += 1;
  return `${prefix}-${sessionCounter}`;
};

const nodeTransport: Transport = {
  name: 'node:http server, POST /__mock/scenario',
  address: '127.0.0.1',
  async send(session, method, path, init = {}) {
    return fromFetchResponse(
      await fetch(`${server.origin}${path}`, { method, headers: headersOf(session, init), body: init.body }),
    );
  },
  async withPreset(preset) {
    const session = newSession(preset);
    const applied = await this.send(session, 'POST', '/__mock/scenario', {
      body: `presets: [${preset}]\n`,
      contentType: 'application/yaml',
    });
    expect(applied.status, JSON.stringify(applied.json)).toBe(200);
    return (path, key = 'demo-free') => this.send(session, 'GET', path, { key });
  },
};

const mswOrigin = 'https://api.scenario.example';
const mswTransport: Transport = {
  name: 'MSW handlers, the scenario option',
  // A page or a test process is one local client.
  address: 'local',
  async send(session, method, path, init = {}) {
    const { handlers } = mswShared;
    const response = await getResponse(
      handlers,
      new Request(`${mswOrigin}${path}`, { method, headers: headersOf(session, init), body: init.body }),
    );
    return fromFetchResponse(response!);
  },
  async withPreset(preset) {
    const session = newSession(preset);
    // Not awaited on purpose: the first request itself must wait for the scenario.
    const { handlers } = createPetstoreHandlers({
      spec: specDocument,
      clock: createFixedClock(testEpochMs),
      seed: 1,
      baseUrl: `${mswOrigin}/v1`,
      session,
      scenario: `presets: [${preset}]`,
    });
    return async (path, key = 'demo-free') =>
      fromFetchResponse(
        (await getResponse(
          handlers,
          new Request(`${mswOrigin}${path}`, { headers: { authorization: `Bearer ${key}` } }),
        ))!,
      );
  },
};
const mswShared = createPetstoreHandlers({
  spec: specDocument,
  clock: createFixedClock(testEpochMs),
  seed: 1,
  baseUrl: `${mswOrigin}/v1`,
});

beforeAll(async () => {
  server = await startMockServer({ port: 0, seed: 1, clock: createFixedClock(testEpochMs) });
});
afterAll(async () => {
  await server.close();
});

/** An almost-spent window: one more request is allowed with nothing left, the next is refused. */
async function expectLastThenRefused(
  get: (path: string) => Promise<Received>,
  window: { limit: string; retryAfterSeconds: number },
): Promise<Received> {
  const last = await get('/v1/categories');
  expect(last.status).toBe(200);
  expect(last.headers['x-ratelimit-limit']).toBe(window.limit);
  expect(last.headers['x-ratelimit-remaining']).toBe('0');
  const refused = await get('/v1/categories');
  expect(refused.status).toBe(429);
  expect(Number(refused.headers['retry-after'])).toBe(window.retryAfterSeconds);
  return refused;
}

/** What each preset promises, shown by requests. */
const presetChecks: Record<
  ScenarioPresetName,
  (get: (path: string, key?: string) => Promise<Received>) => Promise<void>
> = {
  async 'minute-almost-spent'(get) {
    const refused = await expectLastThenRefused(get, { limit: '60', retryAfterSeconds: 60 });
    expect(refused.json).toMatchObject({ code: 'rate_limited', status: 429 });
    // Another key is untouched.
    expect((await get('/v1/categories', 'demo-pro')).status).toBe(200);
  },
  async 'minute-spent'(get) {
    const refused = await get('/v1/categories');
    expect(refused.status).toBe(429);
    expect(refused.json.code).toBe('rate_limited');
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
  },
  async 'day-almost-spent'(get) {
    const refused = await expectLastThenRefused(get, { limit: '1000', retryAfterSeconds: 86_400 });
    expect(Number(refused.headers['x-ratelimit-reset'])).toBe(Math.ceil((testEpochMs + 86_400_000) / 1000));
  },
  async 'day-spent'(get) {
    const refused = await get('/v1/categories');
    expect(refused.status).toBe(429);
    expect(refused.json.code).toBe('rate_limited');
    expect(refused.headers['x-ratelimit-limit']).toBe('1000');
    // To the end of the day window, not the minute's 60 s.
    expect(Number(refused.headers['retry-after'])).toBe(86_400);
  },
  async 'banned-key'(get) {
    const refused = await get('/v1/categories');
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({ code: 'key_banned', status: 429 });
    expect(refused.json.message).toContain('banned for 900 seconds');
    expect(refused.headers['retry-after']).toBe('900');
    expect((await get('/v1/categories', 'demo-pro')).status).toBe(200);
  },
  async 'after-sunset'(get) {
    const served = await get('/v1/pets/1', 'demo-pro');
    expect(served.status).toBe(200);
    expect(served.headers.sunset).toBe(new Date(sunsetMs).toUTCString());
    expect(served.headers.deprecation).toMatch(/^@\d+$/);
    expect(Date.parse(served.headers.date!)).toBeGreaterThan(sunsetMs);
    expect(served.headers['x-ratelimit-remaining']).toBe('299');
  },
  async 'after-sunset-gone'(get) {
    const gone = await get('/v1/pets/1', 'demo-pro');
    expect(gone.status).toBe(410);
    expect(gone.json).toEqual({
      code: 'operation_sunset',
      status: 410,
      message: expect.stringContaining('2027-12-31T23:59:59.000Z'),
    });
    expect(gone.headers.sunset).toBe(new Date(sunsetMs).toUTCString());
    expect(gone.headers.deprecation).toMatch(/^@\d+$/);
    expect(gone.headers['x-ratelimit-limit']).toBe('300');
    expect(gone.headers['x-ratelimit-remaining']).toBe('299');
    expect(gone.headers['content-type']).toBe('application/json');
    // Only the deprecated operation is gone; a missing key is still a 401 first.
    expect((await get('/v1/categories', 'demo-pro')).status).toBe(200);
    expect((await get('/v1/pets/1', 'not-a-key')).status).toBe(401);
  },
  async 'flaky-network'(get) {
    // What the faults do is tested per transport (test/integration/faults-*.test.ts); here, that the preset sets them.
    const faults = await get('/__mock/faults');
    expect(faults.json.faults).toMatchObject({ latency: { minMs: 50, maxMs: 300 }, timeoutMs: 10_000 });
    expect(faults.json.faults.rules.map((rule: { fault: string }) => rule.fault)).toEqual([
      'reset',
      'status',
      'slow-body',
      'timeout',
    ]);
  },
};

for (const transport of [nodeTransport, mswTransport]) {
  describe(`scenario presets over ${transport.name}`, () => {
    it.each(scenarioPresetNames.map((name) => [name]))('%s', async (preset) => {
      await presetChecks[preset](await transport.withPreset(preset));
    });
  });

  describe(`POST /__mock/scenario over ${transport.name}`, () => {
    it("applies a file of keys, budgets, bans, anonymous clients, categories and the clock to the caller's session only", async () => {
      const session = newSession('file');
      const yaml = `
description: a team key near its limits
clock: { offsetSeconds: 3600 }
keys:
  - key: team-key-1
    plan: pro
    spent: { minute: 299 }
  - key: demo-business
    bannedSeconds: 120
anonymous:
  - address: ${transport.address}
    spent: { minute: full }
categories:
  - { name: ferrets, description: curious }
`;
      const applied = await transport.send(session, 'POST', '/__mock/scenario', {
        body: yaml,
        contentType: 'text/yaml; charset=utf-8',
      });
      expect(applied.status).toBe(200);
      expect(applied.json).toMatchObject({
        session,
        description: 'a team key near its limits',
        keysAdded: 1,
        budgetsSet: 2,
        bans: 1,
        categoriesCreated: 1,
        clock: new Date(testEpochMs + 3_600_000).toISOString(),
      });
      const last = await transport.send(session, 'GET', '/v1/categories', { key: 'team-key-1' });
      expect([last.status, last.headers['x-ratelimit-remaining']]).toEqual([200, '0']);
      expect(last.json.map((category: { name: string }) => category.name)).toContain('ferrets');
      expect((await transport.send(session, 'GET', '/v1/categories', { key: 'team-key-1' })).status).toBe(429);
      const banned = await transport.send(session, 'GET', '/v1/categories', { key: 'demo-business' });
      expect([banned.status, banned.json.code, banned.headers['retry-after']]).toEqual([429, 'key_banned', '120']);
      // The anonymous budget of this client is spent: 429 comes before the 401.
      const anonymous = await transport.send(session, 'GET', '/v1/pets/1');
      expect([anonymous.status, anonymous.json.code, anonymous.headers['x-ratelimit-limit']]).toEqual([
        429,
        'rate_limited',
        '60',
      ]);
      // Another session sees none of it.
      const other = newSession('other');
      expect((await transport.send(other, 'GET', '/v1/categories', { key: 'demo-business' })).status).toBe(200);
      expect((await transport.send(other, 'GET', '/v1/categories', { key: 'team-key-1' })).status).toBe(401);
    });

    it('takes the same scenario as JSON, and lists the presets', async () => {
      const session = newSession('json');
      const applied = await transport.send(session, 'POST', '/__mock/scenario', {
        body: JSON.stringify({ keys: [{ key: 'demo-pro', spent: { minute: 'one-left' } }] }),
        contentType: 'application/json',
      });
      expect(applied.status).toBe(200);
      expect(
        (await transport.send(session, 'GET', '/v1/categories', { key: 'demo-pro' })).headers['x-ratelimit-remaining'],
      ).toBe('0');
      const presets = await transport.send(session, 'GET', '/__mock/scenario/presets');
      expect(presets.status).toBe(200);
      expect(presets.json.presets.map((preset: { name: string }) => preset.name)).toEqual([...scenarioPresetNames]);
      for (const preset of presets.json.presets) expect(preset.description.length).toBeGreaterThan(20);
    });

    it.each([
      [
        'an unknown field, by name',
        'keys:\n  - key: demo-free\n    spentt: { minute: 3 }\n',
        'keys.0.spentt: unknown field',
      ],
      [
        'a wrong type',
        'keys:\n  - key: demo-free\n    spent: { minute: lots }\n',
        'keys.0.spent.minute: must be a whole number >= 0, "full" or "one-left"',
      ],
      ['a key with an unknown plan', 'keys:\n  - key: new-key\n    plan: gold\n', 'keys.0.plan: unknown plan "gold"'],
      ['a misspelt preset', 'presets: [minute-almost-spnet]\n', 'presets.0: must be a preset: minute-almost-spent'],
      [
        'a key the mock does not know',
        'keys:\n  - key: stranger\n    bannedSeconds: 5\n',
        'keys.0.key: not a key the mock knows',
      ],
      [
        'more spent than the window holds',
        'keys:\n  - key: demo-free\n    spent: { minute: 61 }\n',
        'keys.0.spent.minute: 61 is more than the minute limit of 60',
      ],
      [
        'a clock that would go back',
        'clock: { at: 2025-06-01T00:00:00Z }\n',
        "clock.at: 2025-06-01T00:00:00.000Z is before the session's clock",
      ],
      ['not YAML', 'keys: [\n', 'not valid YAML'],
      ['a list', '- presets\n', '(root)'],
    ])('refuses %s with a 400 Error naming it, and applies nothing', async (_label, yaml, expected) => {
      const session = newSession('bad');
      // A valid part first: it must not be applied either.
      const body = yaml.startsWith('keys:') ? `categories: [ { name: must-not-exist } ]\n${yaml}` : yaml;
      const refused = await transport.send(session, 'POST', '/__mock/scenario', {
        body,
        contentType: 'application/yaml',
      });
      expect(refused.status).toBe(400);
      expect(refused.json).toMatchObject({ code: 'invalid_control_request', status: 400 });
      expect(refused.json.message).toContain(expected);
      expect(refused.json.message).toMatch(/^Invalid scenario: /);
      const after = await transport.send(session, 'GET', '/v1/categories', { key: 'demo-free' });
      expect(after.status).toBe(200);
      expect(after.headers['x-ratelimit-remaining']).toBe('59');
      expect(after.json.map((category: { name: string }) => category.name)).not.toContain('must-not-exist');
    });

    it('refuses a body of another type, and an empty one', async () => {
      const session = newSession('type');
      const wrongType = await transport.send(session, 'POST', '/__mock/scenario', {
        body: 'presets=[x]',
        contentType: 'application/x-www-form-urlencoded',
      });
      expect([wrongType.status, wrongType.json.code]).toEqual([415, 'unsupported_media_type']);
      const empty = await transport.send(session, 'POST', '/__mock/scenario', {
        body: '',
        contentType: 'application/yaml',
      });
      expect([empty.status, empty.json.code]).toEqual([400, 'invalid_control_request']);
      const jsonNull = await transport.send(session, 'POST', '/__mock/scenario', {
        body: 'null',
        contentType: 'application/json',
      });
      expect([jsonNull.status, jsonNull.json.code]).toEqual([400, 'invalid_control_request']);
      const jsonString = await transport.send(session, 'POST', '/__mock/scenario', {
        body: JSON.stringify('presets: [banned-key]'),
        contentType: 'application/json',
      });
      expect([jsonString.status, jsonString.json.code, jsonString.json.message]).toEqual([
        400,
        'invalid_control_request',
        expect.stringContaining('expected a JSON object'),
      ]);
      expect((await transport.send(session, 'GET', '/v1/categories', { key: 'demo-free' })).status).toBe(200);
    });
  });
}

describe('the MSW scenario option', () => {
  it('throws a clear error where it is written when the scenario is bad', () => {
    expect(() =>
      createPetstoreHandlers({ spec: specDocument, scenario: 'keys:\n  - key: demo-free\n    spentt: 1\n' }),
    ).toThrow('Failed to load scenario option: keys.0.spentt: unknown field');
    expect(() =>
      createPetstoreHandlers({ spec: specDocument, scenario: { presets: ['banned-kee' as never] } }),
    ).toThrow(/presets\.0: must be a preset/);
    expect(() =>
      createPetstoreHandlers({ spec: specDocument, scenario: { keys: [{ key: 'x', plan: 'gold' }] } }),
    ).toThrow(/keys\.0\.plan: unknown plan "gold"/);
  });

  it('resolves ready once applied, on the session of the handlers', async () => {
    const { ready, controls } = createPetstoreHandlers({
      spec: specDocument,
      clock: createFixedClock(testEpochMs),
      session: 'worker-1',
      scenario: { presets: ['after-sunset'] },
    });
    await ready;
    expect(Date.parse((await controls.clock()).now)).toBe(sunsetMs + 1000);
  });

  it('applies sunset.afterSunset: gone from the config alone once the clock is past the date', async () => {
    const { handlers, controls } = createPetstoreHandlers({
      spec: specDocument,
      clock: createFixedClock(testEpochMs),
      config: { sunset: { afterSunset: 'gone' } },
    });
    const get = async () =>
      (await getResponse(
        handlers,
        new Request('https://x.example/v1/pets/1', { headers: { authorization: 'Bearer demo-pro' } }),
      ))!;
    expect((await get()).status).toBe(200);
    await controls.advanceClock((sunsetMs - testEpochMs) / 1000);
    // At the sunset instant itself it still serves; past it, it is gone.
    expect((await get()).status).toBe(200);
    await controls.advanceClock(1);
    const gone = await get();
    expect(gone.status).toBe(410);
    expect(((await gone.json()) as { code: string }).code).toBe('operation_sunset');
    // A scenario can bring it back for its session; reset goes back to the config.
    await controls.applyScenario({ sunset: { afterSunset: 'serve' } });
    expect((await get()).status).toBe(200);
    await controls.reset();
    expect((await get()).status).toBe(410);
  });
});

describe('the lab after a scenario', () => {
  it('does not blame a client for a ban the scenario set, and still judges how it waits', async () => {
    const { handlers, report } = createPetstoreHandlers({
      spec: specDocument,
      clock: createFixedClock(testEpochMs),
      session: 'judged',
      scenario: { keys: [{ key: 'demo-free', bannedSeconds: 30 }] },
    });
    const get = async () =>
      (await getResponse(
        handlers,
        new Request('https://x.example/v1/categories', { headers: { authorization: 'Bearer demo-free' } }),
      ))!;
    const first = await get();
    expect([first.status, first.headers.get('retry-after')]).toEqual([429, '30']);
    const judged = (await report()).clients.find((client) => client.client === 'demo-free')!;
    expect(judged.verdicts.find((verdict) => verdict.rule === 'no-hammering')!.outcome).not.toBe('fail');
    // Retrying at once is still judged a failure to honour Retry-After.
    await get();
    const again = (await report()).clients.find((client) => client.client === 'demo-free')!;
    expect(again.verdicts.find((verdict) => verdict.rule === 'retry-after-honoured')!.outcome).toBe('fail');
  });
});

describe('a scenario option that cannot be applied', () => {
  it('rejects ready and answers every request with the reason in the Error shape', async () => {
    const { handlers, ready } = createPetstoreHandlers({
      spec: specDocument,
      clock: createFixedClock(testEpochMs),
      scenario: 'clock: { at: 2025-01-01T00:00:00Z }',
    });
    await expect(ready).rejects.toThrow(/clock\.at: 2025-01-01T00:00:00.000Z is before the session's clock/);
    const response = (await getResponse(
      handlers,
      new Request('https://x.example/v1/categories', { headers: { authorization: 'Bearer demo-free' } }),
    ))!;
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({
      code: 'internal_error',
      status: 500,
      message: expect.stringContaining('Failed to apply the scenario option: Invalid scenario: clock.at:'),
    });
  });
});

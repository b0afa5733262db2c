import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { call, createTestApp, testEpochMs } from '../../../test/support/core-test-app.js';
import { demoKeys, parseMockConfig } from './mock-config.js';
import {
  describeScenarioPresets,
  mergeScenarios,
  parseScenario,
  planScenario,
  type ScenarioContext,
  type ScenarioPlan,
  scenarioPresetNames,
  scenarioPresets,
  validateScenario,
} from './scenario-file.js';

const config = parseMockConfig({});
const context: ScenarioContext = {
  plans: config.plans,
  knownKeys: Object.fromEntries(
    demoKeys.map((entry) => [entry.key, { plan: entry.plan!, limits: config.plans[entry.plan!]! }]),
  ),
  anonymous: config.anonymous,
  banDurationSeconds: 900,
};

/**
 * Applies a plan to today's in-memory mock with its public controls and real requests (the
 * integration applies it through the state store in one step; this proves what each preset means):
 * the day's part of a budget is spent in earlier minutes, the minute's part in the current one, a ban
 * by refusals past the threshold.
 */
async function applyByTraffic(app: ReturnType<typeof createTestApp>, plan: ScenarioPlan) {
  for (const operation of plan.operations) {
    switch (operation.op) {
      case 'setClock': {
        const to = operation.to;
        const target =
          to.kind === 'instant'
            ? to.atMs
            : to.kind === 'offset'
              ? app.clock.now() + to.seconds * 1000
              : Date.parse(
                  app.spec.operations.find((candidate) => candidate.operationId === 'getPetById')!.deprecation!.sunset!,
                ) +
                to.seconds * 1000;
        app.clock.advance(target - app.clock.now());
        break;
      }
      case 'addKey':
        await app.controls.addKey({ key: operation.key, plan: operation.plan, limits: operation.limits });
        break;
      case 'spendBudget': {
        if (!('key' in operation.client)) throw new Error('not needed here');
        const key = operation.client.key;
        const limits = context.knownKeys[key]!.limits;
        let earlier = operation.day - operation.minute;
        while (earlier > 0) {
          const now = Math.min(earlier, limits.perMinute);
          for (let index = 0; index < now; index += 1)
            expect((await call(app, 'GET', '/v1/categories', { key })).status).toBe(200);
          earlier -= now;
          app.clock.advance(60_000);
        }
        for (let index = 0; index < operation.minute; index += 1)
          expect((await call(app, 'GET', '/v1/categories', { key })).status).toBe(200);
        break;
      }
      case 'ban': {
        if (!('key' in operation.client)) throw new Error('not needed here');
        const key = operation.client.key;
        for (
          let index = 0;
          index < 2_000 && (await call(app, 'GET', '/v1/categories', { key })).json?.code !== 'key_banned';
          index += 1
        );
        break;
      }
      default:
        break;
    }
  }
}

describe('scenario presets, each on a real in-memory mock', () => {
  const presetPlan = (name: string) => planScenario(parseScenario(`presets: [${name}]`), context);

  it('minute-almost-spent: one request served, then a 429', async () => {
    const app = createTestApp();
    await applyByTraffic(app, presetPlan('minute-almost-spent'));
    expect((await call(app, 'GET', '/v1/categories', { key: 'demo-free' })).status).toBe(200);
    expect((await call(app, 'GET', '/v1/categories', { key: 'demo-free' })).status).toBe(429);
  });

  it('minute-spent: the next request is a 429 with Retry-After 60', async () => {
    const app = createTestApp();
    await applyByTraffic(app, presetPlan('minute-spent'));
    const response = await call(app, 'GET', '/v1/categories', { key: 'demo-free' });
    expect(response.status).toBe(429);
    expect(response.headers['Retry-After']).toBe('60');
  });

  it('day-almost-spent and day-spent: the day window refuses for hours', async () => {
    const almost = createTestApp();
    await applyByTraffic(almost, presetPlan('day-almost-spent'));
    expect((await call(almost, 'GET', '/v1/categories', { key: 'demo-free' })).status).toBe(200);
    const refused = await call(almost, 'GET', '/v1/categories', { key: 'demo-free' });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['Retry-After'])).toBeGreaterThan(3600);
    const spent = createTestApp();
    await applyByTraffic(spent, presetPlan('day-spent'));
    spent.clock.advance(120_000);
    expect(
      Number((await call(spent, 'GET', '/v1/categories', { key: 'demo-free' })).headers['Retry-After']),
    ).toBeGreaterThan(3600);
  });

  it("banned-key: every request is a 429 key_banned, for the ban policy's duration", async () => {
    const plan = presetPlan('banned-key');
    expect(plan.operations).toEqual([{ op: 'ban', client: { key: 'demo-free' }, seconds: 900 }]);
    const app = createTestApp();
    await applyByTraffic(app, plan);
    expect((await call(app, 'GET', '/v1/categories', { key: 'demo-free' })).json.code).toBe('key_banned');
  });

  it('after-sunset and after-sunset-gone: the clock one second past the sunset date', async () => {
    expect(presetPlan('after-sunset').operations).toEqual([
      { op: 'setClock', to: { kind: 'after-sunset', seconds: 1 } },
      { op: 'setAfterSunset', mode: 'serve' },
    ]);
    expect(presetPlan('after-sunset-gone').operations).toContainEqual({ op: 'setAfterSunset', mode: 'gone' });
    const app = createTestApp();
    await applyByTraffic(app, presetPlan('after-sunset'));
    const response = await call(app, 'GET', '/v1/pets/1', { key: 'demo-pro' });
    expect(Date.parse(response.headers.Date!)).toBeGreaterThan(Date.parse(response.headers.Sunset!));
    expect(app.clock.now()).toBeGreaterThan(testEpochMs);
  });

  it('every preset has a description and plans without error', async () => {
    for (const name of scenarioPresetNames) {
      expect(scenarioPresets[name].description.length).toBeGreaterThan(20);
      const plan = presetPlan(name);
      expect(plan.operations.length + (plan.faults === undefined ? 0 : 1)).toBeGreaterThan(0);
    }
    expect(describeScenarioPresets()).toContain(
      '  minute-almost-spent  demo-free is one request from its minute limit',
    );
  });
});

describe('scenario files', () => {
  it('plans keys, budgets, bans, clock and categories in a fixed order', async () => {
    const scenario = parseScenario(`
description: a team key near its limits
clock: { offsetSeconds: 3600 }
keys:
  - key: team-key-1
    plan: pro
    spent: { minute: 299, day: 9000 }
    bannedSeconds: 60
  - key: demo-business
    spent: { minute: one-left }
anonymous:
  - address: 127.0.0.1
    spent: { minute: full }
categories:
  - name: dogs
    description: good ones
sunset: { afterSunset: gone }
`);
    expect(planScenario(scenario, context)).toEqual({
      description: 'a team key near its limits',
      operations: [
        { op: 'setClock', to: { kind: 'offset', seconds: 3600 } },
        { op: 'setAfterSunset', mode: 'gone' },
        { op: 'addKey', key: 'team-key-1', plan: 'pro', limits: { perMinute: 300, perDay: 10_000 } },
        { op: 'spendBudget', client: { key: 'team-key-1' }, minute: 299, day: 9000 },
        { op: 'spendBudget', client: { key: 'demo-business' }, minute: 999, day: 999 },
        { op: 'spendBudget', client: { address: '127.0.0.1' }, minute: 60, day: 60 },
        { op: 'ban', client: { key: 'team-key-1' }, seconds: 60 },
        { op: 'createCategory', name: 'dogs', description: 'good ones' },
      ],
    });
  });

  it('refuses unknown fields by name and bad values in one line', async () => {
    expect(() => parseScenario('keys:\n  - key: demo-free\n    spnet: {}\n')).toThrow(
      'Failed to load scenario: keys.0.spnet: unknown field',
    );
    expect(() => parseScenario('clokc: {}\nkeys: [ {key: a, spentt: 1} ]')).toThrow(
      'Failed to load scenario: keys.0.spentt: unknown field; clokc: unknown field',
    );
    expect(() => parseScenario('presets: [mnute-spent]')).toThrow(
      /^Failed to load scenario: presets\.0: must be a preset: minute-almost-spent, minute-spent/,
    );
    expect(() => parseScenario('clock: { at: 2028-01-01T00:00:00Z, offsetSeconds: 5 }')).toThrow(
      'Failed to load scenario: clock: give either at or offsetSeconds',
    );
    expect(() => parseScenario('sunset: { afterSunset: maybe }')).toThrow(
      'Failed to load scenario: sunset.afterSunset: must be gone or serve',
    );
    expect(() => parseScenario('keys: [ {key: a, spent: {minute: -3}} ]')).toThrow(
      /keys\.0\.spent\.minute: must be a whole number >= 0, "full" or "one-left"/,
    );
    expect(() => parseScenario('keys: [')).toThrow(/^Failed to load scenario: not valid YAML/);
    expect(() => parseScenario('- a list')).toThrow(/^Failed to load scenario: \(root\):/);
  });

  it('refuses what cannot be applied, naming where', async () => {
    expect(() => planScenario(parseScenario('keys: [ {key: stranger} ]'), context)).toThrow(
      'Failed to load scenario: keys.0.key: not a key the mock knows; give it a plan or limits',
    );
    expect(() => planScenario(parseScenario('keys: [ {key: k, plan: gold} ]'), context)).toThrow(
      'keys.0.plan: unknown plan "gold" (known: free, pro, business, enterprise)',
    );
    expect(() => planScenario(parseScenario('keys: [ {key: demo-free, spent: {minute: 61}} ]'), context)).toThrow(
      'keys.0.spent.minute: 61 is more than the minute limit of 60',
    );
  });

  it('reads an empty file as an empty scenario', async () => {
    expect(planScenario(parseScenario(''), context)).toEqual({ description: null, operations: [] });
  });
});

describe('merging scenario files', () => {
  it('joins the lists in order and lets the last clock and sunset choice win', () => {
    const merged = mergeScenarios([
      parseScenario(
        'description: first\npresets: [banned-key]\nclock: { offsetSeconds: 60 }\nkeys: [ {key: demo-pro, bannedSeconds: 5} ]\n',
      ),
      parseScenario(
        'description: second\npresets: [minute-spent]\nclock: { at: after-sunset }\nkeys: [ {key: demo-business, spent: {minute: 3}} ]\nsunset: { afterSunset: gone }\n',
      ),
    ]);
    expect(merged).toEqual({
      description: 'first; second',
      presets: ['banned-key', 'minute-spent'],
      clock: { at: 'after-sunset' },
      keys: [
        { key: 'demo-pro', bannedSeconds: 5 },
        { key: 'demo-business', spent: { minute: 3 } },
      ],
      sunset: { afterSunset: 'gone' },
    });
    expect(validateScenario(merged)).toEqual(merged);
    expect(mergeScenarios([])).toEqual({});
  });
});

describe('the documentation (docs/scenarios.md, docs/mock.md)', () => {
  it('lists every preset with its description in the presets table, and the 410 of a sunset operation', async () => {
    const page = await readFile(new URL('../../../docs/scenarios.md', import.meta.url), 'utf8');
    const rows = page.split('\n').filter((line) => /^\| `[a-z-]+` \| /.test(line));
    expect(rows).toEqual(scenarioPresetNames.map((name) => `| \`${name}\` | ${scenarioPresets[name].description} |`));
    expect(await readFile(new URL('../../../docs/mock.md', import.meta.url), 'utf8')).toContain(
      '| 410 | `operation_sunset` |',
    );
  });

  it('names a file that is no scenario without quoting it', () => {
    expect(() => parseScenario('user: root\npassword: hunter2\n', 'scenario /etc/x')).toThrow(
      'Failed to load scenario /etc/x: none of its 2 top-level keys is a scenario field',
    );
    expect(() => parseScenario('user: root\npassword: hunter2\n')).not.toThrow(/hunter2/);
  });
});

describe('a scenario in the config', () => {
  it('is applied to the default session before the first request, and refused at creation when wrong', async () => {
    const app = createTestApp({
      config: { scenario: { presets: ['minute-spent'], categories: [{ name: 'from-config' }] } },
    });
    await app.ready;
    const refused = await call(app, 'GET', '/v1/categories', { key: 'demo-free' });
    expect([refused.status, refused.headers['Retry-After']]).toEqual([429, '60']);
    expect(
      (await call(app, 'GET', '/v1/categories', { key: 'demo-pro' })).json.map(
        (category: { name: string }) => category.name,
      ),
    ).toContain('from-config');
    expect(() => createTestApp({ config: { scenario: { keys: [{ key: 'k', plan: 'gold' }] } } })).toThrow(
      'Failed to load scenario: keys.0.plan: unknown plan "gold"',
    );
    expect(() => parseMockConfig({ scenario: { keys: [{ key: 'k', spentt: 1 }] } })).toThrow(
      /scenario\.keys\.0: Unrecognized key: "spentt"/,
    );
    expect(() => parseMockConfig({ sunset: { afterSunset: 'later' } })).toThrow(
      'sunset.afterSunset: must be gone or serve',
    );
  });

  it('answers every request with the reason when it cannot be applied (a clock that would go back), and ready rejects', async () => {
    const app = createTestApp({ config: { scenario: { clock: { at: '2020-01-01T00:00:00Z' } } } });
    await expect(app.ready).rejects.toThrow(/clock\.at: 2020-01-01T00:00:00.000Z is before the session's clock/);
    const answer = await call(app, 'GET', '/v1/categories', { key: 'demo-free' });
    expect(answer.status).toBe(500);
    expect(answer.json).toMatchObject({
      code: 'internal_error',
      status: 500,
      message: expect.stringContaining("The mock's scenario could not be applied: Failed to load scenario: clock.at:"),
    });
  });
});

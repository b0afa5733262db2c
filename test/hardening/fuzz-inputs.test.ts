import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { runReplayCommand } from '../../src/cli/replay-command.js';
import type { MockConfigInput } from '../../src/core/config/mock-config.js';
import { parseMockConfig } from '../../src/core/config/mock-config.js';
import { scenarioPresetNames } from '../../src/core/config/scenario-file.js';
import { createMockApp, type MockApp } from '../../src/core/mock-app.js';
import type { MockRequest, MockResponse } from '../../src/core/types.js';
import { parseReplayInput, ReplayInputError } from '../../src/lab/replay-input.js';
import { readConfigFile } from '../../src/server/config-file.js';
import { cpuTimed } from '../support/fastest-run.js';
import { specDocument } from './support/core-app.js';
import { errorShapeProblems } from './support/error-shape.js';
import { fuzzParameters, fuzzTimeoutMs } from './support/fuzz-budget.js';
import { exportLine, harDocument, harEntry } from './support/worst-case-inputs.js';

/**
 * A fuzz suite over every input a user or a script hands the mock (issue 28, item 8): the control
 * API (`/__mock/*`, sequences of calls on one session), scenarios (JSON and YAML), replay
 * recordings (JSON lines and HAR, through the whole `petstore-mock replay` command) and the config
 * file. Generated inputs mix the valid with the absurd (limits of the schema and just past them,
 * dates outside what a `Date` holds, lone surrogates, escape sequences, junk where a field is).
 * Properties: never a 5xx or a crash, every answer within a time bound, a refused control changes
 * nothing, the stores stay within their bounds.
 *
 * `npm test` runs a small budget with a fixed seed; `npm run fuzz` a large one (see support/fuzz-budget.ts).
 */

/** The most CPU any one answer may take (generous, a hang guard; all of it runs in this process). */
const answerBoundMs = 3_000;
/** The most CPU one run of the replay command may take: it reads and compiles the spec and builds an app each time. */
const commandBoundMs = 10_000;
let slowest = { what: '', ms: 0 };
const runs = { controls: 0, scenarios: 0, replays: 0, configs: 0 };
/** How often each outcome came: a suite whose every input is refused at the first field proves little. */
const outcomes = new Map<string, number>();
const saw = (outcome: string) => outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);

afterAll(() => {
  console.log(
    `[hardening] input fuzz: ${JSON.stringify(runs)} runs; outcomes ${JSON.stringify(Object.fromEntries([...outcomes].sort()))}; slowest answer ${slowest.ms.toFixed(0)} ms of CPU (${slowest.what.split('\n')[0]})`,
  );
});

/** `work`'s result, its CPU time bounded: a loaded machine stretches the wall clock, not the work. */
async function timed<T>(what: string, work: () => Promise<T>, boundMs = answerBoundMs): Promise<T> {
  const { value, cpuMs: ms } = await cpuTimed(work);
  if (ms > slowest.ms) slowest = { what: what.slice(0, 120), ms };
  if (ms > boundMs) throw new Error(`${what.slice(0, 200)} took ${ms.toFixed(0)} ms of CPU, over ${boundMs} ms`);
  return value;
}

// ---------------------------------------------------------------------------------------------
// Values: the valid, the edge of the schema, and junk.

const specials = fc.constantFrom<unknown>(
  null,
  true,
  false,
  0,
  -0,
  -1,
  1.5,
  1e308,
  -1e308,
  2 ** 53,
  Number.MAX_SAFE_INTEGER + 2,
  '',
  ' ',
  '\u0000',
  '\uD800',
  'a\uDC00b',
  '\u001b]0;title\u0007',
  '\u001b[2J',
  '__proto__',
  'constructor',
  'toString',
  [],
  {},
  [null],
  { __proto__: 1 },
);
/** Anything a JSON or YAML document can hold where a field is expected. */
const junk: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 2, arbitrary: specials },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
);
/** Mostly a value of `good`, sometimes junk. */
const orJunk = <T>(good: fc.Arbitrary<T>): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 5, arbitrary: good as fc.Arbitrary<unknown> }, { weight: 1, arbitrary: junk });

const keyName = fc.oneof(
  fc.constantFrom('demo-free', 'demo-pro', 'demo-enterprise', 'team-key', 'toString', '__proto__'),
  fc.stringMatching(/^[\x21-\x7e]{1,24}$/),
  fc.string({ unit: 'binary', maxLength: 12 }),
);
const planName = fc.constantFrom(
  'free',
  'pro',
  'business',
  'enterprise',
  'custom',
  'gold',
  'toString',
  '__proto__',
  'a b',
);
const count = fc.oneof(
  fc.integer({ min: -2, max: 100 }),
  fc.constantFrom(1_000_000_000, 1_000_000_001, 2 ** 31, Number.MAX_SAFE_INTEGER),
);
const limits = fc.record({ perMinute: orJunk(count), perDay: orJunk(count) });
const spent = fc.record(
  {
    minute: orJunk(fc.oneof(count, fc.constantFrom('full', 'one-left', 'none'))),
    day: orJunk(fc.oneof(count, fc.constantFrom('full', 'one-left'))),
  },
  { requiredKeys: [] },
);
const bannedSeconds = fc.oneof(
  fc.integer({ min: -1, max: 31 * 86_400 }),
  fc.constantFrom('policy', 30 * 86_400, 30 * 86_400 + 1),
);
const address = fc.oneof(
  fc.ipV4(),
  fc.ipV6(),
  fc.constantFrom('\uD800', 'a\uDC00b', '', 'x'.repeat(201), 'localhost', 'browser', '\u001b[31mred'),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
);
/** Instants from year -271821 to 275760 (all a `Date` holds) and strings that only look like dates. */
const instant = fc.oneof(
  fc.date({ min: new Date(-8.64e15), max: new Date(8.64e15), noInvalidDate: true }).map((date) => date.toISOString()),
  fc
    .date({ min: new Date('1900-01-01'), max: new Date('2200-01-01'), noInvalidDate: true })
    .map((date) => date.toISOString()),
  fc.constantFrom(
    'after-sunset',
    '0001-01-01T00:00:00Z',
    '9999-12-31T23:59:59Z',
    '1969-12-31',
    '1970-01-01',
    '2026-02-30',
    '+275760-09-13T00:00:00Z',
    '275760-09-13',
    '2026-13-01',
    'now',
  ),
);
const offsetSeconds = fc.oneof(
  fc.integer({ min: -1, max: 100 * 365 * 86_400 + 1 }),
  fc.constantFrom(100 * 365 * 86_400, 8.64e12, 8.64e12 + 1, 1e15, 2 ** 53),
);
const clock = fc.oneof(
  fc.record({ at: orJunk(instant) }),
  fc.record({ offsetSeconds: orJunk(offsetSeconds) }),
  fc.record({ at: instant, offsetSeconds }),
  fc.constant({}),
);
const text = (maxLength: number) =>
  fc.oneof(
    fc.string({ unit: 'grapheme', maxLength }),
    fc.string({ unit: 'binary', maxLength }),
    fc.constantFrom('\uD800', '\u001b[2J', 'x'.repeat(maxLength + 1)),
  );

const validLimits = fc.record({
  perMinute: fc.integer({ min: 1, max: 1_000 }),
  perDay: fc.integer({ min: 1, max: 100_000 }),
});
const validSpent = fc.record(
  {
    minute: fc.oneof(fc.nat(100), fc.constantFrom('full', 'one-left')),
    day: fc.oneof(fc.nat(2_000), fc.constantFrom('full', 'one-left')),
  },
  { requiredKeys: [] },
);
const validBan = fc.oneof(fc.integer({ min: 1, max: 30 * 86_400 }), fc.constant('policy'));
/** A scenario the schema accepts (bar a duplicate key or an unknown plan now and then): it reaches the store. */
const validScenario: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    description: fc.string({ maxLength: 40 }),
    presets: fc.array(fc.constantFrom(...scenarioPresetNames), { maxLength: 2 }),
    clock: fc.oneof(
      fc.record({
        at: fc
          .date({ min: new Date('1971-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
          .map((date) => date.toISOString()),
      }),
      fc.record({
        offsetSeconds: fc.oneof(fc.integer({ min: 0, max: 100 * 365 * 86_400 }), fc.constant(100 * 365 * 86_400)),
      }),
      fc.constant({ at: 'after-sunset' }),
    ),
    keys: fc.array(
      fc.record(
        {
          key: fc.oneof(
            fc.constantFrom('demo-free', 'demo-pro', 'demo-enterprise'),
            fc.stringMatching(/^[a-z0-9-]{1,20}$/),
          ),
          plan: fc.constantFrom('free', 'pro', 'business', 'enterprise'),
          spent: validSpent,
          bannedSeconds: validBan,
        },
        { requiredKeys: ['key', 'plan'] },
      ),
      { maxLength: 4 },
    ),
    anonymous: fc.array(
      fc.record(
        {
          address: fc.oneof(fc.ipV4(), fc.ipV6(), fc.constantFrom('browser', '\uD800', 'a\uDC00b')),
          spent: validSpent,
          bannedSeconds: validBan,
        },
        { requiredKeys: ['address'] },
      ),
      { maxLength: 3 },
    ),
    categories: fc.array(
      fc.record(
        {
          name: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }),
          description: fc.string({ unit: 'grapheme', maxLength: 30 }),
        },
        { requiredKeys: ['name'] },
      ),
      { maxLength: 4 },
    ),
    sunset: fc.record({ afterSunset: fc.constantFrom('serve', 'gone') }),
  },
  { requiredKeys: [] },
);

/** A scenario with junk anywhere: nearly always refused, at the first bad field or the last. */
const hostileScenario: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    description: orJunk(text(40)),
    presets: orJunk(fc.array(fc.constantFrom<string>(...scenarioPresetNames, 'nope'), { maxLength: 3 })),
    clock: orJunk(clock),
    keys: orJunk(
      fc.array(
        fc.record(
          {
            key: orJunk(keyName),
            plan: orJunk(planName),
            limits: orJunk(limits),
            spent: orJunk(spent),
            bannedSeconds: orJunk(bannedSeconds),
          },
          { requiredKeys: ['key'] },
        ),
        { maxLength: 4 },
      ),
    ),
    anonymous: orJunk(
      fc.array(
        fc.record(
          { address: orJunk(address), spent: orJunk(spent), bannedSeconds: orJunk(bannedSeconds) },
          { requiredKeys: ['address'] },
        ),
        { maxLength: 3 },
      ),
    ),
    categories: orJunk(
      fc.array(fc.record({ name: orJunk(text(30)), description: orJunk(text(30)) }, { requiredKeys: ['name'] }), {
        maxLength: 4,
      }),
    ),
    sunset: orJunk(fc.record({ afterSunset: fc.constantFrom('serve', 'gone', 'maybe') })),
    unknownField: junk,
  },
  { requiredKeys: [] },
);

const scenarioArbitrary = fc.oneof({ weight: 3, arbitrary: validScenario }, { weight: 2, arbitrary: hostileScenario });

const encoder = new TextEncoder();

/** A scenario as the body of POST /__mock/scenario: JSON, YAML, or text that is neither. */
const scenarioBody = fc.oneof(
  {
    weight: 3,
    arbitrary: scenarioArbitrary.map((scenario) => ({
      contentType: 'application/json',
      body: JSON.stringify(scenario),
    })),
  },
  {
    weight: 3,
    arbitrary: scenarioArbitrary.map((scenario) => ({ contentType: 'application/yaml', body: toYaml(scenario) })),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(scenarioArbitrary, fc.nat(), fc.string({ maxLength: 3 })).map(([scenario, at, insert]) => {
      const yaml = toYaml(scenario);
      const cut = at % (yaml.length + 1);
      return { contentType: 'text/yaml', body: `${yaml.slice(0, cut)}${insert}${yaml.slice(cut)}` };
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      contentType: fc.constantFrom('application/json', 'application/yaml', 'text/plain'),
      body: fc.string({ unit: 'binary', maxLength: 60 }),
    }),
  },
);

// ---------------------------------------------------------------------------------------------
// The controls: sequences of calls on one session.

interface Call {
  method: string;
  url: string;
  contentType?: string;
  body?: string;
  /** An API request (its answer may count against budgets), not a control. */
  api?: boolean;
  /** The bearer key (default demo-free). */
  key?: string;
}

const jsonOrJunk = (value: fc.Arbitrary<unknown>) =>
  fc.oneof(
    { weight: 5, arbitrary: value.map((body) => JSON.stringify(body) ?? 'null') },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  );

const callArbitrary: fc.Arbitrary<Call> = fc.oneof(
  jsonOrJunk(
    fc.record({
      advanceSeconds: orJunk(
        fc.oneof(
          fc.integer({ min: -5, max: 10 * 365 * 86_400 + 5 }),
          fc.double({ noNaN: false }),
          fc.constantFrom(10 * 365 * 86_400, 1e308),
        ),
      ),
    }),
  ).map((body) => ({ method: 'POST', url: '/__mock/clock', contentType: 'application/json', body })),
  jsonOrJunk(
    fc.record({ key: orJunk(keyName), plan: orJunk(planName), limits: orJunk(limits) }, { requiredKeys: [] }),
  ).map((body) => ({ method: 'POST', url: '/__mock/keys', contentType: 'application/json', body })),
  scenarioBody.map(({ contentType, body }) => ({ method: 'POST', url: '/__mock/scenario', contentType, body })),
  fc.constantFrom<Call>(
    { method: 'POST', url: '/__mock/reset' },
    { method: 'GET', url: '/__mock/clock' },
    { method: 'GET', url: '/__mock/keys' },
    { method: 'GET', url: '/__mock/requests' },
    { method: 'GET', url: '/__mock/requests?format=jsonl' },
    { method: 'GET', url: '/__mock/requests?format=csv' },
    { method: 'GET', url: '/__mock/categories' },
    { method: 'GET', url: '/__mock/sessions' },
    { method: 'GET', url: '/__mock/report' },
    { method: 'GET', url: '/__mock/report?format=junit' },
    { method: 'GET', url: '/__mock/health' },
    { method: 'GET', url: '/__mock/scenario/presets' },
    { method: 'DELETE', url: '/__mock/keys' },
    { method: 'GET', url: '/__mock/nothing' },
    { method: 'GET', url: '/v1/categories', api: true },
    { method: 'GET', url: '/v1/pets/3', api: true },
  ),
  fc
    .oneof(fc.integer({ min: -1, max: 10_001 }).map(String), fc.string({ maxLength: 6 }))
    .map((limit) => ({ method: 'GET', url: `/__mock/dashboard?limit=${encodeURIComponent(limit)}` })),
  // Keys as a transport delivers them: no CR, LF or NUL in a header.
  fc.tuple(keyName, fc.string({ unit: 'grapheme', maxLength: 20 })).map(([key, name]) => ({
    method: 'POST',
    url: '/v1/categories',
    contentType: 'application/json',
    body: JSON.stringify({ name }),
    api: true,
    key: key.replace(/[\r\n\0]/g, ''),
  })),
);

/** The answer must be one a transport can send: a status, JSON where JSON is said, an Error body for an error. */
function answerProblems(response: MockResponse): string[] {
  const problems: string[] = [];
  if (response.status >= 500)
    problems.push(`a server error ${response.status}: ${(response.body ?? '').slice(0, 300)}`);
  if (response.status >= 400)
    problems.push(
      ...errorShapeProblems({
        status: response.status,
        contentType: response.headers['Content-Type'],
        body: response.body,
      }),
    );
  if (/Invalid Date/.test(response.headers.Date ?? '')) problems.push(`Date: ${response.headers.Date}`);
  return problems;
}

/**
 * What a session holds, as its controls show it (the clock is fixed, so this is deterministic). The
 * request log records control calls too, refused ones included: those lines are left out.
 */
async function sessionState(app: MockApp, session: string): Promise<string> {
  const controls = app.controlsFor(session);
  const [clockState, keys, categories, requests, health, dashboard] = await Promise.all([
    controls.clock(),
    controls.keys(),
    controls.categories(),
    controls.requests(),
    controls.health(),
    controls.dashboard(),
  ]);
  const api = <T extends { path: string }>(entries: T[]) =>
    entries.filter((entry) => !entry.path.startsWith('/__mock/'));
  // The memory budget is the process's, and counts the log entry of the very control call being judged (the log
  // keeps /__mock/ calls too): its figures move with every request, refused or not, so they are left out.
  const { memory: _processMemory, ...sessionHealth } = health;
  return JSON.stringify({
    clockState,
    keys,
    categories,
    requests: api(requests),
    health: sessionHealth,
    dashboard: { ...dashboard, recent: api(dashboard.recent) },
  });
}

/** A fixed base clock: the state of a session is then a function of what it was sent. */
const fixedNow = Date.UTC(2026, 5, 1, 12);
const fuzzApp = (config: MockConfigInput = {}) =>
  createMockApp({ spec: specDocument, config, clock: { now: () => fixedNow }, seed: 1 });

/** The request of a call, on `session` (none: the default session). */
function toRequest(call: Call, session?: string): MockRequest {
  return {
    method: call.method,
    url: call.url,
    headers: {
      ...(session === undefined ? {} : { 'x-mock-session': session }),
      authorization: `Bearer ${call.key ?? 'demo-free'}`,
      ...(call.contentType === undefined ? {} : { 'content-type': call.contentType }),
    },
    body: call.body === undefined ? null : encoder.encode(call.body),
    clientAddress: '127.0.0.1',
  };
}

describe('fuzzing the control API: sequences of calls on one session', () => {
  const small = 150;
  it('never answers 5xx, answers in bounded time, and a refused or reading control changes nothing', {
    timeout: fuzzTimeoutMs(small, 400),
  }, async () => {
    // One app for the whole run (as a long-lived mock is), a session per sequence.
    const app = fuzzApp({
      maxCategoryBytes: 64 * 1024,
      requestLogSize: 50,
      sessions: { maxSessions: 1_000, idleSeconds: 3_600 },
    });
    let sequence = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(callArbitrary, { minLength: 1, maxLength: 8 }), async (calls) => {
        runs.controls += 1;
        const session = `fuzz-${(sequence += 1) % 900}`;
        await app.controlsFor(session).reset();
        for (const call of calls) {
          const before = call.api ? '' : await sessionState(app, session);
          const response = await timed(`${call.method} ${call.url} ${call.body ?? ''}`, () =>
            app.handle(toRequest(call, session)),
          );
          saw(`control ${call.method} ${call.url.split('?')[0]} ${response.status}`);
          const problems = answerProblems(response);
          if (problems.length > 0)
            throw new Error(`${call.method} ${call.url} ${(call.body ?? '').slice(0, 300)}\n${problems.join('\n')}`);
          if (!call.api && (response.status >= 400 || call.method === 'GET')) {
            const after = await sessionState(app, session);
            if (after !== before)
              throw new Error(
                `${call.method} ${call.url} answered ${response.status} yet changed the session:\n${(call.body ?? '').slice(0, 300)}\n${response.body?.slice(0, 300)}`,
              );
          }
          // Whatever was applied, the session keeps serving, and within its bounds.
          const health = await app.controlsFor(session).health();
          if (
            health.categories.bytes > health.categories.maxBytes ||
            health.categories.count > health.categories.maxCount
          )
            throw new Error(`over the bounds: ${JSON.stringify(health.categories)}`);
          const list = await app.handle(toRequest({ method: 'GET', url: '/v1/categories' }, session));
          if (list.status >= 500 || /Invalid Date/.test(list.headers.Date ?? ''))
            throw new Error(
              `after ${call.method} ${call.url} ${(call.body ?? '').slice(0, 300)}, GET /v1/categories answered ${list.status} (Date: ${list.headers.Date})`,
            );
        }
      }),
      fuzzParameters(small),
    );
    // Memory: a thousand sessions of bounded state fit in far less than a default heap.
    expect(process.memoryUsage().heapUsed).toBeLessThan(1024 * 1024 * 1024);
  });
});

describe('fuzzing scenarios: one at a time on a fresh session', () => {
  const small = 200;
  it('a scenario is applied or refused with a 4xx that changed nothing, and the session serves every control afterwards', {
    timeout: fuzzTimeoutMs(small, 300),
  }, async () => {
    const app = fuzzApp({ sessions: { maxSessions: 1_000, idleSeconds: 3_600 } });
    let index = 0;
    await fc.assert(
      fc.asyncProperty(scenarioBody, async ({ contentType, body }) => {
        runs.scenarios += 1;
        const session = `scenario-${(index += 1) % 900}`;
        await app.controlsFor(session).reset();
        const before = await sessionState(app, session);
        const response = await timed(`scenario ${body}`, () =>
          app.handle(toRequest({ method: 'POST', url: '/__mock/scenario', contentType, body }, session)),
        );
        saw(`scenario ${response.status}`);
        const problems = answerProblems(response);
        if (problems.length > 0) throw new Error(`${contentType} ${body.slice(0, 400)}\n${problems.join('\n')}`);
        if (response.status >= 400 && (await sessionState(app, session)) !== before)
          throw new Error(
            `refused with ${response.status} yet applied in part:\n${body.slice(0, 400)}\n${response.body}`,
          );
        for (const url of [
          '/__mock/clock',
          '/__mock/report',
          '/__mock/dashboard',
          '/__mock/requests?format=jsonl',
          '/__mock/keys',
          '/v1/categories',
          '/v1/pets/3',
        ]) {
          const after = await app.handle(toRequest({ method: 'GET', url }, session));
          const afterProblems =
            after.status >= 500 || /Invalid Date/.test(after.headers.Date ?? '')
              ? [`${url} answered ${after.status}, Date ${after.headers.Date}: ${after.body?.slice(0, 200)}`]
              : [];
          if (afterProblems.length > 0)
            throw new Error(
              `after the scenario (${response.status}) ${body.slice(0, 400)}\n${afterProblems.join('\n')}`,
            );
        }
      }),
      fuzzParameters(small),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Replay recordings, through the whole command.

const recordedTime = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .integer({ min: 0, max: 600_000 })
      .map((offset) => new Date(Date.UTC(2026, 0, 1) + offset).toISOString()),
  },
  { weight: 1, arbitrary: instant },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '0001-01-01T00:00:00Z',
      '1969-12-31T23:59:59.999Z',
      '-000001-01-01T00:00:00Z',
      '+010000-01-01T00:00:00Z',
      '2026-01-01T00:00:00+14:00',
    ),
  },
);
const hostileText = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.constantFrom('\u001b]0;owned\u0007', '\u001b[2K\rVerdict: ok', '\u009b31m', '\u202eevil', 'a\u0000b'),
);

const exportLineArbitrary = fc
  .record(
    {
      time: orJunk(recordedTime),
      method: orJunk(fc.constantFrom('GET', 'POST', 'DELETE', 'get', 'BREW')),
      url: orJunk(
        fc.oneof(
          fc.constantFrom('/v1/categories', '/v1/pets/3', '/v1/store/orders', '/__mock/reset', '/'),
          hostileText.map((tail) => `/v1/${tail}`),
        ),
      ),
      client: orJunk(
        fc.oneof(
          fc.nat(4096).map((n) => `client-${n.toString(16).padStart(12, '0')}`),
          fc.constant('anonymous-00000000000a'),
          hostileText,
        ),
      ),
      plan: orJunk(fc.oneof(planName, hostileText)),
      limits: orJunk(limits),
      status: orJunk(fc.constantFrom(200, 201, 429, 404, 99, 600)),
      body: orJunk(fc.oneof(fc.constant(null), fc.string({ maxLength: 30 }))),
      prefer: orJunk(fc.constantFrom(null, 'code=429', 'code=404')),
    },
    { requiredKeys: [] },
  )
  .chain((overrides) => fc.nat(10_000).map((index) => exportLine(index, overrides)));

const harEntryArbitrary = fc
  .record({
    index: fc.nat(10_000),
    key: fc.oneof(fc.constantFrom('demo-free', 'demo-pro'), keyName, hostileText),
    url: fc.oneof(
      fc.constant(undefined),
      fc.webUrl(),
      fc.constantFrom('http://[::1', '/relative', 'javascript:alert(1)', 'http://api.example/v1/categories?q=%00%1b'),
      hostileText.map((tail) => `http://api.example/v1/${tail}`),
    ),
    time: orJunk(recordedTime),
    extraHeaders: fc.nat(3),
    overrides: fc.record({ request: junk, response: junk, startedDateTime: junk }, { requiredKeys: [] }),
    useOverrides: fc.boolean(),
  })
  .map(({ index, key, url, time, extraHeaders, overrides, useOverrides }) => {
    const entry = harEntry(index, {
      key,
      headers: extraHeaders,
      ...(url === undefined ? {} : { url }),
      ...(typeof time === 'string' ? { time } : {}),
    });
    return useOverrides ? { ...entry, ...overrides } : entry;
  });

/** An export line the reader takes, with hostile text where the format allows any (the URL's tail, the plan's name). */
const validExportLine = fc
  .record({
    index: fc.nat(10_000),
    time: fc.integer({ min: 0, max: 600_000 }).map((offset) => new Date(Date.UTC(2026, 0, 1) + offset).toISOString()),
    method: fc.constantFrom('GET', 'POST'),
    url: fc.oneof(
      fc.constantFrom('/v1/categories', '/v1/pets/3', '/v1/store/orders'),
      hostileText.map((tail) => `/v1/categories?q=${tail}`),
    ),
    client: fc.nat(8).map((n) => `client-${n.toString(16).padStart(12, '0')}`),
    plan: fc.oneof(
      planName,
      hostileText.map((name) => name.slice(0, 60)),
    ),
    status: fc.constantFrom(200, 201, 429),
    prefer: fc.constantFrom(null, 'code=429'),
  })
  .map(({ index, ...overrides }) => exportLine(index, overrides));
/** A HAR entry the reader takes (with --default-plan for its keys). */
const validHarEntry = fc
  .record({
    index: fc.nat(10_000),
    key: fc.oneof(fc.constantFrom('demo-free', 'demo-pro'), fc.stringMatching(/^[\x21-\x7e]{1,24}$/)),
    url: fc.oneof(
      fc.webUrl({ withQueryParameters: true }),
      hostileText.map((tail) => `http://api.example/v1/categories?q=${encodeURIComponent(tail)}`),
    ),
  })
  .map(({ index, key, url }) => harEntry(index, { key, url }));

const recordingArbitrary = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.array(validExportLine, { minLength: 1, maxLength: 30 }).map((lines) => `${lines.join('\n')}\n`),
  },
  {
    weight: 2,
    arbitrary: fc.array(validHarEntry, { minLength: 1, maxLength: 30 }).map((entries) => harDocument(entries)),
  },
  fc.array(exportLineArbitrary, { minLength: 1, maxLength: 30 }).map((lines) => `${lines.join('\n')}\n`),
  fc.array(harEntryArbitrary, { minLength: 1, maxLength: 30 }).map((entries) => harDocument(entries)),
  fc
    .array(harEntryArbitrary, { minLength: 1, maxLength: 10 })
    .map((entries) => JSON.stringify(JSON.parse(harDocument(entries)), null, 2)),
  // Cut or spliced: what a half-written or corrupted file is.
  fc
    .tuple(
      fc.array(exportLineArbitrary, { minLength: 1, maxLength: 10 }),
      fc.nat(),
      fc.string({ unit: 'binary', maxLength: 4 }),
    )
    .map(([lines, at, insert]) => {
      const whole = lines.join('\n');
      const cut = at % (whole.length + 1);
      return `${whole.slice(0, cut)}${insert}${whole.slice(cut + insert.length)}`;
    }),
  fc.string({ unit: 'binary', maxLength: 100 }),
);

/** A control character the terminal would act on: C0 but line feed, DEL, C1, bidi overrides. */
const rawControl = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('fuzzing replay recordings through petstore-mock replay', () => {
  const small = 150;
  it('replays or refuses in one line (exit 0 or 2), never a crash, a 5xx or a raw control character on the terminal', {
    timeout: fuzzTimeoutMs(small, 400),
  }, async () => {
    await fc.assert(
      fc.asyncProperty(
        recordingArbitrary,
        fc.constantFrom<string[]>([], ['--default-plan', 'pro']),
        async (recording, extra) => {
          runs.replays += 1;
          let stdout = '';
          let stderr = '';
          const io = {
            stdout: (chunk: string) => void (stdout += chunk),
            stderr: (chunk: string) => void (stderr += chunk),
            readFile: async () => recording,
            writeFile: async () => undefined,
          };
          const status = await timed(
            `replay ${recording}`,
            () => runReplayCommand(['recording.har', ...extra, '--report', 'report.json'], io),
            commandBoundMs,
          );
          saw(`replay exit ${status}`);
          const where = `\n--- recording:\n${recording.slice(0, 600)}\n--- stdout:\n${stdout.slice(0, 600)}\n--- stderr:\n${stderr.slice(0, 600)}`;
          if (status !== 0 && status !== 2) throw new Error(`exit ${status}${where}`);
          if (status === 2 && (stderr.trimEnd().includes('\n') || stderr === ''))
            throw new Error(`a refusal is one line${where}`);
          if (rawControl.test(stdout) || rawControl.test(stderr))
            throw new Error(`a raw control character reached the terminal${where}`);
          // The command turns any error into its one line: the reader itself must throw only its own refusals.
          try {
            parseReplayInput(recording, {
              plans: parseMockConfig({}).plans,
              demoKeys: { 'demo-free': 'free', 'demo-pro': 'pro' },
              ...(extra.length > 0 ? { defaultPlan: 'pro' } : {}),
            });
          } catch (error) {
            if (!(error instanceof ReplayInputError))
              throw new Error(`the reader threw ${(error as Error).name}: ${(error as Error).message}${where}`);
          }
          if (status === 0) {
            const statuses = /^Statuses: (.*)$/m.exec(stdout)?.[1] ?? '';
            if (statuses.split(', ').some((entry) => Number(entry.split(' x ')[0]) >= 500))
              throw new Error(`the replay was answered with a 5xx${where}`);
          }
        },
      ),
      fuzzParameters(small),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// The config file.

/** A config the schema accepts (bar an unknown plan now and then): it reaches createMockApp and serves. */
const validConfig: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    plans: fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9_-]{0,10}$/), validLimits, { maxKeys: 2 }),
    anonymous: validLimits,
    keys: fc.array(
      fc.record({
        key: fc.stringMatching(/^[a-z0-9-]{1,20}$/),
        plan: fc.constantFrom('free', 'pro', 'business', 'enterprise'),
      }),
      { maxLength: 3 },
    ),
    demoKeys: fc.boolean(),
    ban: fc.record(
      {
        enabled: fc.boolean(),
        threshold: fc.integer({ min: 1, max: 20 }),
        durationSeconds: fc.integer({ min: 1, max: 3_600 }),
      },
      { requiredKeys: [] },
    ),
    seedCategories: fc.integer({ min: 0, max: 20 }),
    maxCategories: fc.integer({ min: 1, max: 1_000 }),
    maxCategoryBytes: fc.constantFrom(1024, 4096, 16 * 1024 * 1024),
    maxBodyBytes: fc.constantFrom(1, 100, 1024 * 1024),
    maxTrackedClients: fc.integer({ min: 1, max: 100 }),
    requestLogSize: fc.integer({ min: 1, max: 1_000 }),
    controlToken: fc.stringMatching(/^[a-z0-9]{1,10}$/),
    cors: fc.boolean(),
    sessions: fc.record(
      { maxSessions: fc.integer({ min: 0, max: 5 }), idleSeconds: fc.integer({ min: 1, max: 100 }) },
      { requiredKeys: [] },
    ),
    sunset: fc.record({ afterSunset: fc.constantFrom('serve', 'gone') }),
    scenario: validScenario,
    rateLimitHeaders: fc.constantFrom(['x-ratelimit'], ['x-ratelimit', 'ietf']),
  },
  { requiredKeys: [] },
);

/** A config with junk anywhere. */
const hostileConfig: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    plans: orJunk(fc.dictionary(planName, limits, { maxKeys: 3 })),
    anonymous: orJunk(limits),
    keys: orJunk(
      fc.array(
        fc.record({ key: orJunk(keyName), plan: orJunk(planName), limits: orJunk(limits) }, { requiredKeys: [] }),
        { maxLength: 3 },
      ),
    ),
    demoKeys: orJunk(fc.boolean()),
    ban: orJunk(fc.record({ enabled: fc.boolean(), threshold: count, durationSeconds: count }, { requiredKeys: [] })),
    deprecation: orJunk(
      fc.dictionary(
        fc.constantFrom('getPetById', 'toString', 'x'),
        fc.record({ deprecatedAt: instant, sunset: instant }, { requiredKeys: [] }),
        { maxKeys: 2 },
      ),
    ),
    seedCategories: orJunk(fc.integer({ min: -1, max: 200 })),
    maxCategories: orJunk(fc.integer({ min: -1, max: 1_000 })),
    maxCategoryBytes: orJunk(fc.constantFrom(1023, 1024, 4096, 16 * 1024 * 1024)),
    maxBodyBytes: orJunk(fc.constantFrom(0, 1, 100, 1024 * 1024)),
    maxTrackedClients: orJunk(fc.integer({ min: 0, max: 10 })),
    requestLogSize: orJunk(fc.integer({ min: 0, max: 100_001 })),
    controlToken: orJunk(text(10)),
    allowRemoteControl: orJunk(fc.boolean()),
    allowedHosts: orJunk(fc.oneof(fc.constant('all'), fc.array(fc.domain(), { maxLength: 2 }))),
    cors: orJunk(fc.boolean()),
    sessions: orJunk(
      fc.record(
        { maxSessions: fc.integer({ min: -1, max: 5 }), idleSeconds: fc.integer({ min: 0, max: 100 }) },
        { requiredKeys: [] },
      ),
    ),
    sunset: orJunk(fc.record({ afterSunset: fc.constantFrom('serve', 'gone', 'x') })),
    scenario: orJunk(scenarioArbitrary),
    rateLimitHeaders: orJunk(fc.subarray(['x-ratelimit', 'ietf', 'draft'])),
    unknownSetting: junk,
  },
  { requiredKeys: [] },
);

const configArbitrary = fc.oneof({ weight: 3, arbitrary: validConfig }, { weight: 2, arbitrary: hostileConfig });

const configText = fc.oneof(
  { weight: 4, arbitrary: configArbitrary.map((config) => toYaml(config)) },
  { weight: 2, arbitrary: configArbitrary.map((config) => JSON.stringify(config)) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(configArbitrary, fc.nat(), fc.string({ unit: 'binary', maxLength: 3 }))
      .map(([config, at, insert]) => {
        const yaml = toYaml(config);
        const cut = at % (yaml.length + 1);
        return `${yaml.slice(0, cut)}${insert}${yaml.slice(cut)}`;
      }),
  },
);

describe('fuzzing the config file', () => {
  const small = 150;
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'petstore-fuzz-config-'));
  });
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('a config is read or refused in one line naming the file; a config read serves requests without a 5xx', {
    timeout: fuzzTimeoutMs(small, 400),
  }, async () => {
    let index = 0;
    await fc.assert(
      fc.asyncProperty(configText, async (yaml) => {
        runs.configs += 1;
        const path = join(folder, `config-${(index += 1)}.yaml`);
        await writeFile(path, yaml);
        let config;
        try {
          config = await timed(`config ${yaml}`, () => readConfigFile(path));
        } catch (error) {
          saw('config refused');
          const message = (error as Error).message;
          if (
            !(error instanceof Error) ||
            !message.startsWith(`Failed to load config ${path}: `) ||
            message.includes('\n')
          )
            throw new Error(`not a one-line refusal: ${message}\n--- config:\n${yaml.slice(0, 600)}`);
          return;
        } finally {
          await rm(path, { force: true });
        }
        saw('config read');
        // The config's scenario is checked against its keys when the app is built, and applied when it starts (a
        // clock.at before now is refused then): either refusal is one line, which the CLI prints naming the file.
        const refusedAtStart = (error: unknown, prefix: RegExp) => {
          saw('config scenario refused at start');
          const message = (error as Error).message;
          if (!(error instanceof Error) || !prefix.test(message) || message.includes('\n'))
            throw new Error(`the config's scenario failed unclearly: ${message}\n--- config:\n${yaml.slice(0, 600)}`);
        };
        let app: MockApp;
        try {
          app = createMockApp({ spec: specDocument, config, clock: { now: () => fixedNow }, seed: 1 });
        } catch (error) {
          return refusedAtStart(error, /^Failed to load scenario: /);
        }
        const ready = await app.ready.then(
          () => undefined,
          (error: Error) => error,
        );
        if (ready !== undefined) return refusedAtStart(ready, /^The mock's scenario could not be applied: /);
        const calls: Call[] = [
          { method: 'GET', url: '/v1/categories' },
          { method: 'POST', url: '/v1/categories', contentType: 'application/json', body: '{"name":"n"}' },
          { method: 'GET', url: '/v1/pets/3' },
          { method: 'GET', url: '/__mock/health' },
          { method: 'GET', url: '/__mock/dashboard' },
        ];
        for (const call of calls) {
          for (const key of ['demo-free', 'no-such-key']) {
            const response = await timed(`${call.method} ${call.url} with config ${yaml}`, () =>
              app.handle(toRequest({ ...call, key })),
            );
            const problems = answerProblems(response);
            if (problems.length > 0)
              throw new Error(`${call.method} ${call.url}: ${problems.join('\n')}\n--- config:\n${yaml.slice(0, 600)}`);
          }
        }
      }),
      fuzzParameters(small),
    );
  });
});

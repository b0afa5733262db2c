import type * as z from 'zod';
import { maskSecret } from '../../../spec/credential-masking.js';
import { keyDigestHex } from '../../../spec/interface/key-id.js';
import { loadYamlModule, yamlModuleAvailable } from '../../../spec/yaml-module.js';
import { onFirstUse } from '../../../spec/zod-module.js';
import { labReportJunit } from '../../lab/lab-report.js';
import { anonymousPseudonym, keyPseudonymFromDigest, toExportLine, toStateLine } from '../../lab/replay-input.js';
import { dashboardResponse } from '../../ui/dashboard-endpoint.js';
import { planLimits } from '../config/mock-config.js';
import { HttpError } from '../errors.js';
import type { ApiKeyEntry } from '../state/key-registry.js';
import type { StartingState } from '../state/state-store.js';
import { decodeScenarioBody } from './control-bodies.js';
import type { ClockState, ControlRoute, ControlRuntime } from './control-types.js';
import { buildDashboardSnapshot } from './dashboard-snapshot.js';
import { faultRoutes } from './fault-controls.js';
import {
  applyScenarioPlan,
  prepareScenario,
  ScenarioError,
  type ScenarioInput,
  scenarioOfSnapshot,
  scenarioPresetList,
} from './scenario.js';

/** The controls' input schemas, made when a control is first called. */
const controlInputs = onFirstUse((z) => ({
  advanceClock: z.strictObject({
    advanceSeconds: z
      .number()
      .finite()
      .min(0)
      .max(10 * 365 * 86_400),
  }),
  // Optional: `controls.dashboard()` takes no argument (its type says so; a fuzz run found it refused).
  dashboard: z.strictObject({ limit: z.int().min(1).max(10_000).optional() }).optional(),
  addKey: z.strictObject({
    key: z
      .string()
      .min(1)
      .max(512)
      .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
    plan: z.string().min(1).max(64).optional(),
    limits: z.strictObject({ perMinute: z.int().positive(), perDay: z.int().positive() }).optional(),
  }),
  /** Any decoded body: the scenario is validated by its own schema, with its own messages. */
  scenarioBody: z.unknown(),
}));
type ControlInput<Name extends keyof ReturnType<typeof controlInputs>> = z.infer<
  ReturnType<typeof controlInputs>[Name]
>;

async function clockOf(runtime: ControlRuntime, session: string): Promise<ClockState> {
  const base = runtime.baseNow();
  const offset = await runtime.store.clockOffset(session, base);
  const now = base + offset;
  return { now: new Date(now).toISOString(), epochSeconds: Math.floor(now / 1000), offsetSeconds: offset / 1000 };
}

const publicKey = ({ masked, plan, limits }: ApiKeyEntry) => ({ key: masked, plan, limits });

/**
 * The control API as one table: each control's method, path, input schema and handler. HTTP
 * (`/__mock/*`) and the functions (`app.controls`, `createPetstoreHandlers().controls`) both go
 * through `runControl`, so an input is validated in one place, with one error.
 */
export const controlRoutes = [
  {
    method: 'GET',
    path: '/__mock/health',
    name: 'health',
    async run(runtime, session) {
      const base = runtime.baseNow();
      const stats = await runtime.store.stats(session, base);
      const start = await runtime.store.startingState(session, base);
      return {
        status: 'ok' as const,
        session,
        store: runtime.store.kind,
        ...stats,
        requestLog: { size: runtime.store.options.requestLogSize, dropped: start.dropped?.count ?? 0 },
        memory: runtime.memory.stats(),
      };
    },
    http: (result) => ({ status: 200, body: result }),
  } satisfies ControlRoute<'health'>,
  {
    method: 'POST',
    path: '/__mock/reset',
    name: 'reset',
    async run(runtime, session) {
      await runtime.store.reset(session, runtime.baseNow());
      runtime.afterReset(session);
    },
    http: async (_result, { runtime, session }) => ({
      status: 200,
      body: {
        reset: true,
        session,
        categories: (await runtime.store.stats(session, runtime.baseNow())).categories.count,
      },
    }),
  } satisfies ControlRoute<'reset'>,
  {
    method: 'GET',
    path: '/__mock/clock',
    name: 'clock',
    run: (runtime, session) => clockOf(runtime, session),
    http: (result) => ({ status: 200, body: result }),
  } satisfies ControlRoute<'clock'>,
  {
    method: 'POST',
    path: '/__mock/clock',
    name: 'advanceClock',
    input: () => controlInputs().advanceClock,
    async run(runtime, session, input: ControlInput<'advanceClock'>) {
      // The store refuses a clock past 100 years ahead, changing nothing.
      await runtime.store
        .advanceClock(session, input.advanceSeconds * 1000, runtime.baseNow())
        .catch((error: unknown) => {
          throw error instanceof RangeError
            ? new HttpError('invalid_control_request', `Invalid control request: advanceSeconds: ${error.message}`)
            : error;
        });
      return clockOf(runtime, session);
    },
    http: (result) => ({ status: 200, body: result }),
  } satisfies ControlRoute<'advanceClock'>,
  {
    method: 'GET',
    path: '/__mock/keys',
    name: 'keys',
    async run(runtime, session) {
      const runtimeKeys = await runtime.store.listKeys(session, runtime.baseNow());
      const byId = new Map(runtimeKeys.map((entry) => [entry.id, entry]));
      const listed = runtime.auth.configKeys().map((entry) => {
        const changed = byId.get(entry.id);
        byId.delete(entry.id);
        return changed ?? entry;
      });
      return [...listed, ...byId.values()];
    },
    http: (result) => ({ status: 200, body: result.map(publicKey) }),
  } satisfies ControlRoute<'keys'>,
  {
    method: 'POST',
    path: '/__mock/keys',
    name: 'addKey',
    input: () => controlInputs().addKey,
    async run(runtime, session, input: ControlInput<'addKey'>) {
      const plan = input.plan ?? 'custom';
      const limits = input.limits ?? planLimits(runtime.config.plans, plan);
      if (!limits)
        throw new HttpError(
          'invalid_control_request',
          `Unknown plan "${plan.slice(0, 40)}"; known: ${Object.keys(runtime.config.plans).join(', ')}`,
        );
      const digest = keyDigestHex(input.key);
      const entry: ApiKeyEntry = {
        masked: maskSecret(input.key),
        plan,
        limits: { ...limits },
        id: digest.slice(0, 32),
      };
      const stored = await runtime.store.addKey(session, { ...entry, digest }, runtime.baseNow());
      // A config key given a new plan in this session is an update, not a new key.
      return { entry, created: stored.created && runtime.auth.configKey(input.key) === undefined };
    },
    http: (result) => ({ status: result.created ? 201 : 200, body: publicKey(result.entry) }),
  } satisfies ControlRoute<'addKey'>,
  {
    method: 'GET',
    path: '/__mock/requests',
    name: 'requests',
    run: (runtime, session) => runtime.store.requests(session, runtime.baseNow()),
    async http(result, { runtime, session, query }) {
      const format = query.get('format');
      if (format === null || format === 'json') return { status: 200, body: result };
      if (format !== 'jsonl')
        throw new HttpError(
          'invalid_control_request',
          `Unknown requests format ${JSON.stringify(format.slice(0, 40))}; formats: json, jsonl`,
        );
      // The export for `petstore-mock replay`: the state the log starts from, then one line per API
      // request, each client under a stable pseudonym with its plan and limits, never a key (the
      // controls are not replayed). docs/decisions/026-faithful-export.md.
      const base = runtime.baseNow();
      const lines: string[] = [startingStateLine(runtime, await runtime.store.startingState(session, base))];
      for (const entry of await runtime.store.recordedRequests(session, base)) {
        const fields = entry.replay;
        if (fields === undefined) continue;
        lines.push(
          toExportLine({
            timeMs: entry.timeMs,
            method: entry.method,
            ...fields,
            plan: entry.plan,
            status: entry.status,
            code: entry.code,
            operationId: entry.operationId,
            fault: entry.fault,
            delayMs: entry.delayMs,
          }),
        );
      }
      return {
        status: 200,
        body: `${lines.join('\n')}\n`,
        contentType: 'application/jsonl; charset=utf-8',
      };
    },
  } satisfies ControlRoute<'requests'>,
  {
    method: 'GET',
    path: '/__mock/categories',
    name: 'categories',
    run: (runtime, session) => runtime.store.listCategories(session, runtime.baseNow()),
    http: (result) => ({ status: 200, body: result }),
  } satisfies ControlRoute<'categories'>,
  {
    method: 'GET',
    path: '/__mock/sessions',
    name: 'sessions',
    run: (runtime) => runtime.store.listSessions(runtime.baseNow()),
    http: (result, { runtime }) => ({
      status: 200,
      body: {
        sessions: result.map(({ name, lastSeenMs }) => ({
          name,
          lastSeen: lastSeenMs === null ? null : new Date(lastSeenMs).toISOString(),
        })),
        maxSessions: runtime.store.options.maxSessions,
        idleSeconds: runtime.store.options.sessionIdleMs / 1000,
      },
    }),
  } satisfies ControlRoute<'sessions'>,
  {
    method: 'GET',
    path: '/__mock/report',
    name: 'report',
    async run(runtime, session) {
      return runtime.lab.report(session, await clockOf(runtime, session));
    },
    http(result, { query }) {
      const format = query.get('format');
      if (format === null || format === 'json') return { status: 200, body: result };
      if (format === 'junit')
        return { status: 200, body: labReportJunit(result), contentType: 'application/xml; charset=utf-8' };
      throw new HttpError(
        'invalid_control_request',
        `Unknown report format ${JSON.stringify(format.slice(0, 40))}; formats: json, junit`,
      );
    },
  } satisfies ControlRoute<'report'>,
  {
    method: 'GET',
    path: '/__mock/dashboard',
    name: 'dashboard',
    input: () => controlInputs().dashboard,
    async run(runtime, session, input: ControlInput<'dashboard'>) {
      return buildDashboardSnapshot(runtime, session, await clockOf(runtime, session), input?.limit ?? 10_000);
    },
    http(result, { request }) {
      const answer = dashboardResponse(result, request.headers['if-none-match']);
      return {
        status: answer.status,
        body: answer.status === 304 ? null : answer.body,
        contentType: answer.headers['Content-Type'] ?? 'application/json; charset=utf-8',
        headers: answer.headers,
      };
    },
  } satisfies ControlRoute<'dashboard'>,
  {
    method: 'POST',
    path: '/__mock/scenario',
    decodeBody: decodeScenarioBody,
    name: 'applyScenario',
    input: () => controlInputs().scenarioBody,
    async run(runtime, session, input: ScenarioInput) {
      try {
        if (
          input === undefined ||
          input === null ||
          (typeof input !== 'string' && (typeof input !== 'object' || Array.isArray(input)))
        ) {
          throw new ScenarioError(
            'Failed to load scenario: (root): expected a mapping of scenario fields (presets, keys, anonymous, clock, categories, sunset), as YAML or JSON',
          );
        }
        // In a page the YAML reader is a chunk of its own, loaded for the first YAML text (JSON needs none).
        if (typeof input === 'string' && !yamlModuleAvailable()) await loadYamlModule();
        const runtimeKeys = await runtime.store.listKeys(session, runtime.baseNow());
        return await applyScenarioPlan(runtime, session, prepareScenario(runtime, input, 'scenario', runtimeKeys));
      } catch (error) {
        if (error instanceof ScenarioError)
          throw new HttpError(
            'invalid_control_request',
            error.message.replace(/^Failed to load scenario: /, 'Invalid scenario: '),
          );
        throw error;
      }
    },
    http: (result) => ({ status: 200, body: result }),
  } satisfies ControlRoute<'applyScenario'>,
  {
    method: 'GET',
    path: '/__mock/scenario/presets',
    name: 'scenarioPresets',
    run: async () => scenarioPresetList(),
    http: (result) => ({ status: 200, body: { presets: result } }),
  } satisfies ControlRoute<'scenarioPresets'>,
  ...faultRoutes,
] as const;

/** The export's first line: the log's starting state as a scenario, keys under their pseudonyms. */
function startingStateLine(runtime: ControlRuntime, start: StartingState): string {
  const plans = new Map<string, ApiKeyEntry>();
  for (const entry of runtime.auth.configKeys()) plans.set(entry.id, entry);
  // A run-time key shadows a config key of the same id, as it does for requests.
  for (const entry of start.state.keys) plans.set(entry.id, entry);
  const { scenario, omitted } = scenarioOfSnapshot(start.state, {
    key(id) {
      const entry = plans.get(id);
      return entry && { key: keyPseudonymFromDigest(id), plan: entry.plan, limits: entry.limits };
    },
    address: anonymousPseudonym,
  });
  return toStateLine({
    atMs: start.atMs,
    logSize: runtime.store.options.requestLogSize,
    dropped: start.dropped,
    omittedClients: omitted,
    scenario,
  });
}

/** The dashboard page: served apart from the table (no token, and it is no control function). */

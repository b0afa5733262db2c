import { sha256 } from '@noble/hashes/sha2.js';
import * as z from 'zod';
import type { Category } from '../../../spec/schemas.js';
import { labReportJunit } from '../../lab/lab-report.js';
import type { DashboardSnapshot, LabReport } from '../../lab/lab-types.js';
import { toExportLine } from '../../lab/replay-input.js';
import { dashboardResponse, parseRecentLimit } from '../../ui/dashboard-endpoint.js';
import { type Limits, type MockConfig, planLimits } from '../config/mock-config.js';
import { HttpError } from '../errors.js';
import type { Authenticator, StartupKey } from '../pipeline/auth.js';
import type { ControlAnswer } from '../pipeline/request-record.js';
import { type ApiKeyEntry, maskSecret, toHex } from '../state/key-registry.js';
import type { MemoryBudgetStats, ProcessMemory } from '../state/memory-account.js';
import type { RequestLogEntry } from '../state/request-log.js';
import type { SessionInfo, SessionStats, StateStore } from '../state/state-store.js';
import type { MockRequest } from '../types.js';
import { assertControlAccess } from './control-access.js';
import { decodeControlBody, decodeScenarioBody } from './control-bodies.js';
import { buildDashboardSnapshot } from './dashboard-snapshot.js';
import type { LabSessions } from './lab-sessions.js';
import {
  type AppliedScenario,
  applyScenarioPlan,
  prepareScenario,
  ScenarioError,
  type ScenarioInput,
  scenarioPresetList,
} from './scenario.js';

/** The control functions, the same ones `/__mock/*` serves, on one session. */
export interface MockControls {
  /** The session these controls act on. */
  readonly session: string;
  /** Back to the seeded state: created data, counters, bans, run-time keys and the request log are cleared. The clock stays. */
  reset(): Promise<void>;
  /** Moves the session's virtual clock forward. */
  advanceClock(seconds: number): Promise<ClockState>;
  clock(): Promise<ClockState>;
  /** Adds a key to the session (or changes the plan of an existing one). */
  addKey(input: { key: string; plan?: string; limits?: Limits }): Promise<{ entry: ApiKeyEntry; created: boolean }>;
  /** The config keys (the same in every session), with the session's run-time changes, then its run-time keys. */
  keys(): Promise<ApiKeyEntry[]>;
  requests(): Promise<RequestLogEntry[]>;
  categories(): Promise<Category[]>;
  /** What `GET /__mock/health` says: readiness, the session's store against its bounds, and what the bounds dropped. */
  health(): Promise<HealthState>;
  /** The live sessions, most recently seen first (the default one always). */
  sessions(): Promise<SessionInfo[]>;
  /** The rate-limit lab's report of the session (`GET /__mock/report`): client verdicts and coverage. */
  report(): Promise<LabReport>;
  /** What the dashboard shows of the session (`GET /__mock/dashboard`): clients with windows and bans, recent requests, coverage. */
  dashboard(input?: { limit?: number }): Promise<DashboardSnapshot>;
  /**
   * Applies a scenario (YAML text, or the same as an object) to the session (`POST /__mock/scenario`):
   * checked whole first, nothing applied when any part is wrong (HttpError invalid_control_request
   * naming the field).
   *
   * @example await controls.applyScenario('presets: [minute-almost-spent]')
   */
  applyScenario(input: ScenarioInput): Promise<AppliedScenario>;
  /** The named presets with what each sets up (`GET /__mock/scenario/presets`). */
  scenarioPresets(): Promise<ReturnType<typeof scenarioPresetList>>;
}

export interface HealthState extends SessionStats {
  status: 'ok';
  session: string;
  store: 'memory' | 'redis';
  /** The process's memory budget: what it counts, what is used, what it forgot and refused. */
  memory: MemoryBudgetStats;
}

export interface ClockState {
  now: string;
  epochSeconds: number;
  offsetSeconds: number;
}

export type { ControlAnswer };

/** What the controls need of the app. */
export interface ControlRuntime {
  store: StateStore;
  config: MockConfig;
  auth: Authenticator;
  /** The base clock (the store adds the session's offset). */
  baseNow(): number;
  /** The sunset date (ISO, or null) of each deprecated operation: where a scenario's `after-sunset` clock goes. */
  sunsets(): ReadonlyMap<string, string | null>;
  /** Called after a session's reset (the app restarts its fake-data sequence). */
  afterReset(session: string): void;
  /** The rate-limit lab of every session. */
  lab: LabSessions;
  /** The process's memory budget (`GET /__mock/health` reports it). */
  memory: ProcessMemory;
  /** The keys accepted at start and the public demo key names (the dashboard lists unused keys, demo keys by name). */
  startupKeys: readonly StartupKey[];
  demoKeyNames: ReadonlySet<string>;
  /**
   * The dashboard page (`GET /__mock/ui`), given by the node server only: the page is 36 KB the MSW
   * browser bundle does not need. Without it the route answers 404 saying where the page is.
   */
  dashboardPage?: () => { status: number; headers: Record<string, string>; body: string };
}

/** One control call over HTTP: who asked, on which session, with which query. */
interface ControlCall {
  runtime: ControlRuntime;
  session: string;
  query: URLSearchParams;
  request: MockRequest;
}

interface ControlRoute<Name extends keyof Omit<MockControls, 'session'>> {
  method: 'GET' | 'POST';
  path: string;
  /** The function of `MockControls` this route is. */
  name: Name;
  /** The input schema (strict: unknown fields refused by name), for HTTP bodies and function calls alike. */
  input?: z.ZodType;
  /** How a POST body becomes the input, when not as JSON (the scenario also takes YAML text). */
  decodeBody?: (request: MockRequest) => unknown;
  /** Runs the control; `input` is already validated. */
  // biome-ignore lint/suspicious/noExplicitAny: each route's input is its own schema's output, which one table of routes cannot name
  run(runtime: ControlRuntime, session: string, input: any): Promise<Awaited<ReturnType<MockControls[Name]>>>;
  /** The HTTP answer of a result. */
  http(result: Awaited<ReturnType<MockControls[Name]>>, call: ControlCall): Promise<ControlAnswer> | ControlAnswer;
}

const AdvanceClockSchema = z.strictObject({
  advanceSeconds: z
    .number()
    .finite()
    .min(0)
    .max(10 * 365 * 86_400),
});
// Optional: `controls.dashboard()` takes no argument (its type says so; a fuzz run found it refused).
const DashboardSchema = z.strictObject({ limit: z.int().min(1).max(10_000).optional() }).optional();
const AddKeySchema = z.strictObject({
  key: z
    .string()
    .min(1)
    .max(512)
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
  plan: z.string().min(1).max(64).optional(),
  limits: z.strictObject({ perMinute: z.int().positive(), perDay: z.int().positive() }).optional(),
});

const encoder = new TextEncoder();
/** Any decoded body: the scenario is validated by its own schema, with its own messages. */
const ScenarioBodySchema = z.unknown();

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
const controlRoutes = [
  {
    method: 'GET',
    path: '/__mock/health',
    name: 'health',
    async run(runtime, session) {
      const stats = await runtime.store.stats(session, runtime.baseNow());
      return { status: 'ok' as const, session, store: runtime.store.kind, ...stats, memory: runtime.memory.stats() };
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
    input: AdvanceClockSchema,
    async run(runtime, session, input: z.infer<typeof AdvanceClockSchema>) {
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
    input: AddKeySchema,
    async run(runtime, session, input: z.infer<typeof AddKeySchema>) {
      const plan = input.plan ?? 'custom';
      const limits = input.limits ?? planLimits(runtime.config.plans, plan);
      if (!limits)
        throw new HttpError(
          'invalid_control_request',
          `Unknown plan "${plan.slice(0, 40)}"; known: ${Object.keys(runtime.config.plans).join(', ')}`,
        );
      const digest = toHex(sha256(encoder.encode(input.key)));
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
      // The export for `petstore-mock replay`: one line per API request, each client under a stable
      // pseudonym with its plan and limits, never a key (the controls are not replayed).
      const lines: string[] = [];
      for (const entry of await runtime.store.recordedRequests(session, runtime.baseNow())) {
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
          }),
        );
      }
      return {
        status: 200,
        body: lines.length === 0 ? '' : `${lines.join('\n')}\n`,
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
    input: DashboardSchema,
    async run(runtime, session, input: z.infer<typeof DashboardSchema> | undefined) {
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
    input: ScenarioBodySchema,
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
] as const;

/** The dashboard page: served apart from the table (no token, and it is no control function). */
const dashboardPagePath = '/__mock/ui';

type AnyRoute = (typeof controlRoutes)[number];
const routeList = [...controlRoutes.map((route) => `${route.method} ${route.path}`), 'GET /__mock/ui'];

function validate(route: AnyRoute, input: unknown): unknown {
  if (!('input' in route) || route.input === undefined) return undefined;
  const result = route.input.safeParse(input);
  if (!result.success) {
    const detail = result.error.issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`).join('; ');
    throw new HttpError('invalid_control_request', `Invalid control request: ${detail}`);
  }
  return result.data;
}

/**
 * The controls of one session as functions. They throw `HttpError` (`invalid_control_request` for a
 * bad input, exactly as over HTTP), `StoreUnavailableError` or `TooManySessionsError`.
 *
 * @example await createControls(runtime, 'ci-job-7').advanceClock(60)
 */
export function createControls(runtime: ControlRuntime, session: string): MockControls {
  const controls: Record<string, unknown> = { session };
  for (const route of controlRoutes) {
    const call = (input?: unknown) =>
      (route.run as (r: ControlRuntime, s: string, i: unknown) => Promise<unknown>)(
        runtime,
        session,
        validate(route, input),
      );
    // Functions take the input itself; advanceClock keeps its one-number signature.
    controls[route.name] =
      route.name === 'advanceClock' ? (seconds: number) => call({ advanceSeconds: seconds }) : call;
  }
  return controls as unknown as MockControls;
}

/**
 * Serves `/__mock/*` for the caller's session: never counted against rate limits; refused to
 * non-loopback clients unless allowed, and guarded by a token when one is configured.
 */
export async function handleControlRequest(
  request: MockRequest,
  path: string,
  session: string,
  runtime: ControlRuntime,
): Promise<ControlAnswer> {
  if (path === dashboardPagePath) return dashboardPage(request, runtime);
  assertControlAccess(request, runtime.config);
  if (request.bodyTooLarge)
    throw new HttpError('payload_too_large', `Request body exceeds ${runtime.config.maxBodyBytes} bytes`);
  const route = controlRoutes.find((candidate) => candidate.path === path && candidate.method === request.method);
  if (!route) {
    const allowed = controlRoutes.filter((candidate) => candidate.path === path).map((candidate) => candidate.method);
    if (allowed.length > 0) {
      throw new HttpError(
        'method_not_allowed',
        `${request.method.slice(0, 20)} is not allowed on ${path}; allowed: ${allowed.join(', ')}`,
        { Allow: allowed.join(', ') },
      );
    }
    throw new HttpError('not_found', `No control at ${path.slice(0, 200)}; controls: ${routeList.join(', ')}`);
  }
  const questionMark = request.url.indexOf('?');
  const query = new URLSearchParams(questionMark === -1 ? '' : request.url.slice(questionMark + 1));
  const input =
    'input' in route
      ? route.method === 'GET'
        ? inputFromQuery(route.path, query)
        : ('decodeBody' in route ? route.decodeBody : decodeControlBody)(request)
      : undefined;
  const result = await (route.run as (r: ControlRuntime, s: string, i: unknown) => Promise<unknown>)(
    runtime,
    session,
    validate(route, input),
  );
  return (route.http as (result: unknown, call: ControlCall) => Promise<ControlAnswer> | ControlAnswer)(result, {
    runtime,
    session,
    query,
    request,
  });
}

/** The input of a GET control, from its query (`GET /__mock/dashboard?limit=N`). */
function inputFromQuery(path: string, query: URLSearchParams): unknown {
  if (path !== '/__mock/dashboard' || !query.has('limit')) return {};
  const parsed = parseRecentLimit(query.get('limit'));
  if (!parsed.ok) throw new HttpError('validation_failed', parsed.message);
  return { limit: parsed.limit };
}

/**
 * `GET /__mock/ui`: the controls' loopback, Host and Origin checks, but no token (a navigation
 * cannot send one, and the page holds no data: it asks for the token before it reads anything).
 */
function dashboardPage(request: MockRequest, runtime: ControlRuntime): ControlAnswer {
  assertControlAccess(request, runtime.config, { token: false });
  if (request.method !== 'GET' && request.method !== 'HEAD')
    throw new HttpError(
      'method_not_allowed',
      `${request.method.slice(0, 20)} is not allowed on ${dashboardPagePath}; allowed: GET`,
      { Allow: 'GET' },
    );
  if (!runtime.dashboardPage)
    throw new HttpError(
      'not_found',
      `The dashboard page is served by the mock server (petstore-mock, startMockServer), not by this transport; GET /__mock/dashboard gives its data`,
    );
  const page = runtime.dashboardPage();
  const { 'Content-Type': contentType, ...headers } = page.headers;
  return { status: page.status, body: page.body, contentType: contentType ?? 'text/html; charset=utf-8', headers };
}

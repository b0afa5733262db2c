import type * as z from 'zod';
import type { Category } from '../../../spec/schemas.js';
import type { DashboardSnapshot, LabReport } from '../../lab/lab-types.js';
import type { FaultSettings, FaultSettingsInput } from '../config/fault-config.js';
import type { Limits, MockConfig } from '../config/mock-config.js';
import type { Authenticator, StartupKey } from '../pipeline/auth.js';
import type { ControlAnswer } from '../pipeline/request-record.js';
import type { FaultSessions } from '../state/fault-sessions.js';
import type { ApiKeyEntry } from '../state/key-registry.js';
import type { MemoryBudgetStats, ProcessMemory } from '../state/memory-account.js';
import type { RequestLogEntry } from '../state/request-log.js';
import type { SessionInfo, SessionStats, StateStore } from '../state/state-store.js';
import type { MockRequest } from '../types.js';
import type { LabSessions } from './lab-sessions.js';
import type { AppliedScenario, ScenarioInput, scenarioPresetList } from './scenario.js';

export type { ControlAnswer };

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
  /** The session's latency and fault settings (`GET /__mock/faults`): its own, else the config's; null when none. Keys masked. */
  faults(): Promise<FaultSettings | null>;
  /**
   * Replaces the session's latency and fault settings (`POST /__mock/faults`); `{}` switches them off
   * for the session, a reset gives it the config's again. Its draws start over.
   *
   * @example await controls.setFaults({ latency: '50-300ms', rules: [{ fault: 'reset', rate: 0.1 }] })
   */
  setFaults(input: FaultSettingsInput): Promise<FaultSettings>;
}

export interface HealthState extends SessionStats {
  status: 'ok';
  session: string;
  store: 'memory' | 'redis';
  /** The request log: the entries it keeps (`requestLogSize`), and the API requests it dropped since the session started, was reset or given a scenario. */
  requestLog: { size: number; dropped: number };
  /** The process's memory budget: what it counts, what is used, what it forgot and refused. */
  memory: MemoryBudgetStats;
}

export interface ClockState {
  now: string;
  epochSeconds: number;
  offsetSeconds: number;
}

/** What the controls need of the app. */
export interface ControlRuntime {
  store: StateStore;
  config: MockConfig;
  auth: Authenticator;
  /** The base clock (the store adds the session's offset). */
  baseNow(): number;
  /** The sunset date (ISO, or null) of each deprecated operation: where a scenario's `after-sunset` clock goes. */
  sunsets(): ReadonlyMap<string, string | null>;
  /** The fault settings of each session (decision 042). */
  faults: FaultSessions;
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
export interface ControlCall {
  runtime: ControlRuntime;
  session: string;
  query: URLSearchParams;
  request: MockRequest;
}

export interface ControlRoute<Name extends keyof Omit<MockControls, 'session'>> {
  method: 'GET' | 'POST';
  path: string;
  /** The function of `MockControls` this route is. */
  name: Name;
  /** The input schema (strict: unknown fields refused by name), for HTTP bodies and function calls alike. */
  input?: () => z.ZodType;
  /** How a POST body becomes the input, when not as JSON (the scenario also takes YAML text). */
  decodeBody?: (request: MockRequest) => unknown;
  /** Runs the control; `input` is already validated. */
  // biome-ignore lint/suspicious/noExplicitAny: each route's input is its own schema's output, which one table of routes cannot name
  run(runtime: ControlRuntime, session: string, input: any): Promise<Awaited<ReturnType<MockControls[Name]>>>;
  /** The HTTP answer of a result. */
  http(result: Awaited<ReturnType<MockControls[Name]>>, call: ControlCall): Promise<ControlAnswer> | ControlAnswer;
}

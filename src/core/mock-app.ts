import { createDataGenerator } from '../../spec/data-generator.js';
import type { OpenApiDocument } from '../../spec/openapi-types.js';
import type { NewCategory } from '../../spec/schemas.js';
import { yamlModuleAvailable } from '../../spec/yaml-module.js';
import { systemClock } from './clock.js';
import { type MockConfig, type MockConfigInput, parseMockConfig } from './config/mock-config.js';
import { controlAccessAllowed } from './controls/control-access.js';
import {
  type ControlRuntime,
  createControls,
  handleControlRequest,
  type MockControls,
} from './controls/control-api.js';
import { createLabSessions, type LabSessions, labRequestOf } from './controls/lab-sessions.js';
import { applyScenarioPlan, prepareScenario, ScenarioError, type ScenarioInput } from './controls/scenario.js';
import { HttpError } from './errors.js';
import { createAuthenticator, type StartupKey } from './pipeline/auth.js';
import { anonymousHead } from './pipeline/off-the-api.js';
import { petstoreOperations } from './pipeline/operations.js';
import { needsBody, respond } from './pipeline/pipeline.js';
import type { PipelineRuntime, RequestObserver } from './pipeline/request-record.js';
import { isPetstoreInterface, serveSpec } from './pipeline/served-spec.js';
import { type CompiledSpec, compileSpec, isCompiledSpec } from './spec/compiled-spec.js';
import { warnOfBrokenExamples } from './spec/example-audit.js';
import { seedCategories } from './spec/seeding.js';
import { FaultSessions } from './state/fault-sessions.js';
import type { ProcessMemory } from './state/memory-account.js';
import { MemoryBudget } from './state/memory-budget.js';
import { createMemoryStore } from './state/memory-store.js';
import { defaultSessionName, invalidSessionMessage, sessionNamePattern } from './state/sessions.js';
import type { StateStore, StateStoreOptions } from './state/state-store.js';
import { storeOptionsFromConfig } from './state/store-options.js';
import { type Clock, type Logger, type MockRequest, type MockResponse, silentLogger } from './types.js';
import { createResponseShaper } from './wire/response-shaping.js';

export type { ClockState, HealthState, MockControls } from './controls/control-api.js';

export interface MockAppOptions {
  /** The OpenAPI document (parsed) or a spec already compiled with `compileSpec`. */
  spec: OpenApiDocument | CompiledSpec;
  /** Configuration; decoded and defaulted with `parseMockConfig`. */
  config?: MockConfigInput | MockConfig;
  /** Seed of all fake data. Same seed, same data. Default 1. */
  seed?: number;
  /** Base time source; each session's virtual clock is this plus the session's offset (kept in the store). */
  clock?: Clock;
  /** Categories to start with instead of faker-seeded ones (also restored by reset). */
  initialCategories?: NewCategory[];
  logger?: Logger;
  /**
   * Where the state lives. Default: a new in-memory store (`createMemoryStore`). Give a Redis store
   * (`connectRedisStore` in `src/server/redis-store.ts`) to share state between replicas; build its
   * options with `app`-independent `mockStoreOptions(config, spec, ...)`.
   */
  store?: StateStore | ((options: StateStoreOptions) => StateStore);
  /**
   * Called once per API request after its response is built (never for controls): the seam for
   * per-client judgements, coverage and dashboards. Synchronous and cheap, or it slows every request;
   * an observer that throws is logged and ignored.
   */
  observers?: RequestObserver[];
  /**
   * The dashboard page served at `GET /__mock/ui` (`dashboardPageResponse` of src/ui/dashboard-csp.ts).
   * The node server gives it; MSW leaves it out (36 KB a browser bundle does not need).
   */
  dashboardPage?: () => { status: number; headers: Record<string, string>; body: string };
  /**
   * A scenario applied to `session` (default: the default session) before the first request is
   * answered, after the config's own (the MSW `scenario` option). Refused at once, naming the field,
   * when it is wrong; when it cannot be applied, `ready` rejects and every request answers why.
   */
  startupScenario?: { input: ScenarioInput; session?: string };
}

export type { RequestEvent, RequestObserver } from './pipeline/request-record.js';

/**
 * One mock of the Petstore API: an asynchronous function from request to response. The request
 * path is a list of named stages over one record per request (`pipeline/pipeline.ts`); the state is
 * in a `StateStore`; the controls (`controls/`) act on it. Transports (node:http, MSW) only translate.
 *
 * @example
 * const app = createMockApp({ spec: await readSpecFile() });
 * await app.handle({ method: 'GET', url: '/v1/categories', headers: { authorization: 'Bearer demo-free' }, body: null });
 * // { status: 200, headers: { 'X-RateLimit-Limit': '60', ... }, body: '[{"id":1,...}]' }
 */
export interface MockApp {
  handle(request: MockRequest): Promise<MockResponse>;
  /**
   * The same as `handle`, answered at once when the store allows it (in memory: no promise, the
   * same turn of the event loop), else a promise. For transports and the replay, where a promise per
   * request is measurable; anything else calls `handle`.
   */
  respond(request: MockRequest): MockResponse | Promise<MockResponse>;
  readonly spec: CompiledSpec;
  readonly config: MockConfig;
  readonly basePath: string;
  readonly store: StateStore;
  /** The controls of the default session. */
  readonly controls: MockControls;
  /** The controls of a named session (the same ones `/__mock/*` serves with `X-Mock-Session`). */
  controlsFor(session: string): MockControls;
  /** The base clock (each session's virtual time is this plus its offset). */
  readonly baseClock: Clock;
  /** The keys accepted at start; `display` is safe to print (demo keys in full, others masked). */
  readonly startupKeys: readonly StartupKey[];
  /**
   * Serves another version of the spec from now on and keeps all state (`petstore-mock --watch`).
   * Compiles first and throws (changing nothing) if the new spec cannot be served or the config no
   * longer fits it.
   */
  replaceSpec(spec: OpenApiDocument | CompiledSpec): void;
  /**
   * Date and the X-RateLimit-* headers of a client's anonymous budget (default session), without
   * counting a request: for answers a transport gives before a request reaches the core. Never
   * rejects: without the store, Date alone.
   */
  anonymousHead(clientAddress?: string): Promise<Record<string, string>>;
  /**
   * Whether the answer to a request depends on its body, judged from its head alone and counting
   * nothing: false when the head already decides the answer (401, 403, 404, 405, 413, 415, and an
   * anonymous client's 429). A transport sends `100 Continue` only when true; otherwise it answers at
   * once, unread. Resolves true when the store cannot tell (the body is then read and judged).
   */
  needsBody(request: MockRequest): Promise<boolean>;
  /** Resolves once the config's `scenario` is applied (at once without one); rejects with why it could not be. */
  readonly ready: Promise<void>;
  /** Releases the store (Redis connections). */
  close(): Promise<void>;
}

/**
 * The store options a mock with this config and spec needs (the seed categories included): for
 * building a store before the app, for example a Redis one.
 */
export function mockStoreOptions(
  options: Pick<MockAppOptions, 'spec' | 'config' | 'seed' | 'initialCategories'>,
): StateStoreOptions {
  const spec = isCompiledSpec(options.spec) ? options.spec : compileSpec(options.spec);
  const config = parseMockConfig(options.config);
  const seeds = seedCategories(spec, createDataGenerator(options.seed ?? 1), {
    count: config.seedCategories,
    initialCategories: options.initialCategories,
  });
  return storeOptionsFromConfig(config, seeds, config.sessions);
}

/**
 * Assembles a mock from its options: the config decoded, the spec compiled, the store, the
 * authenticator, the shaper, the fake data, the lab, the controls and the startup scenarios, all
 * made once here and handed to the request path (`respond`) as one `PipelineRuntime`.
 */
export function createMockApp(options: MockAppOptions): MockApp {
  const spec = isCompiledSpec(options.spec) ? options.spec : compileSpec(options.spec);
  // Decoding is idempotent, so an already decoded config (from readConfigFile) goes through it again safely.
  const config = parseMockConfig(options.config);
  const logger = options.logger ?? silentLogger;
  const baseClock = options.clock ?? systemClock;
  const data = createDataGenerator(options.seed ?? 1);
  const seedOptions = { count: config.seedCategories, initialCategories: options.initialCategories };
  const storeOptions = storeOptionsFromConfig(config, seedCategories(spec, data, seedOptions), config.sessions);
  const store = openStore(options.store, storeOptions);
  const auth = createAuthenticator(config);
  const startedAtMs = baseClock.now();
  for (const warning of spec.definition.warnings) logger.warn(warning);
  const { memory, lab } = labOf(store, config);
  const faults = new FaultSessions(config.faults, options.seed ?? 1, config.sessions.maxSessions);
  const runtime: PipelineRuntime = {
    config,
    logger,
    baseClock,
    store,
    auth,
    shaper: createResponseShaper(config, logger),
    data,
    // A Map: an object looked up by a variable key takes V8's generic keyed path on every request.
    operations: new Map(Object.entries(petstoreOperations)),
    served: serveSpec(spec, config, startedAtMs, data),
    startup: null,
    faults,
    warned: { drops: false, evictions: false },
    serveControl: (record) => handleControlRequest(record.request, record.path, record.session, controlRuntime),
    controlAccessAllowed: (request) => controlAccessAllowed(request, config),
    observeLab: (record, logged) => lab.observe(record.session, labRequestOf(record, logged)),
    observers: options.observers ?? [],
  };
  const controlRuntime: ControlRuntime = {
    lab,
    memory,
    startupKeys: auth.startupKeys,
    // The demo keys are public: the lab shows them by name, every other key masked.
    demoKeyNames: auth.servedDemoKeys,
    ...(options.dashboardPage ? { dashboardPage: options.dashboardPage } : {}),
    store,
    config,
    auth,
    baseNow: () => baseClock.now(),
    sunsets: () => runtime.served.sunsets,
    faults,
    afterReset: (session) => {
      lab.reset(session);
      faults.reset(session);
      // The fake-data sequence starts over with the default session (it is shared by all sessions).
      if (session !== defaultSessionName) return;
      data.reset();
      seedCategories(runtime.served.spec, data, seedOptions);
      runtime.warned.drops = false;
      runtime.warned.evictions = false;
    },
  };
  const controlsFor = controlsBySession(controlRuntime);
  const ready = applyStartup(runtime, startupScenarios(options, controlRuntime, controlsFor));
  return mockAppOf(runtime, controlsFor, ready, startedAtMs);
}

function openStore(option: MockAppOptions['store'], storeOptions: StateStoreOptions): StateStore {
  if (option === undefined) return createMemoryStore(storeOptions);
  return typeof option === 'function' ? option(storeOptions) : option;
}

/** The lab, and the one memory budget it shares with the store. */
function labOf(store: StateStore, config: MockConfig): { memory: ProcessMemory; lab: LabSessions } {
  // One budget for the process: the memory store's own, which the lab shares; with a store that keeps
  // its data elsewhere (Redis), a budget of the lab's alone.
  const memory =
    store.memory ??
    new MemoryBudget(
      config.memoryBudgetBytes,
      'the lab of every session (the Redis store keeps the rest, bounded by its maxmemory)',
    );
  const lab = createLabSessions({
    memory,
    maxSessions: store.options.maxSessions,
    banPolicy: {
      enabled: config.ban.enabled,
      threshold: config.ban.threshold,
      durationMs: config.ban.durationSeconds * 1000,
    },
    anonymous: config.anonymous,
  });
  return { memory, lab };
}

/** Requests wait for the startup scenarios until they are applied; a failure stays every request's answer. */
function applyStartup(runtime: PipelineRuntime, startup: Promise<unknown> | null): Promise<void> {
  runtime.startup =
    startup === null
      ? null
      : startup.then(() => {
          runtime.startup = null;
        });
  const ready = runtime.startup === null ? Promise.resolve() : runtime.startup.then(() => undefined);
  // Reported by whoever awaits `ready` (the CLI exits 2) and by every request (503 or 500, logged).
  ready.catch(() => undefined);
  return ready;
}

/** The examples of a foreign document that break their schemas, said after the start (the kit's own are held valid by its tests). */
function exampleWarnings(runtime: PipelineRuntime): () => void {
  const { spec } = runtime.served;
  return isPetstoreInterface(spec) ? () => {} : warnOfBrokenExamples(spec, (line) => runtime.logger.warn(line));
}

/** The app the assembler hands out: the runtime's request path, its controls, and the spec swapped whole on reload. */
function mockAppOf(
  runtime: PipelineRuntime,
  controlsFor: (session: string) => MockControls,
  ready: Promise<void>,
  startedAtMs: number,
): MockApp {
  const { config, store, baseClock, auth } = runtime;
  let stopExampleWarnings = exampleWarnings(runtime);
  return {
    get spec() {
      return runtime.served.spec;
    },
    config,
    get basePath() {
      return runtime.served.basePath;
    },
    store,
    controls: controlsFor(defaultSessionName),
    controlsFor(session) {
      if (!sessionNamePattern.test(session)) throw new HttpError('invalid_session', invalidSessionMessage(session));
      return controlsFor(session);
    },
    baseClock,
    startupKeys: auth.startupKeys,
    replaceSpec(next) {
      // Compiled whole before anything is swapped: a spec that cannot be served changes nothing.
      const spec = isCompiledSpec(next) ? next : compileSpec(next);
      runtime.served = serveSpec(spec, config, startedAtMs, runtime.data);
      for (const warning of spec.definition.warnings) runtime.logger.warn(warning);
      stopExampleWarnings();
      stopExampleWarnings = exampleWarnings(runtime);
    },
    needsBody: (request) => needsBody(runtime, request),
    anonymousHead: (clientAddress) => anonymousHead(runtime, defaultSessionName, clientAddress, baseClock.now()),
    ready,
    close: () => {
      stopExampleWarnings();
      return store.close();
    },
    handle(request) {
      try {
        return Promise.resolve(respond(runtime, request));
      } catch (error) {
        return Promise.reject(error);
      }
    },
    respond: (request) => respond(runtime, request),
  };
}

/** The controls of each session, made when first asked for; bounded like the sessions (entries are cheap to rebuild). */
function controlsBySession(runtime: ControlRuntime): (session: string) => MockControls {
  const made = new Map<string, MockControls>();
  return (session) => {
    let controls = made.get(session);
    if (!controls) {
      controls = createControls(runtime, session);
      if (made.size >= 1_000) made.delete(made.keys().next().value!);
      made.set(session, controls);
    }
    return controls;
  };
}

/**
 * The startup scenarios, the config's then the option's: refused here (one line) when wrong, then
 * applied in order; the promise of all of them, or null when there are none.
 */
function startupScenarios(
  options: MockAppOptions,
  runtime: ControlRuntime,
  controlsFor: (session: string) => MockControls,
): Promise<unknown> | null {
  const steps: (() => Promise<unknown>)[] = [];
  if (runtime.config.scenario !== undefined) {
    const plan = prepareScenario(runtime, runtime.config.scenario);
    steps.push(() =>
      applyScenarioPlan(runtime, defaultSessionName, plan).catch((error: unknown) => {
        throw error instanceof ScenarioError
          ? new HttpError('internal_error', `The mock's scenario could not be applied: ${error.message}`)
          : error;
      }),
    );
  }
  if (options.startupScenario !== undefined) {
    const { input, session = defaultSessionName } = options.startupScenario;
    if (!sessionNamePattern.test(session)) throw new HttpError('invalid_session', invalidSessionMessage(session));
    // YAML text in a page, before its YAML reader has loaded: checked as it is applied (`ready` rejects).
    if (typeof input !== 'string' || yamlModuleAvailable()) prepareScenario(runtime, input, 'scenario option');
    // Applied as POST /__mock/scenario would be, with the keys the session already has.
    steps.push(() =>
      controlsFor(session)
        .applyScenario(input)
        .catch((error: unknown) => {
          throw error instanceof HttpError && error.code === 'invalid_control_request'
            ? new HttpError('internal_error', `Failed to apply the scenario option: ${error.message}`)
            : error;
        }),
    );
  }
  if (steps.length === 0) return null;
  return steps.reduce<Promise<unknown>>((previous, step) => previous.then(step), Promise.resolve());
}

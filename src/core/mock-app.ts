import type { OpenApiDocument } from '../../spec/openapi-types.js';
import type { NewCategory } from '../../spec/schemas.js';
import { createAuthenticator, type Authenticator, type Credentials, type StartupKey } from './pipeline/auth.js';
import { forcedResponse, type ForcedResponse } from './pipeline/forced-response.js';
import { generatedResponse, petstoreOperations, type OperationResult, type StatefulOperation } from './pipeline/operations.js';
import { createResponseShaper, type ResponseShaper } from './wire/response-shaping.js';
import { seedCategories } from './spec/seeding.js';
import { afterSunsetMode, applyScenarioPlan, prepareScenario, ScenarioError, type ScenarioInput } from './controls/scenario.js';
import { systemClock } from './clock.js';
import { compileSpec, isCompiledSpec, type CompiledOperation, type CompiledSpec } from './spec/compiled-spec.js';
import { controlAccessAllowed, createControls, handleControlRequest, type ControlRuntime, type MockControls } from './controls/control-api.js';
import { createDataGenerator, type DataGenerator } from './spec/data-generator.js';
import { HttpError } from './errors.js';
import { createMemoryStore } from './state/memory-store.js';
import { createLabSessions, type LabSessions } from './controls/lab-sessions.js';
import { parseMockConfig, type MockConfig, type MockConfigInput } from './config/mock-config.js';
import { parsePrefer, type Preferences } from './wire/prefer-header.js';
import type { RateDecision } from './state/rate-limiter.js';
import { assertJsonContentType, decodeJsonBody, isJsonContentType, type DecodedJsonBody } from './wire/request-body.js';
import { maxExportBodyBytes, type RecordedRequest, type ReplayFields } from './state/request-log.js';
import { createRouter, type RouteMatch } from './spec/router.js';
import { defaultSessionName, sessionNamePattern } from './state/sessions.js';
import { storeOptionsFromConfig } from './state/store-options.js';
import { TooManySessionsError, type HitInput, type HitResult, type StateStore, type StateStoreOptions } from './state/state-store.js';
import { silentLogger, type Clock, type Logger, type MockRequest, type MockResponse } from './types.js';

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

/** What an observer sees of one API request. */
export interface RequestEvent {
  session: string;
  /** Virtual time of the session when the request was counted (base time when the store failed). */
  nowMs: number;
  request: MockRequest;
  response: MockResponse;
  /** The matched operation, or null (404, 405, refused before routing). */
  operationId: string | null;
  /** The response was forced with `Prefer` (not organic). */
  forced: boolean;
  /** The store's answer (decision, key, client, history); null when the store failed. */
  hit: HitResult | null;
}

export type RequestObserver = (event: RequestEvent) => void;

/**
 * One mock of the Petstore API: an asynchronous function from request to response. The pipeline
 * (session, auth, one store round trip, routing, checks, forced responses, operations, shaping) is
 * here; each step is a component of its own (`src/core/components/*`, `control-api.ts`) and the
 * state is in a `StateStore`. Transports (node:http, MSW) only translate.
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
export function mockStoreOptions(options: Pick<MockAppOptions, 'spec' | 'config' | 'seed' | 'initialCategories'>): StateStoreOptions {
  const spec = isCompiledSpec(options.spec) ? options.spec : compileSpec(options.spec);
  const config = parseMockConfig(options.config);
  const seeds = seedCategories(spec, createDataGenerator(options.seed ?? 1), { count: config.seedCategories, initialCategories: options.initialCategories });
  return storeOptionsFromConfig(config, seeds, config.sessions);
}

export function createMockApp(options: MockAppOptions): MockApp {
  // What the spec decides (routes, base path, deprecation headers) is swapped whole by replaceSpec();
  // everything else outlives a reload.
  let spec = isCompiledSpec(options.spec) ? options.spec : compileSpec(options.spec);
  // Decoding is idempotent, so an already decoded config (from readConfigFile) goes through it again safely.
  const config = parseMockConfig(options.config);
  const logger = options.logger ?? silentLogger;
  const baseClock = options.clock ?? systemClock;
  let basePath = spec.basePath;
  // Made once (and on reload), not a template string on every request.
  let basePathSlash = `${basePath}/`;
  let route = createRouter(spec.operations);
  const data = createDataGenerator(options.seed ?? 1);
  const seeds = seedCategories(spec, data, { count: config.seedCategories, initialCategories: options.initialCategories });
  const storeOptions = storeOptionsFromConfig(config, seeds, config.sessions);
  const store = options.store === undefined ? createMemoryStore(storeOptions) : typeof options.store === 'function' ? options.store(storeOptions) : options.store;
  const auth: Authenticator = createAuthenticator(config);
  const shaper: ResponseShaper = createResponseShaper(config, logger);
  // A Map: an object looked up by a variable key takes V8's generic keyed path on every request.
  const operations: ReadonlyMap<string, StatefulOperation> = new Map(Object.entries(petstoreOperations));
  const observers = options.observers ?? [];
  const startedAt = baseClock.now();
  let dropsLogged = false;
  let evictionsLogged = false;
  const lab: LabSessions = createLabSessions({
    maxSessions: store.options.maxSessions + 1,
    banPolicy: { enabled: config.ban.enabled, threshold: config.ban.threshold, durationMs: config.ban.durationSeconds * 1000 },
    anonymous: config.anonymous,
  });

  const controlRuntime: ControlRuntime = {
    lab,
    startupKeys: auth.startupKeys,
    // The demo keys are public: the lab shows them by name, every other key masked.
    demoKeyNames: auth.servedDemoKeys,
    ...(options.dashboardPage ? { dashboardPage: options.dashboardPage } : {}),
    store,
    config,
    auth,
    baseNow: () => baseClock.now(),
    sunsets: () => deprecatedSunsets,
    afterReset: (session) => {
      lab.reset(session);
      // The fake-data sequence starts over with the default session (it is shared by all sessions).
      if (session === defaultSessionName) {
        data.reset();
        seedCategories(spec, data, { count: config.seedCategories, initialCategories: options.initialCategories });
        dropsLogged = false;
        evictionsLogged = false;
      }
    },
  };
  const controlsBySession = new Map<string, MockControls>();
  const controlsFor = (session: string): MockControls => {
    let controls = controlsBySession.get(session);
    if (!controls) {
      controls = createControls(controlRuntime, session);
      // Bounded like the sessions themselves (a cache: entries are cheap to rebuild).
      if (controlsBySession.size >= 1_000) controlsBySession.delete(controlsBySession.keys().next().value!);
      controlsBySession.set(session, controls);
    }
    return controls;
  };

  function deprecationHeadersOf(spec: CompiledSpec): Map<string, Record<string, string>> {
    for (const operationId of Object.keys(config.deprecation)) {
      const operation = spec.operations.find((candidate) => candidate.operationId === operationId);
      if (!operation?.deprecated) {
        throw new Error(`Failed to load config: deprecation.${operationId}: ${operation ? 'that operation is not deprecated in the spec' : 'no operation has that operationId'}`);
      }
    }
    const byOperation = new Map<string, Record<string, string>>();
    for (const operation of spec.operations) {
      const headers: Record<string, string> = {};
      if (operation.stability) headers['X-Stability'] = operation.stability;
      if (operation.deprecated) {
        const dates = { ...operation.deprecation, ...config.deprecation[operation.operationId] };
        const deprecatedAt = dates.deprecatedAt ? Date.parse(dates.deprecatedAt) : startedAt;
        // RFC 9745: Deprecation is a structured-field date, "@" + Unix seconds.
        headers.Deprecation = `@${Math.floor(deprecatedAt / 1000)}`;
        // RFC 8594: Sunset is an HTTP-date.
        if (dates.sunset) headers.Sunset = new Date(Date.parse(dates.sunset)).toUTCString();
      }
      if (Object.keys(headers).length > 0) byOperation.set(operation.operationId, headers);
    }
    return byOperation;
  }
  let deprecationHeaders = deprecationHeadersOf(spec);

  /** The sunset (ISO, or null when none is set) of each deprecated operation, for the lab. */
  function sunsetsOf(spec: CompiledSpec): Map<string, string | null> {
    const sunsets = new Map<string, string | null>();
    for (const operation of spec.operations) {
      if (!operation.deprecated) continue;
      const sunset = config.deprecation[operation.operationId]?.sunset ?? operation.deprecation?.sunset;
      sunsets.set(operation.operationId, sunset === undefined ? null : new Date(Date.parse(sunset)).toISOString());
    }
    return sunsets;
  }
  let deprecatedSunsets = sunsetsOf(spec);
  // The same dates in milliseconds, for the per-request check (only operations with a sunset).
  let deprecatedSunsetMs = sunsetMillisecondsOf(deprecatedSunsets);
  // The startup scenarios, the config's then the option's: refused here (one line) when wrong, applied
  // before the first request is answered (handle() waits for them; a failure is every request's answer).
  const startupSteps: (() => Promise<unknown>)[] = [];
  if (config.scenario !== undefined) {
    const plan = prepareScenario(controlRuntime, config.scenario);
    startupSteps.push(() =>
      applyScenarioPlan(controlRuntime, defaultSessionName, plan).catch((error: unknown) => {
        throw error instanceof ScenarioError ? new HttpError('internal_error', `The mock's scenario could not be applied: ${error.message}`) : error;
      }),
    );
  }
  if (options.startupScenario !== undefined) {
    const { input, session = defaultSessionName } = options.startupScenario;
    if (!sessionNamePattern.test(session)) throw new HttpError('invalid_session', invalidSessionMessage(session));
    prepareScenario(controlRuntime, input, 'scenario option');
    // Applied as POST /__mock/scenario would be, with the keys the session already has.
    startupSteps.push(() =>
      controlsFor(session)
        .applyScenario(input)
        .catch((error: unknown) => {
          throw error instanceof HttpError && error.code === 'invalid_control_request' ? new HttpError('internal_error', `Failed to apply the scenario option: ${error.message}`) : error;
        }),
    );
  }
  let startupScenario: Promise<unknown> | null =
    startupSteps.length === 0
      ? null
      : startupSteps
          .reduce<Promise<unknown>>((previous, step) => previous.then(step), Promise.resolve())
          .then(() => {
            startupScenario = null;
          });
  const ready = startupScenario === null ? Promise.resolve() : startupScenario.then(() => undefined);
  // Reported by whoever awaits `ready` (the CLI exits 2) and by every request (503 or 500, logged).
  ready.catch(() => undefined);

  interface Served {
    response: MockResponse;
    operationId: string | null;
    forced: boolean;
    hit: HitResult | null;
    plan: string;
    key: string | null;
    nowMs: number;
    /** The matched operation's path in the spec (for the lab's coverage). */
    pathTemplate?: string | undefined;
    /** How the lab shows the client: a demo key by name. */
    display?: string | undefined;
    /** Who sent it, for the export: the key's digest (never the key), the auth kind, the limits counted against. */
    sender?: Pick<ReplayFields, 'keyDigest' | 'auth' | 'limits'>;
    /** The body as the core decoded it (UTF-8, valid), so the export need not decode it again. */
    bodyText?: string | undefined;
  }

  /**
   * `path` is relative to the base path, or null when the request is outside the API. Answers at
   * once when the store can (memory), else after its one round trip.
   */
  function serveApi(request: MockRequest, session: string, baseTimeMs: number, fullPath: string, path: string | null, queryString: string): Served | Promise<Served> {
    const credentials = auth.credentials(request.headers.authorization);
    // Everything that needs no state is judged before the one store round trip; an error found here
    // is thrown after it, in the interface's order (a 429 still wins over a 400).
    const match = path === null ? null : route(request.method, path);
    const operation = match?.kind === 'operation' ? match.operation : undefined;
    let pureError: unknown;
    let forced: ForcedResponse | undefined;
    let body: unknown;
    let bodyText: string | undefined;
    let storeWork: HitInput['categories'];
    if (operation) {
      try {
        if (request.bodyTooLarge) throw new HttpError('payload_too_large', `Request body exceeds ${config.maxBodyBytes} bytes`);
        const preferHeader = request.headers.prefer;
        const preferences = preferHeader === undefined ? noPreferences : parsePrefer(preferHeader);
        forced = forcedResponse(operation, preferences, data);
        if (!forced) {
          if (operation.parameters.length > 0) validateParameters(operation, match!.kind === 'operation' ? match!.pathParams : {}, new URLSearchParams(queryString));
          const read = validatedBody(request, operation);
          if (read !== undefined) {
            body = read.value;
            bodyText = read.text;
          }
          storeWork = operations.get(operation.operationId)?.storeWork(operation, body, read?.valueJson);
        }
      } catch (error) {
        pureError = error;
        forced = undefined;
      }
    }

    const hitInput: HitInput = {
      baseTimeMs,
      clientAddress: request.clientAddress ?? 'local',
      keyDigest: credentials.kind === 'token' ? credentials.digestHex : undefined,
      configKey: credentials.kind === 'token' ? credentials.configKey : undefined,
      categories: storeWork,
    };
    const immediate = store.immediate;
    if (immediate === undefined) {
      return store.hit(session, hitInput).then(
        (hit) => answerAfterHit(request, session, baseTimeMs, hit, credentials, match, operation, pureError, forced, body, bodyText, fullPath),
        (error: unknown) => storeFailed(error, request, baseTimeMs, credentials, operation),
      );
    }
    // No closures on this path: it runs for every request of the in-memory mock.
    let hit: HitResult;
    try {
      hit = immediate.hit(session, hitInput);
    } catch (error) {
      return storeFailed(error, request, baseTimeMs, credentials, operation);
    }
    return answerAfterHit(request, session, baseTimeMs, hit, credentials, match, operation, pureError, forced, body, bodyText, fullPath);
  }

  function storeFailed(error: unknown, request: MockRequest, baseTimeMs: number, credentials: Credentials, operation: CompiledOperation | undefined): Served | Promise<Served> {
    const failed: Served = {
      response: shaper.errorResponse(error, {}, baseTimeMs),
      operationId: operation?.operationId ?? null,
      forced: false,
      hit: null,
      plan: 'anonymous',
      key: credentials.kind === 'token' ? auth.masked(credentials.token) : null,
      nowMs: baseTimeMs,
    };
    if (!(error instanceof TooManySessionsError)) return failed;
    // Refused a session, the store still answers for the default one: the budget headers come from there.
    return withBudgetHeaders(failed.response, request.clientAddress, baseTimeMs).then((response) => ({ ...failed, response }));
  }

  /** The rest of the pipeline, once the store has counted the request: pure, no more store calls. */
  function answerAfterHit(
    request: MockRequest,
    session: string,
    baseTimeMs: number,
    hit: HitResult,
    credentials: Credentials,
    match: RouteMatch | null,
    operation: CompiledOperation | undefined,
    pureError: unknown,
    forced: ForcedResponse | undefined,
    body: unknown,
    bodyText: string | undefined,
    fullPath: string,
  ): Served | Promise<Served> {
    const { decision, key, nowMs } = hit;
    if (hit.trackedClientsDropped !== undefined && !evictionsLogged) {
      evictionsLogged = true;
      logger.warn(`More than maxTrackedClients (${config.maxTrackedClients}) anonymous clients: the least recently seen are forgotten from now on (their budgets start over), counted in GET /__mock/health`);
    }
    // Every response gets its own fresh headers object, so the steps below add to it in place.
    const headers = shaper.rateLimitHeaders(decision, nowMs);
    // One object for every answer of this request, its response set by answeredWith: no closure, no spreads.
    const served: Served = {
      response: noResponseYet,
      operationId: operation === undefined ? null : operation.operationId,
      forced: false,
      hit,
      plan: key === null ? 'anonymous' : key.plan,
      key: key !== null ? key.masked : credentials.kind === 'token' ? auth.masked(credentials.token) : null,
      nowMs,
      pathTemplate: operation === undefined ? undefined : operation.pathTemplate,
      display: key !== null && credentials.kind === 'token' ? credentials.demoKey : undefined,
      sender: {
        keyDigest: key !== null && credentials.kind === 'token' ? credentials.digestHex : null,
        auth: key !== null ? 'key' : request.headers.authorization !== undefined ? 'invalid' : 'none',
        limits: key !== null ? key.limits : config.anonymous,
      },
      bodyText,
    };

    try {
      if (decision.outcome === 'banned') {
        return answeredWith(served, shaper.refusal('key_banned', `Too many requests after a 429: ${key ? 'this API key' : 'this client'} is banned for ${decision.retryAfterSeconds} seconds`, headers, nowMs));
      }
      if (decision.outcome === 'limited') {
        return answeredWith(served, shaper.refusal('rate_limited', `Rate limit exceeded; retry after ${decision.retryAfterSeconds} seconds and back off exponentially`, headers, nowMs));
      }
      if (match === null) throw new HttpError('not_found', `No resource at ${fullPath.slice(0, 200)}; the API is served under ${basePath}`);
      if (match.kind === 'not-found') throw new HttpError('not_found', `No resource at ${fullPath.slice(0, 200)}`);
      if (match.kind === 'method-not-allowed') {
        throw new HttpError('method_not_allowed', `${request.method.slice(0, 20)} is not allowed on ${fullPath.slice(0, 200)}; allowed: ${match.allow.join(', ')}`, { Allow: match.allow.join(', ') });
      }
      const operationHeaders = deprecationHeaders.get(match.operation.operationId);
      if (operationHeaders) Object.assign(headers, operationHeaders);
      if (match.operation.requiresAuth && !key) return answeredWith(served, shaper.refusal('unauthorized', credentials.kind === 'none' ? credentials.failure : 'Invalid API key', headers, nowMs));
      const matched = match;
      // Past its sunset date a deprecated operation may be gone (`sunset.afterSunset`): only then is
      // the session's setting read, so no other request waits for the store.
      const sunsetMs = operationHeaders ? deprecatedSunsetMs.get(matched.operation.operationId) : undefined;
      if (sunsetMs !== undefined && nowMs > sunsetMs) {
        return afterSunsetMode(controlRuntime, session, baseTimeMs).then(
          (mode) => (mode === 'gone' ? answeredWith(served, shaper.errorResponse(sunsetGone(matched.operation), headers, nowMs)) : serveOperation(served, headers, hit, matched, pureError, forced, body)),
          (error: unknown) => answeredWith(served, shaper.errorResponse(error, headers, nowMs)),
        );
      }
      return serveOperation(served, headers, hit, matched, pureError, forced, body);
    } catch (error) {
      return answeredWith(served, shaper.errorResponse(error, headers, nowMs));
    }
  }

  /** The operation's own answer (stateful, forced or generated), or the error judged before the store. */
  function serveOperation(served: Served, headers: Record<string, string>, hit: HitResult, match: RouteMatch & { kind: 'operation' }, pureError: unknown, forced: ForcedResponse | undefined, body: unknown): Served {
    const { nowMs } = hit;
    try {
      if (pureError !== undefined) throw pureError;
      if (forced) {
        if (forced.status === 429) Object.assign(headers, spentHeaders(hit.decision, nowMs));
        return answeredWith(served, shaper.finish(forced.status, forced.body(), headers, nowMs), true);
      }
      const stateful = operations.get(match.operation.operationId);
      const result: OperationResult = stateful ? stateful.respond({ operation: match.operation, body, pathParams: match.pathParams, hit, basePath, data, headers }) : generatedResponse({ operation: match.operation, data });
      if (hit.created && hit.created.dropped > 0 && !dropsLogged) {
        dropsLogged = true;
        logger.warn(`The category store is full (maxCategories ${config.maxCategories}, maxCategoryBytes ${config.maxCategoryBytes}): the oldest categories are dropped from now on, counted in GET /__mock/health (POST /__mock/reset starts over)`);
      }
      return answeredWith(served, shaper.finish(result.status, result.body, headers, nowMs));
    } catch (error) {
      return answeredWith(served, shaper.errorResponse(error, headers, nowMs));
    }
  }

  function sunsetGone(operation: CompiledOperation): HttpError {
    const sunset = deprecatedSunsets.get(operation.operationId);
    return new HttpError('operation_sunset', `${operation.method.toUpperCase()} ${operation.pathTemplate} (${operation.operationId}) was sunset on ${sunset}; it is no longer served`);
  }

  /** A forced 429 shows the reported window spent, in the IETF fields too. */
  function spentHeaders(decision: RateDecision, nowMs: number): Record<string, string> {
    const windows = decision.windows.map((window) => (window.resetAtMs === decision.resetAtMs ? { ...window, remaining: 0 } : window));
    return shaper.rateLimitHeaders({ ...decision, outcome: 'limited', remaining: 0, windows }, nowMs);
  }

  /** The request's body, decoded and validated, with its text; undefined when the operation takes none or none came. */
  function validatedBody(request: MockRequest, operation: CompiledOperation): DecodedJsonBody | undefined {
    if (!operation.requestBody) return undefined;
    // A body the transport did not read (it answers from the head alone) is judged by its head.
    const contentType = request.headers['content-type'];
    if (request.bodyUnread) assertJsonContentType(contentType);
    const decoded = decodeJsonBody(request.body, contentType, operation.requestBody.required, operation.requestBody.compactNames);
    if (!decoded.present) return undefined;
    const validator = operation.requestBody.validator;
    // The issues are built only for a body that fails (safeParse); a valid one is checked and kept as it is.
    if (!validator.isValid(decoded.value)) {
      const result = validator.safeParse(decoded.value);
      throw new HttpError('validation_failed', `Invalid request body: ${result.success ? 'it does not match the schema' : describeBodyIssues(result.error.issues, decoded.value)}`);
    }
    return decoded;
  }

  function validateParameters(operation: CompiledOperation, pathParams: Readonly<Record<string, string>>, query: URLSearchParams) {
    for (const parameter of operation.parameters) {
      const text = parameter.in === 'path' ? pathParams[parameter.name] : (query.get(parameter.name) ?? undefined);
      if (text === undefined) {
        if (parameter.required) throw new HttpError('invalid_parameter', `Missing required ${parameter.in} parameter ${parameter.name}`);
        continue;
      }
      const value = parameter.coerce(text);
      if (parameter.validator.isValid(value)) continue;
      const result = parameter.validator.safeParse(value);
      throw new HttpError('invalid_parameter', `Invalid ${parameter.in} parameter ${parameter.name}: ${result.success ? 'invalid value' : (result.error.issues[0]?.message ?? 'invalid value')}`);
    }
  }

  /** Date of the session's virtual clock; the base time when the store cannot say. */
  async function sessionNow(session: string, baseTimeMs: number): Promise<number> {
    try {
      return baseTimeMs + (await store.clockOffset(session, baseTimeMs));
    } catch {
      return baseTimeMs;
    }
  }

  /**
   * An answer given before any session's budget is counted (an invalid or refused session): every
   * response carries X-RateLimit-* (interface section 8), so it reports the caller's anonymous budget
   * in the default session, without counting the request.
   */
  async function withBudgetHeaders(response: MockResponse, clientAddress: string | undefined, baseTimeMs: number): Promise<MockResponse> {
    const { Date: _date, ...budget } = await anonymousHead(defaultSessionName, clientAddress, baseTimeMs);
    return { ...response, headers: { ...budget, ...response.headers } };
  }

  async function anonymousHead(session: string, clientAddress: string | undefined, baseTimeMs: number): Promise<Record<string, string>> {
    try {
      const [decision, offset] = await Promise.all([store.peekAnonymous(session, clientAddress ?? 'local', baseTimeMs), store.clockOffset(session, baseTimeMs)]);
      return { Date: shaper.httpDate(baseTimeMs + offset), ...shaper.rateLimitHeaders(decision, baseTimeMs + offset) };
    } catch {
      return { Date: shaper.httpDate(baseTimeMs) };
    }
  }

  const app: MockApp = {
    get spec() {
      return spec;
    },
    config,
    get basePath() {
      return basePath;
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
      const compiled = isCompiledSpec(next) ? next : compileSpec(next);
      // Everything that can throw runs before anything is swapped.
      const nextRoute = createRouter(compiled.operations);
      const nextDeprecationHeaders = deprecationHeadersOf(compiled);
      spec = compiled;
      deprecatedSunsets = sunsetsOf(compiled);
      deprecatedSunsetMs = sunsetMillisecondsOf(deprecatedSunsets);
      basePath = compiled.basePath;
      basePathSlash = `${basePath}/`;
      route = nextRoute;
      deprecationHeaders = nextDeprecationHeaders;
    },
    async needsBody(request) {
      const path = pathOf(request.url);
      if (isControlPath(path)) return !request.bodyTooLarge && controlAccessAllowed(request, config);
      const insideApi = path === basePath || path.startsWith(basePathSlash) || basePath === '';
      if (!insideApi || request.bodyTooLarge) return false;
      const match = route(request.method, path.slice(basePath.length) || '/');
      if (match.kind !== 'operation') return false;
      const contentType = request.headers['content-type'];
      if (match.operation.requestBody !== undefined && (contentType === undefined || !isJsonContentType(contentType))) return false;
      const named = request.headers['x-mock-session'];
      const session = named === undefined ? defaultSessionName : named;
      if (!sessionNamePattern.test(session)) return false;
      const credentials = auth.credentials(request.headers.authorization);
      const baseTimeMs = baseClock.now();
      try {
        // A key added at run time lives in the store, per session: only a token known nowhere is a 401.
        const known = credentials.kind === 'token' && (credentials.configKey !== undefined || (await store.listKeys(session, baseTimeMs)).some((entry) => entry.id === credentials.digestHex.slice(0, 32)));
        if (match.operation.requiresAuth && !known) return false;
        if (!known) {
          const decision = await store.peekAnonymous(session, request.clientAddress ?? 'local', baseTimeMs);
          if (decision.outcome !== 'allowed' || decision.remaining <= 0) return false;
        }
        return true;
      } catch {
        return true;
      }
    },
    anonymousHead: (clientAddress) => anonymousHead(defaultSessionName, clientAddress, baseClock.now()),
    ready,
    close: () => store.close(),
    handle(request) {
      try {
        return Promise.resolve(respond(request));
      } catch (error) {
        return Promise.reject(error);
      }
    },
    respond,
  };

  /** `MockApp.respond`: the pipeline, in the same turn of the event loop when the store allows. */
  function respond(request: MockRequest): MockResponse | Promise<MockResponse> {
    const baseTimeMs = baseClock.now();
    const questionMark = request.url.indexOf('?');
    const path = pathOf(request.url);
    const named = request.headers['x-mock-session'];
    const session = named === undefined ? defaultSessionName : named;
    if (startupScenario !== null) {
      // The config's scenario is still being applied: nothing is answered before it (or its failure).
      return startupScenario.then(
        () => respond(request),
        async (error: unknown) => finishServed(request, path, session, named, baseTimeMs, await failedServed(error, session, baseTimeMs, isControlPath(path))),
      );
    }
    // The default session's name is ours and valid: only a name the client sent is checked.
    if (named !== undefined && !sessionNamePattern.test(named)) {
      const refusal = shaper.errorResponse(new HttpError('invalid_session', invalidSessionMessage(session)), {}, baseTimeMs, !isControlPath(path) && config.cors);
      return isControlPath(path) ? refusal : withBudgetHeaders(refusal, request.clientAddress, baseTimeMs);
    }
    if (isControlPath(path) || (request.method === 'OPTIONS' && config.cors && request.headers['access-control-request-method'] !== undefined)) {
      return respondOffTheApi(request, path, session, named, baseTimeMs);
    }
    let served: Served | Promise<Served>;
    try {
      const insideApi = path === basePath || path.startsWith(basePathSlash) || basePath === '';
      served = serveApi(request, session, baseTimeMs, path, insideApi ? path.slice(basePath.length) || '/' : null, questionMark === -1 ? '' : request.url.slice(questionMark + 1));
    } catch (error) {
      served = failedServed(error, session, baseTimeMs, false);
    }
    return served instanceof Promise ? served.then((result) => finishServed(request, path, session, named, baseTimeMs, result)) : finishServed(request, path, session, named, baseTimeMs, served);
  }

  /** The controls and the CORS preflight: neither is counted, so neither is on the hot path. */
  async function respondOffTheApi(request: MockRequest, path: string, session: string, named: string | undefined, baseTimeMs: number): Promise<MockResponse> {
    let served: Served;
    try {
      if (isControlPath(path)) {
        // No CORS on the controls: other websites must not drive them through the developer's browser.
        const result = await handleControlRequest(request, path, session, controlRuntime);
        const nowMs = await sessionNow(session, baseTimeMs);
        let response: MockResponse;
        if (result.contentType === undefined) response = shaper.finish(result.status, result.body, { ...result.headers }, nowMs, false);
        else {
          // Text already encoded (the JUnit report, the export, the dashboard and its page): sent as it is.
          response = shaper.finish(result.status, undefined, { ...result.headers, 'Content-Type': result.contentType }, nowMs, false);
          if (result.status === 304 || result.body === null) delete response.headers['Content-Type'];
          response.body = result.status === 304 || result.body === null ? null : String(result.body);
        }
        served = { response, operationId: null, forced: false, hit: null, plan: 'control', key: null, nowMs };
      } else {
        // CORS preflight: browsers send it without credentials, so it is neither authenticated nor
        // counted; it still reports the caller's anonymous budget, like every response under /v1.
        return {
          status: 204,
          headers: { ...(await anonymousHead(session, request.clientAddress, baseTimeMs)), ...shaper.cors, 'Access-Control-Allow-Methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS', 'Access-Control-Allow-Headers': request.headers['access-control-request-headers'] ?? '*', 'Access-Control-Max-Age': '600' },
          body: null,
        };
      }
    } catch (error) {
      served = await failedServed(error, session, baseTimeMs, isControlPath(path));
    }
    return finishServed(request, path, session, named, baseTimeMs, served);
  }

  /** An error no step turned into an answer, answered in the API's Error shape. */
  async function failedServed(error: unknown, session: string, baseTimeMs: number, isControl: boolean): Promise<Served> {
    const nowMs = await sessionNow(session, baseTimeMs);
    return { response: shaper.errorResponse(error, {}, nowMs, !isControl && config.cors), operationId: null, forced: false, hit: null, plan: isControl ? 'control' : 'anonymous', key: null, nowMs };
  }

  /** What every answer goes through: the session header, the request log, the lab and the observers. */
  function finishServed(request: MockRequest, path: string, session: string, named: string | undefined, baseTimeMs: number, served: Served): MockResponse {
    const { response } = served;
    if (named !== undefined) response.headers['X-Mock-Session'] = session;
    const entry: RecordedRequest = { timeMs: served.nowMs, method: request.method.slice(0, 20), path: path.slice(0, 300), operationId: served.operationId, plan: served.plan, key: served.key, status: response.status, code: errorCodeOf(response) };
    if (served.sender) entry.replay = replayFieldsOf(request, served.sender, served.bodyText);
    // The log is written after the answer is decided and never delays it; a store that fails here
    // has already failed (or will fail) the requests that matter, which answer 503.
    const immediate = store.immediate;
    if (immediate === undefined) store.appendRequest(session, entry, baseTimeMs).catch(() => {});
    else {
      try {
        immediate.appendRequest(session, entry, baseTimeMs);
      } catch {
        // As above: the answer stands.
      }
    }
    if (logger.verbose) logger.debug(`${entry.method} ${entry.path} -> ${entry.status}${entry.code ? ` ${entry.code}` : ''} (${session === defaultSessionName ? '' : `session ${session}, `}${entry.plan}${entry.key ? ` ${entry.key}` : ''})`);
    if (served.hit !== null && served.plan !== 'control') {
      try {
        const operationId = served.operationId;
        lab.observe(session, {
          hit: served.hit,
          method: entry.method,
          path: entry.path,
          operationId,
          pathTemplate: served.pathTemplate,
          status: response.status,
          forced: served.forced,
          deprecatedSunset: operationId === null ? undefined : deprecatedSunsets.get(operationId),
          display: served.display,
        });
      } catch (error) {
        logger.error(`The rate-limit lab failed to observe a request: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    if (observers.length > 0 && served.plan !== 'control') {
      const event: RequestEvent = { session, nowMs: served.nowMs, request, response, operationId: served.operationId, forced: served.forced, hit: served.hit };
      for (const observer of observers) {
        try {
          observer(event);
        } catch (error) {
          logger.error(`A request observer failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    }
    return response;
  }

  return app;
}

function invalidSessionMessage(name: string): string {
  return `Invalid X-Mock-Session ${JSON.stringify(name.slice(0, 80))}: 1-64 letters, digits, ".", "_", ":" or "-", starting with a letter or digit`;
}

const noPreferences: Preferences = Object.freeze({});

function isControlPath(path: string): boolean {
  return path === '/__mock' || path.startsWith('/__mock/');
}

/** The path of a request target, query and trailing slashes removed. */
function pathOf(url: string): string {
  const questionMark = url.indexOf('?');
  const rawPath = questionMark === -1 ? url : url.slice(0, questionMark);
  let end = rawPath.length;
  while (end > 1 && rawPath.charCodeAt(end - 1) === 47) end -= 1;
  return rawPath.slice(0, end);
}

function sunsetMillisecondsOf(sunsets: ReadonlyMap<string, string | null>): Map<string, number> {
  const millis = new Map<string, number>();
  for (const [operationId, sunset] of sunsets) if (sunset !== null) millis.set(operationId, Date.parse(sunset));
  return millis;
}

/** What a Served holds until answeredWith gives it its response. */
// Frozen through: a path that forgot answeredWith throws at the first header written, instead of sharing state.
const noResponseYet: MockResponse = Object.freeze({ status: 500, headers: Object.freeze({}), body: null }) as MockResponse;

function answeredWith<T extends { response: MockResponse; forced: boolean }>(served: T, response: MockResponse, forced = false): T {
  served.response = response;
  served.forced = forced;
  return served;
}

const textDecoder = new TextDecoder();

/** What the export needs to replay a request (the body cut to the export's bound). */
function replayFieldsOf(request: MockRequest, sender: Pick<ReplayFields, 'keyDigest' | 'auth' | 'limits'>, bodyText: string | undefined): ReplayFields {
  let body: string | null = null;
  if (request.body !== null && !request.bodyUnread && !request.bodyTooLarge) {
    // The text the core decoded is the same UTF-8 decoding; usable whole when it surely fits the bound (at most 3 bytes a UTF-16 unit).
    body = bodyText !== undefined && bodyText.length * 3 <= maxExportBodyBytes ? bodyText : textDecoder.decode(request.body.subarray(0, maxExportBodyBytes));
  }
  return {
    url: request.url.slice(0, 2_000),
    keyDigest: sender.keyDigest,
    auth: sender.auth,
    limits: sender.limits,
    clientAddress: request.clientAddress ?? null,
    prefer: request.headers.prefer?.slice(0, 200) ?? null,
    contentType: request.headers['content-type']?.slice(0, 200) ?? null,
    body,
  };
}

function errorCodeOf(response: MockResponse): string | null {
  if (response.status < 400 || response.body === null) return null;
  // The mock's own Error bodies start with their code: read it without a regex (every 401 and 429).
  if (response.body.startsWith('{"code":"')) {
    const end = response.body.indexOf('"', 9);
    if (end > 9 && end <= 9 + 64) return response.body.slice(9, end);
  }
  const match = /"code":"([^"]{1,64})"/.exec(response.body);
  return match ? match[1]! : null;
}

function describeBodyIssues(issues: readonly { path: PropertyKey[]; message: string; code: string }[], value: unknown): string {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return `the body must be a JSON object, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`;
  }
  return issues
    .slice(0, 5)
    .map((issue) => {
      const field = issue.path.map(String).join('.') || 'body';
      const missing = issue.path.length === 1 && !Object.hasOwn(value, issue.path[0] as string);
      if (missing) return `${field} is required`;
      return `${field}: ${issue.message.replace(/^Invalid input: /, '')}`;
    })
    .join('; ');
}

export type { DataGenerator };

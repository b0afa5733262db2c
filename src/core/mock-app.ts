import type { OpenApiDocument } from '../../spec/openapi-types.js';
import { NewCategorySchema, type Category, type NewCategory } from '../../spec/schemas.js';
import { CategoryStore, type CategoryStoreStats } from './category-store.js';
import { createVirtualClock, systemClock, type VirtualClock } from './clock.js';
import { compileSpec, isCompiledSpec, type CompiledOperation, type CompiledSpec } from './compiled-spec.js';
import { controlAccessAllowed, handleControlRequest } from './control-api.js';
import { createDataGenerator } from './data-generator.js';
import { HttpError, type ErrorBody, type ErrorCode } from './errors.js';
import { KeyRegistry, maskSecret, type ApiKeyEntry } from './key-registry.js';
import { demoKeys, isoDatePattern, parseMockConfig, planLimits, type Limits, type MockConfig, type MockConfigInput } from './mock-config.js';
import { parsePrefer, type Preferences } from './prefer-header.js';
import { ietfRateLimitHeaders, RateLimiter, rateLimitHeaders as xRateLimitHeaders, type RateDecision } from './rate-limiter.js';
import { assertJsonContentType, decodeJsonBody, isJsonContentType } from './request-body.js';
import { RequestLog, type RecordedRequest, type RequestLogEntry } from './request-log.js';
import { createRouter } from './router.js';
import { silentLogger, type Clock, type Logger, type MockRequest, type MockResponse } from './types.js';

export interface MockAppOptions {
  /** The OpenAPI document (parsed) or a spec already compiled with `compileSpec`. */
  spec: OpenApiDocument | CompiledSpec;
  /** Configuration; decoded and defaulted with `parseMockConfig`. */
  config?: MockConfigInput | MockConfig;
  /** Seed of all fake data. Same seed, same data. Default 1. */
  seed?: number;
  /** Base time source; the app wraps it in a virtual clock that the controls can move forward. */
  clock?: Clock;
  /** Categories to start with instead of faker-seeded ones (also restored by reset). */
  initialCategories?: NewCategory[];
  logger?: Logger;
}

/** The control functions, the same ones `/__mock/*` serves. */
export interface MockControls {
  /** Back to the seeded state: created data, counters, bans and the request log are cleared. */
  reset(): void;
  /** Moves the virtual clock forward. */
  advanceClock(seconds: number): ClockState;
  clock(): ClockState;
  /** Adds a key (or changes the plan of an existing one). */
  addKey(input: { key: string; plan?: string; limits?: Limits }): { entry: ApiKeyEntry; created: boolean };
  keys(): ApiKeyEntry[];
  requests(): RequestLogEntry[];
  categories(): Category[];
  /** What `GET /__mock/health` says: readiness, the store's size against its bounds, and what the bounds dropped. */
  health(): HealthState;
}

export interface HealthState {
  status: 'ok';
  categories: Omit<CategoryStoreStats, 'dropped'>;
  /** Data dropped by a bound since the last reset, by kind: never silent. */
  dropped: { categories: number; trackedClients: number };
}

export interface ClockState {
  now: string;
  epochSeconds: number;
  offsetSeconds: number;
}

/**
 * One mock of the Petstore API: a function from request to response, with all state inside.
 * Transports (node:http, MSW) only translate. Two apps never share state.
 *
 * @example
 * const app = createMockApp({ spec: await readSpecFile() });
 * app.handle({ method: 'GET', url: '/v1/categories', headers: { authorization: 'Bearer demo-free' }, body: null });
 * // { status: 200, headers: { 'X-RateLimit-Limit': '60', ... }, body: '[{"id":1,...}]' }
 */
export interface MockApp {
  handle(request: MockRequest): MockResponse;
  readonly spec: CompiledSpec;
  readonly config: MockConfig;
  readonly basePath: string;
  readonly clock: VirtualClock;
  readonly controls: MockControls;
  /** The keys accepted at start; `display` is safe to print (demo keys in full, others masked). */
  readonly startupKeys: { key: string; display: string; plan: string; limits: Limits }[];
  /**
   * Serves another version of the spec from now on and keeps all state: keys, rate-limit counters
   * and bans, created data, the request log, the clock (`petstore-mock --watch`). Compiles first and
   * throws (changing nothing) if the new spec cannot be served or the config no longer fits it.
   *
   * @example app.replaceSpec(await readSpecFile('spec.yaml'));
   */
  replaceSpec(spec: OpenApiDocument | CompiledSpec): void;
  /**
   * The X-RateLimit-* headers of a client's anonymous budget, without counting a request: for
   * answers a transport gives before a request reaches the core (unparseable HTTP, say).
   */
  anonymousRateLimitHeaders(clientAddress?: string): Record<string, string>;
  /**
   * Whether the answer to a request depends on its body, judged from its head alone and counting
   * nothing: false when the head already decides the answer (401, 403, 404, 405, 413, 415, 429).
   * A transport sends `100 Continue` only when true; otherwise it answers at once, unread.
   */
  needsBody(request: MockRequest): boolean;
}

type OperationHandler = (context: OperationContext) => { status: number; body: unknown; headers?: Record<string, string> };

interface OperationContext {
  operation: CompiledOperation;
  body: unknown;
  pathParams: Record<string, string>;
}

const corsHeaders = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Location, Deprecation, Sunset, Allow',
};

/** The code a forced error status (`Prefer: code=...`) carries: the most typical one of that status. */
const forcedErrorCodes: Partial<Record<number, ErrorCode>> = {
  400: 'validation_failed',
  401: 'unauthorized',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  500: 'internal_error',
};

export function createMockApp(options: MockAppOptions): MockApp {
  // What the spec decides (routes, base path, deprecation headers) is swapped whole by replaceSpec();
  // everything else below is state that outlives a reload.
  let spec = isCompiledSpec(options.spec) ? options.spec : compileSpec(options.spec);
  // Decoding is idempotent, so an already decoded config (from readConfigFile) goes through it again safely.
  const config = parseMockConfig(options.config);
  const logger = options.logger ?? silentLogger;
  const seed = options.seed ?? 1;
  const clock = createVirtualClock(options.clock ?? systemClock);
  let basePath = spec.basePath;
  let route = createRouter(spec.operations);
  const keys = new KeyRegistry();
  const ban = { enabled: config.ban.enabled, threshold: config.ban.threshold, durationMs: config.ban.durationSeconds * 1000 };
  // Keys and anonymous clients are tracked apart: only anonymous clients (one per address, so
  // unbounded in number) are capped, so a flood of addresses can never evict a banned key's record.
  const keyLimiter = new RateLimiter({ clock, ban, maxBuckets: Number.POSITIVE_INFINITY });
  const anonymousLimiter = new RateLimiter({ clock, ban, maxBuckets: config.maxTrackedClients });
  const store = new CategoryStore({ maxCount: config.maxCategories, maxBytes: config.maxCategoryBytes });
  const data = createDataGenerator(seed);
  const log = new RequestLog(config.requestLogSize);
  const startedAt = clock.now();
  // Every time the mock states comes from the one virtual clock, Date included: a client that
  // judges X-RateLimit-Reset or Retry-After against Date must see them agree after a clock move.
  const httpDate = new HttpDateCache();
  // The IETF RateLimit fields are opt-in (config rateLimitHeaders), next to X-RateLimit-*.
  const ietfFields = config.rateLimitHeaders.includes('ietf');
  const rateLimitHeaders = (decision: RateDecision): Record<string, string> =>
    ietfFields ? Object.assign(xRateLimitHeaders(decision), ietfRateLimitHeaders(decision, clock.now())) : xRateLimitHeaders(decision);
  const cors = ietfFields ? { ...corsHeaders, 'Access-Control-Expose-Headers': `${corsHeaders['Access-Control-Expose-Headers']}, RateLimit, RateLimit-Policy` } : corsHeaders;

  const demoKeyNames = new Set(demoKeys.map((entry) => entry.key));
  const startupKeys = [...(config.demoKeys ? demoKeys : []), ...config.keys].map((entry) => ({
    key: entry.key,
    // The demo keys are public (they are in the README); every other key is a secret.
    display: demoKeyNames.has(entry.key) ? entry.key : maskSecret(entry.key),
    plan: entry.limits && !entry.plan ? 'custom' : entry.plan!,
    limits: entry.limits ?? planLimits(config.plans, entry.plan!)!,
  }));

  let dropsLogged = false;
  let evictionsLogged = false;
  const seedStore = () => {
    store.clear();
    dropsLogged = false;
    data.reset();
    if (options.initialCategories) {
      for (const category of options.initialCategories) store.create(NewCategorySchema.parse(category));
      return;
    }
    const schema = spec.componentSchemas.Category;
    const names = new Set<string>();
    for (let index = 0; index < config.seedCategories; index += 1) {
      // The interface does not require unique names, but "giraffe" twice in a fresh mock looks like a
      // bug to whoever reads the list: a few more draws usually find another (still seeded) name.
      let generated: Partial<Category> = {};
      for (let attempt = 0; attempt < 5; attempt += 1) {
        generated = schema === undefined ? {} : (data.generate(schema, { allOptionals: true }) as Partial<Category>);
        if (typeof generated.name !== 'string' || !names.has(generated.name)) break;
      }
      const name = typeof generated.name === 'string' ? generated.name : `category-${index + 1}`;
      names.add(name);
      store.create({ name, ...(typeof generated.description === 'string' ? { description: generated.description } : {}) });
    }
  };
  const seedKeys = () => {
    keys.clear();
    for (const entry of startupKeys) keys.set(entry.key, entry.plan, entry.limits);
  };
  seedKeys();
  seedStore();

  const handlers: Record<string, OperationHandler> = {
    listCategories: () => ({ status: 200, body: new RawJson(store.listJson()) }),
    createCategory: ({ operation, body }) => {
      const category = store.create(declaredFields(operation, body) as NewCategory);
      if (store.dropped > 0 && !dropsLogged) {
        dropsLogged = true;
        logger.warn(`The category store is full (maxCategories ${config.maxCategories}, maxCategoryBytes ${config.maxCategoryBytes}): the oldest categories are dropped from now on, counted in GET /__mock/health (POST /__mock/reset starts over)`);
      }
      return { status: 201, body: category, headers: { Location: `${basePath}/categories/${category.id}` } };
    },
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

  function authenticate(header: string | undefined): { entry: ApiKeyEntry; token: string } | { failure: string; token?: string } {
    if (header === undefined) return { failure: 'Missing API key; send Authorization: Bearer <API_KEY>' };
    const match = /^([A-Za-z]+) +(\S+) *$/.exec(header);
    if (!match) return { failure: 'Malformed Authorization header; expected Bearer <API_KEY>' };
    if (match[1]!.toLowerCase() !== 'bearer') return { failure: `Unsupported authorization scheme ${match[1]!.slice(0, 20)}; expected Bearer <API_KEY>` };
    const token = match[2]!;
    const entry = keys.find(token);
    return entry ? { entry, token } : { failure: 'Invalid API key', token };
  }

  /** `path` is relative to the base path, or null when the request is outside the API. */
  function serveApi(request: MockRequest, fullPath: string, path: string | null, queryString: string): { response: MockResponse; log: Omit<RequestLogEntry, 'time' | 'method' | 'path' | 'status' | 'code'> } {
    const auth = authenticate(request.headers.authorization);
    const entry = 'entry' in auth ? auth.entry : undefined;
    const decision = entry ? keyLimiter.hit(entry.id, entry.limits) : anonymousLimiter.hit(request.clientAddress ?? 'local', config.anonymous);
    if (!entry && !evictionsLogged && anonymousLimiter.evicted > 0) {
      evictionsLogged = true;
      logger.warn(`More than maxTrackedClients (${config.maxTrackedClients}) anonymous clients: the least recently seen are forgotten from now on (their budgets start over), counted in GET /__mock/health`);
    }
    // Every response gets its own fresh headers object, so the steps below add to it in place.
    const headers: Record<string, string> = rateLimitHeaders(decision);
    let operationId: string | null = null;
    const logBase = () => ({ operationId, plan: entry?.plan ?? 'anonymous', key: entry ? entry.masked : auth.token === undefined ? null : maskSecret(auth.token) });

    try {
      if (decision.outcome === 'banned') {
        throw new HttpError('key_banned', `Too many requests after a 429: ${entry ? 'this API key' : 'this client'} is banned for ${decision.retryAfterSeconds} seconds`);
      }
      if (decision.outcome === 'limited') {
        throw new HttpError('rate_limited', `Rate limit exceeded; retry after ${decision.retryAfterSeconds} seconds and back off exponentially`);
      }
      if (path === null) throw new HttpError('not_found', `No resource at ${fullPath.slice(0, 200)}; the API is served under ${basePath}`);
      const match = route(request.method, path);
      if (match.kind === 'not-found') throw new HttpError('not_found', `No resource at ${fullPath.slice(0, 200)}`);
      if (match.kind === 'method-not-allowed') {
        throw new HttpError('method_not_allowed', `${request.method.slice(0, 20)} is not allowed on ${fullPath.slice(0, 200)}; allowed: ${match.allow.join(', ')}`, { Allow: match.allow.join(', ') });
      }
      const { operation } = match;
      operationId = operation.operationId;
      const operationHeaders = deprecationHeaders.get(operation.operationId);
      if (operationHeaders) Object.assign(headers, operationHeaders);
      if (operation.requiresAuth && !entry) throw new HttpError('unauthorized', 'failure' in auth ? auth.failure : 'Invalid API key');
      if (request.bodyTooLarge) throw new HttpError('payload_too_large', `Request body exceeds ${config.maxBodyBytes} bytes`);

      const preferHeader = request.headers.prefer;
      const preferences = preferHeader === undefined ? noPreferences : parsePrefer(preferHeader);
      const forced = forcedResponse(operation, preferences, decision);
      if (forced) return { response: finish(forced.status, forced.body, Object.assign(headers, forced.headers)), log: logBase() };

      if (operation.parameters.length > 0) validateParameters(operation, match.pathParams, new URLSearchParams(queryString));
      let body: unknown;
      if (operation.requestBody) {
        // A body the transport did not read (it answers from the head alone) is judged by its head.
        if (request.bodyUnread) assertJsonContentType(request.headers['content-type']);
        const decoded = decodeJsonBody(request.body, request.headers['content-type'], operation.requestBody.required);
        if (decoded.present) {
          const result = operation.requestBody.validator.safeParse(decoded.value);
          if (!result.success) throw new HttpError('validation_failed', `Invalid request body: ${describeBodyIssues(result.error.issues, decoded.value)}`);
          body = result.data;
        }
      }
      const handler = handlers[operation.operationId] ?? generatedResponse;
      const result = handler({ operation, body, pathParams: match.pathParams });
      return { response: finish(result.status, result.body, result.headers ? Object.assign(headers, result.headers) : headers), log: logBase() };
    } catch (error) {
      return { response: errorResponse(error, headers), log: logBase() };
    }
  }

  function generatedResponse({ operation }: OperationContext): ReturnType<OperationHandler> {
    const status = operation.successStatus ?? 200;
    const response = operation.responses.get(status);
    if (!response) return { status, body: null };
    const example = response.examples.values().next();
    if (!example.done) return { status, body: example.value };
    return { status, body: response.schema === undefined ? null : data.generate(response.schema) };
  }

  function forcedResponse(operation: CompiledOperation, preferences: Preferences, decision: RateDecision): { status: number; body: unknown; headers: Record<string, string> } | undefined {
    if (preferences.code === undefined && preferences.example === undefined && !preferences.dynamic) return undefined;
    const status = preferences.code ?? operation.successStatus ?? 200;
    const response = operation.responses.get(status);
    if (!response) {
      throw new HttpError('invalid_prefer', `Prefer: code=${status} is not declared for ${operation.operationId}; declared: ${[...operation.responses.keys()].join(', ')}`);
    }
    const headers: Record<string, string> = {};
    if (status === 429) {
      // The reported window is shown spent, in the IETF fields too.
      const windows = decision.windows.map((window) => (window.resetAtMs === decision.resetAtMs ? { ...window, remaining: 0 } : window));
      Object.assign(headers, rateLimitHeaders({ ...decision, outcome: 'limited', remaining: 0, windows }));
    }
    if (preferences.example !== undefined) {
      if (!response.examples.has(preferences.example)) {
        const names = [...response.examples.keys()];
        throw new HttpError('invalid_prefer', `Prefer: example=${preferences.example.slice(0, 60)} is not an example of ${operation.operationId} ${status}; examples: ${names.length > 0 ? names.join(', ') : 'none'}`);
      }
      return { status, body: response.examples.get(preferences.example), headers };
    }
    if (status >= 400) {
      const code = forcedErrorCodes[status] ?? 'forced_error';
      return { status, body: { code, message: `Forced by Prefer: code=${status}`, status } satisfies ErrorBody, headers };
    }
    if (preferences.dynamic && response.schema !== undefined) return { status, body: data.generate(response.schema), headers };
    // The operation's own success status with no example asked for: serve it for real.
    if (status === operation.successStatus && !preferences.dynamic) return undefined;
    const example = response.examples.values().next();
    return { status, body: example.done ? (response.schema === undefined ? null : data.generate(response.schema)) : example.value, headers };
  }

  function validateParameters(operation: CompiledOperation, pathParams: Record<string, string>, query: URLSearchParams) {
    for (const parameter of operation.parameters) {
      const text = parameter.in === 'path' ? pathParams[parameter.name] : (query.get(parameter.name) ?? undefined);
      if (text === undefined) {
        if (parameter.required) throw new HttpError('invalid_parameter', `Missing required ${parameter.in} parameter ${parameter.name}`);
        continue;
      }
      const result = parameter.validator.safeParse(parameter.coerce(text));
      if (!result.success) throw new HttpError('invalid_parameter', `Invalid ${parameter.in} parameter ${parameter.name}: ${result.error.issues[0]?.message ?? 'invalid value'}`);
    }
  }

  function finish(status: number, body: unknown, headers: Record<string, string>, withCors = config.cors): MockResponse {
    headers.Date = httpDate.at(clock.now());
    const text = body instanceof RawJson ? body.text : body === undefined ? null : JSON.stringify(body);
    if (text !== null) headers['Content-Type'] = 'application/json';
    if (withCors) Object.assign(headers, cors);
    return { status, headers, body: text };
  }

  function errorResponse(error: unknown, headers: Record<string, string>, withCors = config.cors): MockResponse {
    if (error instanceof HttpError) return finish(error.status, error.toBody(), Object.assign(headers, error.headers), withCors);
    logger.error(`Failed to handle a request: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return finish(500, new HttpError('internal_error', 'The mock failed to handle this request; see its log').toBody(), headers, withCors);
  }

  const controls: MockControls = {
    reset() {
      evictionsLogged = false;
      keyLimiter.reset();
      anonymousLimiter.reset();
      log.clear();
      seedKeys();
      seedStore();
    },
    advanceClock(seconds) {
      clock.advance(seconds * 1000);
      return controls.clock();
    },
    clock() {
      const now = clock.now();
      return { now: new Date(now).toISOString(), epochSeconds: Math.floor(now / 1000), offsetSeconds: clock.offset() / 1000 };
    },
    addKey(input) {
      const plan = input.plan ?? 'custom';
      const limits = input.limits ?? planLimits(config.plans, plan);
      if (!limits) throw new HttpError('invalid_control_request', `Unknown plan "${plan.slice(0, 40)}"; known: ${Object.keys(config.plans).join(', ')}`);
      return keys.set(input.key, plan, limits);
    },
    keys: () => keys.list(),
    requests: () => log.entries(),
    categories: () => store.list(),
    health: () => {
      const { dropped, ...categories } = store.stats();
      return { status: 'ok', categories, dropped: { categories: dropped, trackedClients: anonymousLimiter.evicted } };
    },
  };

  const controlDeps = { controls, config, finish: (status: number, body: unknown, headers: Record<string, string>) => finish(status, body, headers, false), errorResponse: (error: unknown, headers: Record<string, string>) => errorResponse(error, headers, false) };

  const app: MockApp = {
    get spec() {
      return spec;
    },
    config,
    get basePath() {
      return basePath;
    },
    replaceSpec(next) {
      const compiled = isCompiledSpec(next) ? next : compileSpec(next);
      // Everything that can throw runs before anything is swapped.
      const nextRoute = createRouter(compiled.operations);
      const nextDeprecationHeaders = deprecationHeadersOf(compiled);
      spec = compiled;
      basePath = compiled.basePath;
      route = nextRoute;
      deprecationHeaders = nextDeprecationHeaders;
    },
    clock,
    controls,
    startupKeys,
    needsBody(request) {
      const path = pathOf(request.url);
      if (path === '/__mock' || path.startsWith('/__mock/')) return !request.bodyTooLarge && controlAccessAllowed(request, config);
      const insideApi = path === basePath || path.startsWith(`${basePath}/`) || basePath === '';
      if (!insideApi || request.bodyTooLarge) return false;
      const match = route(request.method, path.slice(basePath.length) || '/');
      if (match.kind !== 'operation') return false;
      const auth = authenticate(request.headers.authorization);
      if (match.operation.requiresAuth && !('entry' in auth)) return false;
      const decision = 'entry' in auth ? keyLimiter.peek(auth.entry.id, auth.entry.limits) : anonymousLimiter.peek(request.clientAddress ?? 'local', config.anonymous);
      if (decision.outcome !== 'allowed' || decision.remaining <= 0) return false;
      const contentType = request.headers['content-type'];
      return match.operation.requestBody === undefined || (contentType !== undefined && isJsonContentType(contentType));
    },
    anonymousRateLimitHeaders: (clientAddress) => rateLimitHeaders(anonymousLimiter.peek(clientAddress ?? 'local', config.anonymous)),
    handle(request) {
      let response: MockResponse;
      let logged: Omit<RequestLogEntry, 'time' | 'method' | 'path' | 'status' | 'code'>;
      const questionMark = request.url.indexOf('?');
      const path = pathOf(request.url);
      try {
        if (path === '/__mock' || path.startsWith('/__mock/')) {
          // No CORS on the controls: other websites must not drive them through the developer's browser.
          response = handleControlRequest(request, path, controlDeps);
          logged = { operationId: null, plan: 'control', key: null };
        } else if (request.method === 'OPTIONS' && config.cors && request.headers['access-control-request-method'] !== undefined) {
          // CORS preflight: browsers send it without credentials, so it is neither authenticated nor
          // counted; it still reports the caller's anonymous budget, like every response under /v1.
          return {
            status: 204,
            headers: { Date: httpDate.at(clock.now()), ...app.anonymousRateLimitHeaders(request.clientAddress), ...cors, 'Access-Control-Allow-Methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS', 'Access-Control-Allow-Headers': request.headers['access-control-request-headers'] ?? '*', 'Access-Control-Max-Age': '600' },
            body: null,
          };
        } else {
          const insideApi = path === basePath || path.startsWith(`${basePath}/`) || basePath === '';
          ({ response, log: logged } = serveApi(request, path, insideApi ? path.slice(basePath.length) || '/' : null, questionMark === -1 ? '' : request.url.slice(questionMark + 1)));
        }
      } catch (error) {
        response = errorResponse(error, {});
        logged = { operationId: null, plan: 'anonymous', key: null };
      }
      const entry: RecordedRequest = { timeMs: clock.now(), method: request.method.slice(0, 20), path: path.slice(0, 300), ...logged, status: response.status, code: errorCodeOf(response) };
      log.add(entry);
      if (logger.verbose) logger.debug(`${entry.method} ${entry.path} -> ${entry.status}${entry.code ? ` ${entry.code}` : ''} (${entry.plan}${entry.key ? ` ${entry.key}` : ''})`);
      return response;
    },
  };
  return app;
}

/**
 * The fields of a validated body that the operation's schema declares, and nothing else: what a
 * client adds beyond the spec (or a hostile `__proto__` key) is never stored.
 */
function declaredFields(operation: CompiledOperation, body: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of operation.requestBody?.declaredProperties ?? []) {
    if (Object.hasOwn(body as object, name)) out[name] = (body as Record<string, unknown>)[name];
  }
  return out;
}

const noPreferences: Preferences = Object.freeze({});

/** The path of a request target, query and trailing slashes removed. */
function pathOf(url: string): string {
  const questionMark = url.indexOf('?');
  const rawPath = questionMark === -1 ? url : url.slice(0, questionMark);
  let end = rawPath.length;
  while (end > 1 && rawPath.charCodeAt(end - 1) === 47) end -= 1;
  return rawPath.slice(0, end);
}

/** An HTTP-date (RFC 9110) of a time in ms, formatted once per second of that time. */
class HttpDateCache {
  #second = Number.NaN;
  #text = '';
  at(ms: number): string {
    const second = Math.floor(ms / 1000);
    if (second !== this.#second) {
      this.#second = second;
      this.#text = new Date(second * 1000).toUTCString();
    }
    return this.#text;
  }
}

/** A body that is already JSON text (the cached category list). */
class RawJson {
  constructor(readonly text: string) {}
}

function errorCodeOf(response: MockResponse): string | null {
  if (response.status < 400 || response.body === null) return null;
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

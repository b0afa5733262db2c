import { type HttpHandler, HttpResponse, http } from 'msw';
import { fakeDataModulesAvailable, loadFakeDataModules } from '../spec/fake-data-modules.js';
import type { OpenApiDocument } from '../spec/openapi-types.js';
import { loadValidatorModules, validatorModulesAvailable } from '../spec/validator-modules.js';
import type { ScenarioInput } from '../src/core/controls/scenario.js';
import { createMockApp, type MockApp, type MockAppOptions, type MockControls } from '../src/core/mock-app.js';
import { type CompiledSpec, compileSpec, isCompiledSpec } from '../src/core/spec/compiled-spec.js';
import { specDrawsFakeData } from '../src/core/spec/fake-data-needs.js';
import type { MockRequest, MockResponse } from '../src/core/types.js';
import { expectWellBehaved } from '../src/lab/lab-report.js';
import type { LabReport } from '../src/lab/lab-types.js';
import { withFault } from './fault-transport.js';

// Browser-safe on purpose: this module (and everything it imports) must never reach node:* or
// spec/load-spec.ts, because `petstore-kit/mocks` and `petstore-kit/mocks/browser` run in a page.
// `mocks/browser-safety.test.ts` bundles it for the browser and fails if that ever changes.

export { loadFakeDataModules } from '../spec/fake-data-modules.js';
export type { OpenApiDocument } from '../spec/openapi-types.js';
export { createFixedClock, systemClock } from '../src/core/clock.js';
export type { FaultKind, FaultSettings, FaultSettingsInput } from '../src/core/config/fault-config.js';
export type { Limits, MockConfig, MockConfigInput } from '../src/core/config/mock-config.js';
export type { Scenario, ScenarioPresetName } from '../src/core/config/scenario-file.js';
export { scenarioPresetNames, scenarioPresets } from '../src/core/config/scenario-file.js';
export type { AppliedScenario, ScenarioInput } from '../src/core/controls/scenario.js';
export type { ClockState, MockApp, MockControls } from '../src/core/mock-app.js';
export type { CompiledSpec } from '../src/core/spec/compiled-spec.js';
export { compileSpec } from '../src/core/spec/compiled-spec.js';
export type { Clock, Logger } from '../src/core/types.js';
export type { ClientReport, CoverageReport, LabReport, Verdict } from '../src/lab/lab-types.js';
export { type UnhandledRequestStrategy, unhandledRequests } from './unhandled-requests.js';

export interface PetstoreHandlersOptions extends Omit<MockAppOptions, 'spec' | 'startupScenario'> {
  /**
   * The OpenAPI document, parsed (no `fs` needed, so it works in a browser) or already compiled.
   *
   * @example
   * import { petstoreSpec } from 'petstore-kit/mocks/spec'; // bundled at build time
   * createPetstoreHandlers({ spec: petstoreSpec });
   */
  spec: OpenApiDocument | CompiledSpec;
  /**
   * Where the API lives. An absolute URL matches that origin only; a path matches it on any
   * origin. The path becomes the base path the mock serves (and puts in `Location`), and the
   * controls are served at `/__mock/*` of the same origin. Default: the spec's base path (`/v1`)
   * on any origin.
   *
   * @example createPetstoreHandlers({ spec, baseUrl: 'https://api.petstore.example/v1' })
   */
  baseUrl?: string;
  /**
   * The session (`X-Mock-Session`) requests without that header go to, and that `controls` act on:
   * an isolated world (counters, bans, categories, ids, log, clock, run-time keys), so parallel test
   * files or workers sharing one mock never see each other. Default: the default session.
   *
   * @example setupPetstoreServer({ session: `worker-${process.env.VITEST_POOL_ID}` })
   */
  session?: string;
  /**
   * A scenario (YAML text, or the same as an object) applied to `session` before the first request
   * is answered: keys with budgets already spent, bans, the clock past the sunset date, categories.
   * A bad one throws here, naming the field. `ready` resolves once it is applied.
   *
   * @example createPetstoreHandlers({ spec, scenario: 'presets: [minute-almost-spent]' })
   * @example createPetstoreHandlers({ spec, scenario: { keys: [{ key: 'demo-pro', bannedSeconds: 60 }] } })
   */
  scenario?: ScenarioInput;
}

/**
 * What the factory returns: the MSW handlers, the core they call, and its controls as functions
 * (a browser has no control URL unless you call `/__mock/*` yourself; both work).
 */
export interface PetstoreHandlers {
  /** Give these to `setupServer(...handlers)` / `setupWorker(...handlers)`. */
  handlers: HttpHandler[];
  /** The behaviour core all requests go to. */
  app: MockApp;
  /** `reset()`, `advanceClock(seconds)`, `addKey({ key, plan })`, `requests()`, ... */
  controls: MockControls;
  /** The rate-limit lab's report of the session (client verdicts and coverage), as `GET /__mock/report` serves it. */
  report(): Promise<LabReport>;
  /**
   * Fails (throws one Error listing every problem) when a client of the session broke a rule
   * (a `fail` verdict) or a listed situation (`401`, `400`, `429`, `ban`, `deprecated-call`,
   * `window-reset`) was never served: `await expectWellBehaved({ minCoverage: ['429'] })` in a test.
   */
  expectWellBehaved(options?: { minCoverage?: readonly string[]; clients?: readonly string[] }): Promise<void>;
  /** Resolves once the `scenario` option (if any) is applied; requests wait for it on their own. */
  ready: Promise<void>;
}

/**
 * MSW request handlers with exactly the mock server's behaviour, because they call the same core:
 * each request is translated to a `MockRequest`, handled by `app.handle()`, and the `MockResponse`
 * is translated back. No routing, auth, validation or limiting happens here.
 *
 * @example
 * import { setupServer } from 'msw/node';
 * const { handlers, controls } = createPetstoreHandlers({ spec, seed: 42, config: { keys: [{ key: 'k', plan: 'pro' }] } });
 * const server = setupServer(...handlers);
 * server.listen();
 * await fetch('https://api.petstore.example/v1/categories', { headers: { authorization: 'Bearer k' } }); // 200
 * controls.advanceClock(60); // the per-minute window is over
 */
export function createPetstoreHandlers(options: PetstoreHandlersOptions): PetstoreHandlers {
  const { baseUrl, spec: specOption, session, scenario, ...appOptions } = options;
  const target = parseBaseUrl(baseUrl);
  const spec = specForBasePath(specOption, target.path);
  // The scenario option is refused here, naming the field, like a bad config; the core applies it
  // before the first request is answered, and answers every request with the reason if it cannot.
  const app = createMockApp({
    ...appOptions,
    spec,
    startupScenario: scenario === undefined ? undefined : { input: scenario, session },
  });
  // Checked now, so a bad name fails where it is written, not on the first request.
  const controls = session === undefined ? app.controls : app.controlsFor(session);
  const { ready } = app;

  const loadFakeDataFor = fakeDataLoader(app);
  // One resolver for the API and the controls: the core tells them apart, as it does for node:http.
  const resolve = async ({ request }: { request: Request }): Promise<Response> => {
    // In a page the validator is a chunk of its own, loaded before the first request (Node requires it on first use).
    if (!validatorModulesAvailable()) await loadValidatorModules();
    await loadFakeDataFor(request);
    const mockRequest = await toMockRequest(request, app.config.maxBodyBytes);
    const routed =
      session === undefined || mockRequest.headers['x-mock-session'] !== undefined
        ? mockRequest
        : { ...mockRequest, headers: { ...mockRequest.headers, 'x-mock-session': session } };
    const answer = await app.handle(routed);
    return answer.fault === undefined ? toResponse(answer, request.method) : withFault(answer, request, toResponse);
  };

  // RegExp predicates are matched against origin + pathname; they exist in every msw 2.x (custom
  // predicate functions only arrived later), which keeps the peer range wide.
  const handlers = [http.all(target.controlPattern, resolve), http.all(target.apiPattern(app.basePath), resolve)];
  const report = () => controls.report();
  return {
    handlers,
    app,
    controls,
    report,
    expectWellBehaved: async (checks) => expectWellBehaved(await report(), checks),
    ready,
  };
}

/**
 * In a page, faker and json-schema-faker are a chunk of their own (Node loads them synchronously
 * on first use): loaded before the first request whose answer may draw fake data, that is any
 * request when the spec has answers without examples, else those with a `Prefer` header (a forced
 * status or `dynamic=true`). The kit's own spec with a precomputed seed never loads them.
 */
function fakeDataLoader(app: MockApp): (request: Request) => Promise<void> | undefined {
  let specDraws = false;
  let checked: CompiledSpec | undefined;
  return (request) => {
    if (fakeDataModulesAvailable()) return undefined;
    // Checked again after `replaceSpec`.
    if (checked !== app.spec) {
      checked = app.spec;
      specDraws = specDrawsFakeData(app.spec);
    }
    return specDraws || request.headers.has('prefer') ? loadFakeDataModules().then(() => undefined) : undefined;
  };
}

/**
 * Request -> MockRequest, the MSW half of the transport contract (node:http has its own). The
 * body is read at most up to `maxBodyBytes`: a declared Content-Length over the limit is refused
 * unread, a stream is cut off as soon as it passes it. `clientAddress` is left undefined: a page
 * or a test process is a local, trusted caller.
 *
 * @example
 * const mockRequest = await toMockRequest(new Request('https://x.test/v1/categories'), app.config.maxBodyBytes);
 * const response = toResponse(await app.handle(mockRequest));
 */
export async function toMockRequest(request: Request, maxBodyBytes: number): Promise<MockRequest> {
  const url = new URL(request.url);
  // Headers iterate with lower-case names and repeated headers already joined by ", ".
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const base = { method: request.method, url: `${url.pathname}${url.search}`, headers, clientAddress: undefined };
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBodyBytes) return { ...base, body: null, bodyTooLarge: true };
  if (request.body === null) return { ...base, body: null };

  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > maxBodyBytes) {
      // Stop pulling: an oversized upload is never buffered whole, as on node:http. Not awaited:
      // MSW keeps a tee'd clone of the request, and cancelling one branch of a tee only settles
      // once the other branch is cancelled too.
      void reader.cancel().catch(() => undefined);
      return { ...base, body: null, bodyTooLarge: true };
    }
    chunks.push(value);
  }
  return { ...base, body: concat(chunks, received) };
}

/**
 * MockResponse -> Response (an MSW `HttpResponse`), headers as the core wrote them.
 *
 * @example toResponse({ status: 200, headers: { 'Content-Type': 'application/json' }, body: '[]' }).status; // 200
 */
export function toResponse(response: MockResponse, requestMethod = 'GET'): Response {
  // The fetch Response refuses a body on these statuses, and HEAD never carries one (node:http
  // drops it too), so the transport leaves it out rather than throwing.
  const body =
    requestMethod === 'HEAD' || nullBodyStatuses.has(response.status)
      ? null
      : (response.body ?? response.bytes ?? null);
  return new HttpResponse(body, { status: response.status, headers: response.headers });
}

const nullBodyStatuses = new Set([101, 103, 204, 205, 304]);

interface BaseUrlTarget {
  /** The base path asked for, or undefined to keep the spec's. */
  path: string | undefined;
  controlPattern: RegExp;
  apiPattern(basePath: string): RegExp;
}

function parseBaseUrl(baseUrl: string | undefined): BaseUrlTarget {
  let origin: string | undefined;
  let path: string | undefined;
  if (baseUrl !== undefined) {
    if (baseUrl.startsWith('/')) path = baseUrl;
    else {
      let url: URL;
      try {
        url = new URL(baseUrl);
      } catch {
        throw new Error(
          `Failed to create the Petstore handlers: baseUrl ${JSON.stringify(baseUrl)} is neither an absolute URL nor a path starting with /`,
        );
      }
      if (url.search !== '' || url.hash !== '')
        throw new Error(
          `Failed to create the Petstore handlers: baseUrl ${baseUrl} must not have a query or a fragment`,
        );
      origin = url.origin;
      path = url.pathname;
    }
    path = path.replace(/\/+$/, '');
  }
  // Any origin: a scheme, "//", and a host; the clean URL MSW matches against has no query.
  const originSource = origin === undefined ? '[a-z][a-z0-9+.-]*://[^/]+' : escapeRegExp(origin);
  return {
    path,
    controlPattern: new RegExp(`^${originSource}/__mock(?:/.*)?$`),
    apiPattern: (basePath) => new RegExp(`^${originSource}${escapeRegExp(basePath)}(?:/.*)?$`),
  };
}

/**
 * The core serves the base path of its compiled spec, so a baseUrl with another path (say
 * `/api/v1`) compiles the spec for that path: requests and `Location` headers then agree with it.
 */
function specForBasePath(
  spec: OpenApiDocument | CompiledSpec,
  path: string | undefined,
): OpenApiDocument | CompiledSpec {
  if (path === undefined) return spec;
  if (!isCompiledSpec(spec)) return compileSpec(spec, { basePath: path });
  return spec.basePath === path ? spec : compileSpec(spec.document, { basePath: path });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function concat(chunks: Uint8Array[], length: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

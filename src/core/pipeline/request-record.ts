import type { DataGenerator } from '../../../spec/data-generator.js';
import { targetPath } from '../../../spec/url-parts.js';
import type { FaultKind } from '../config/fault-config.js';
import type { MockConfig } from '../config/mock-config.js';
import type { CompiledOperation } from '../spec/compiled-spec.js';
import type { RouteMatch } from '../spec/router.js';
import type { FaultSessions } from '../state/fault-sessions.js';
import type { RecordedRequest } from '../state/request-log.js';
import { defaultSessionName } from '../state/sessions.js';
import type { HitInput, HitResult, StateStore } from '../state/state-store.js';
import type { Clock, Logger, MockRequest, MockResponse } from '../types.js';
import type { Preferences } from '../wire/prefer-header.js';
import type { ResponseShaper } from '../wire/response-shaping.js';
import type { Authenticator, Credentials } from './auth.js';
import type { ForcedResponse } from './forced-response.js';
import type { StatefulOperation } from './operations.js';
import type { ServedSpec } from './served-spec.js';

/** What a control answers over HTTP: a JSON body, or text of another type (`contentType` set, `body` a string). */
export interface ControlAnswer {
  status: number;
  body: unknown;
  contentType?: string;
  /** More response headers (the dashboard's ETag, the page's Content-Security-Policy). */
  headers?: Record<string, string>;
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
 * What the request path works with, made once per app by the assembler (`createMockApp`). The
 * pipeline knows the controls, the lab and the observers only through the functions given here.
 */
export interface PipelineRuntime {
  readonly config: MockConfig;
  readonly logger: Logger;
  readonly baseClock: Clock;
  readonly store: StateStore;
  readonly auth: Authenticator;
  readonly shaper: ResponseShaper;
  readonly data: DataGenerator;
  /** The operations answered from state, by operationId; every other one is answered from the spec. */
  readonly operations: ReadonlyMap<string, StatefulOperation>;
  /** What the spec decides; replaced whole when the spec is. */
  served: ServedSpec;
  /** The startup scenarios while they are being applied (null once done): nothing is answered before them. */
  startup: Promise<unknown> | null;
  /** The fault settings of each session and their draws (decision 042). */
  readonly faults: FaultSessions;
  /** Warnings given once (a full category store, anonymous clients forgotten); a reset of the default session re-arms them. */
  readonly warned: { drops: boolean; evictions: boolean };
  /** Serves `/__mock/*` (the controls). */
  serveControl(record: RequestRecord): Promise<ControlAnswer>;
  /** Would the controls serve this caller? Checks only. */
  controlAccessAllowed(request: MockRequest): boolean;
  /** Feeds the rate-limit lab with an answered API request that the store counted, and its log entry (faults read from it). */
  observeLab(record: RequestRecord, logged: RecordedRequest): void;
  readonly observers: readonly RequestObserver[];
}

// What a record holds until a stage gives it its own: frozen, so a stage that forgot fails at the first header written.
const noHeadersYet: Record<string, string> = Object.freeze({}) as Record<string, string>;
const noResponseYet: MockResponse = Object.freeze({ status: 500, headers: noHeadersYet, body: null }) as MockResponse;

/**
 * Everything one request is, and becomes on its way through the stages (`pipeline.ts`): the head
 * as it came, what the checks before the store found, the store's hit, and the answer with what
 * the log needs of it. One object per request, filled in place: a stage reads what the stages
 * before it wrote.
 */
export class RequestRecord {
  // Read from the head, as the request comes.
  readonly baseTimeMs: number;
  /** The target's path, its query and trailing slashes removed. */
  readonly path: string;
  readonly session: string;
  /** `X-Mock-Session` as sent; undefined without one (the default session, and no echo). */
  readonly namedSession: string | undefined;
  readonly isControl: boolean;
  /** The spec this request is served by, from start to end (a reload swaps it for the next ones). */
  readonly served: ServedSpec;

  // The checks before the store.
  credentials: Credentials | undefined = undefined;
  match: RouteMatch | null = null;
  operation: CompiledOperation | undefined = undefined;
  /** An error found before the store; answered after the hit, in the interface's order (a 429 wins over a 400). */
  pendingError: unknown = undefined;
  forced: ForcedResponse | undefined = undefined;
  /** What `Prefer` asked for (empty without the header, or when it could not be read). */
  preferences: Preferences | undefined = undefined;
  /** The fault this request meets and its latency, decided before the store (fault-plan.ts); for the transport and the log. */
  fault: FaultKind | undefined = undefined;
  delayMs = 0;
  body: unknown = undefined;
  /** The body's text as decoded (UTF-8), which the export may keep without decoding again. */
  bodyText: string | undefined = undefined;
  /** The category work that rides along with the hit. */
  storeWork: HitInput['categories'] = undefined;

  // The store's one hit: null until it answers, and when it failed.
  hit: HitResult | null = null;
  /** The session's virtual time of the answer (the base time when the store could not say). */
  nowMs: number;

  // The answer, and what the log says of it.
  /** The answer's headers so far (the rate-limit fields first); the stages add to them in place. */
  headers: Record<string, string> = noHeadersYet;
  response: MockResponse = noResponseYet;
  /** The Error code the answer carries, or null: set where the answer is made, for the log. */
  errorCode: string | null = null;
  /** Answered with what `Prefer` forced. */
  forcedAnswer = false;
  /** The plan counted against (`anonymous`, `control` for the controls). */
  plan = 'anonymous';
  /** The key as the log shows it (masked), or null. */
  key: string | null = null;

  constructor(
    readonly runtime: PipelineRuntime,
    readonly request: MockRequest,
  ) {
    this.baseTimeMs = runtime.baseClock.now();
    this.nowMs = this.baseTimeMs;
    this.path = pathOf(request.url);
    const named = request.headers['x-mock-session'];
    this.namedSession = named;
    this.session = named === undefined ? defaultSessionName : named;
    this.isControl = this.path === '/__mock' || this.path.startsWith('/__mock/');
    this.served = runtime.served;
  }
}

/** The path of a request target, query and trailing slashes removed, escaped unreserved characters decoded. */
function pathOf(url: string): string {
  const rawPath = targetPath(url);
  let end = rawPath.length;
  while (end > 1 && rawPath.charCodeAt(end - 1) === 47) end -= 1;
  const path = rawPath.slice(0, end);
  return path.includes('%') ? path.replace(escapedUnreserved, decodedEscape) : path;
}

// RFC 3986 6.2.2.2: `/v1/%63ategories` is `/v1/categories`; other escapes (`%2F`) stay as sent.
const escapedUnreserved = /%(?:4[1-9A-Fa-f]|5[0-9Aa]|6[1-9A-Fa-f]|7[0-9Aa]|3[0-9]|2[DdEe]|5[Ff]|7[Ee])/g;
const decodedEscape = (escaped: string) => String.fromCharCode(Number.parseInt(escaped.slice(1), 16));

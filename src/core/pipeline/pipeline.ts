import { targetQuery } from '../../../spec/url-parts.js';
import { errorCatalogue, HttpError } from '../errors.js';
import type { CompiledOperation } from '../spec/compiled-spec.js';
import type { RateDecision } from '../state/rate-limiter.js';
import { sessionNamePattern } from '../state/sessions.js';
import type { HitInput } from '../state/state-store.js';
import { TooManySessionsError } from '../state/state-store.js';
import type { MockRequest, MockResponse } from '../types.js';
import { type Preferences, parsePrefer } from '../wire/prefer-header.js';
import type { DecodedJsonBody } from '../wire/request-body.js';
import { errorCodeOf } from '../wire/response-shaping.js';
import type { Credentials } from './auth.js';
import { bodyIsRead, validatedBody, validateParameters } from './checks.js';
import { applyFault, checkFaultStatus, planFault } from './fault-plan.js';
import { forcedResponse } from './forced-response.js';
import { responseMedia } from './media-answers.js';
import { answerFailure, answerPreflight, refuseSession, serveControl, withBudgetHeaders } from './off-the-api.js';
import { answerAfterSunset, answerError, answerOperation, errorShapeFor } from './operation-answer.js';
import { recordAnswer } from './recording.js';
import { type PipelineRuntime, RequestRecord } from './request-record.js';
import { limitsOf } from './served-spec.js';
/**
 * The request path of the core, top to bottom. Every request gets one `RequestRecord`; an API
 * request then goes through these stages, each a function of the record:
 *
 * 1. read the head (`new RequestRecord`): time, path, session;
 * 2. `checkBeforeStore`: credentials, route, body size, `Prefer`, parameters, body, the category work;
 * 3. `planFault` (fault-plan.ts): the latency and the fault the request meets, from `Prefer` or the session's draw;
 * 4. `hitStore`: the one store round trip (rate-limit windows and ban, run-time keys, history, categories);
 * 5. `shapeAnswer`: 429s, 404/405, 401, deprecation, then the operation's own answer or the error of step 2;
 * 6. `applyFault` (fault-plan.ts): a fault that changes the answer applied, one for the transport attached;
 * 7. `recordAnswer` (recording.ts): the request log, the lab, the observers.
 *
 * A stage that must wait returns a promise, and `runStages` is the one place that decides whether a
 * request stays in the turn it came in: with the memory store no stage waits and the answer is
 * given at once; with Redis the hit (and so the rest) goes through a promise. The controls, a CORS
 * preflight and an invalid session are answered off this path (off-the-api.ts).
 */
export function respond(runtime: PipelineRuntime, request: MockRequest): MockResponse | Promise<MockResponse> {
  const record = new RequestRecord(runtime, request);
  if (runtime.startup !== null) {
    // The startup scenario is still being applied: nothing is answered before it (or its failure).
    return runtime.startup.then(
      () => respond(runtime, request),
      (error: unknown) => answerFailure(record, error),
    );
  }
  // The default session's name is ours and valid: only a name the client sent is checked.
  if (record.namedSession !== undefined && !sessionNamePattern.test(record.namedSession)) return refuseSession(record);
  if (record.isControl) return serveControl(record);
  if (
    request.method === 'OPTIONS' &&
    runtime.config.cors &&
    request.headers['access-control-request-method'] !== undefined
  )
    return answerPreflight(record);
  return runStages(record, 0);
}

type Stage = (record: RequestRecord) => Promise<void> | undefined;
const apiStages: readonly Stage[] = [checkBeforeStore, planFault, hitStore, shapeAnswer, applyFault, recordAnswer];

/** Runs the stages from `from` on: at once while none waits, after the promise of one that does. */
function runStages(record: RequestRecord, from: number): MockResponse | Promise<MockResponse> {
  try {
    for (let index = from; index < apiStages.length; index += 1) {
      const waiting = apiStages[index]!(record);
      if (waiting !== undefined) {
        return waiting.then(
          () => runStages(record, index + 1),
          (error: unknown) => answerFailure(record, error),
        );
      }
    }
  } catch (error) {
    return answerFailure(record, error);
  }
  return record.response;
}

const noPreferences: Preferences = Object.freeze({});

/**
 * Everything that needs no state is judged before the one store round trip; an error found here is
 * kept and answered after it, in the interface's order (a 429 still wins over a 400, and a refused
 * request is still counted).
 */
function checkBeforeStore(record: RequestRecord): Promise<void> | undefined {
  const { runtime, request } = record;
  const apiPath = apiPathOf(record);
  record.match = apiPath === null ? null : record.served.route(request.method, apiPath, targetQuery(request.url));
  const operation = record.match?.kind === 'operation' ? record.match.operation : undefined;
  record.operation = operation;
  record.credentials = credentialsOf(runtime, operation, request);
  if (operation === undefined) return undefined;
  try {
    if (request.bodyTooLarge)
      throw new HttpError('payload_too_large', `Request body exceeds ${runtime.config.maxBodyBytes} bytes`);
    const preferHeader = request.headers.prefer;
    record.preferences = preferHeader === undefined ? noPreferences : parsePrefer(preferHeader);
    // `fault=status, code=N` names the fault's status, which the fault stage answers (fault-plan.ts).
    if (record.preferences.fault === 'status') checkFaultStatus(record.preferences.code);
    else record.forced = forcedResponse(operation, record.preferences, runtime.data);
    if (record.forced !== undefined) return undefined;
    // Before any state changes: a POST whose answer the client cannot take creates nothing.
    const accept = request.headers.accept;
    if (accept !== undefined && accept !== '*/*') refuseUnacceptable(operation, accept);
    if (operation.parameters.length > 0)
      validateParameters(operation, {
        pathParams: record.match!.kind === 'operation' ? record.match!.pathParams : {},
        query: new URLSearchParams(targetQuery(request.url)),
        headers: request.headers,
      });
    const body = validatedBody(request, operation);
    // A multipart body is read by the platform's parser, which answers later: only then does this stage wait.
    if (body instanceof Promise)
      return body.then(
        (decoded) => afterBody(record, operation, decoded),
        (error: unknown) => keepError(record, error),
      );
    afterBody(record, operation, body);
  } catch (error) {
    keepError(record, error);
  }
  return undefined;
}

/** The credentials a request offers for its operation (the Authorization header alone for a bearer-only or open one). */
function credentialsOf(
  runtime: PipelineRuntime,
  operation: CompiledOperation | undefined,
  request: MockRequest,
): Credentials {
  if (operation === undefined || operation.security.bearerOnly || operation.security.alternatives.length === 0)
    return runtime.auth.credentials(request.headers.authorization);
  return runtime.auth.credentialsFor(operation.security, request);
}

function afterBody(record: RequestRecord, operation: CompiledOperation, body: DecodedJsonBody | undefined): void {
  try {
    if (body !== undefined) {
      record.body = body.value;
      record.bodyText = body.text;
    }
    record.storeWork = record.runtime.operations.get(operation.operationId)?.storeWork(operation, record.body);
  } catch (error) {
    keepError(record, error);
  }
}

function keepError(record: RequestRecord, error: unknown): void {
  record.pendingError = error;
  record.forced = undefined;
}

/**
 * The one store round trip. The only stage that may leave the turn for the store: a store whose
 * state is in this process (memory) offers `immediate` and answers at once; any other is awaited.
 */
function hitStore(record: RequestRecord): Promise<void> | undefined {
  const { runtime, request, credentials } = record;
  const token = credentials?.kind === 'token' ? credentials : undefined;
  const input: HitInput = {
    baseTimeMs: record.baseTimeMs,
    clientAddress: request.clientAddress ?? 'local',
    keyDigest: token?.digestHex,
    configKey: token?.configKey,
    categories: record.storeWork,
  };
  const immediate = runtime.store.immediate;
  if (immediate === undefined) {
    return runtime.store.hit(record.session, input).then(
      (hit) => {
        record.hit = hit;
      },
      (error: unknown) => storeFailed(record, error),
    );
  }
  try {
    record.hit = immediate.hit(record.session, input);
  } catch (error) {
    return storeFailed(record, error);
  }
  return undefined;
}

/** The store did not answer: 503 (or, for a session past the bound, 503 with the default session's budget). */
function storeFailed(record: RequestRecord, error: unknown): Promise<void> | undefined {
  const { runtime, credentials } = record;
  record.response = runtime.shaper.errorResponse(error, {}, record.baseTimeMs);
  record.errorCode = errorCodeOf(error);
  record.key = credentials?.kind === 'token' ? runtime.auth.masked(credentials.token) : null;
  if (!(error instanceof TooManySessionsError)) return undefined;
  // Refused a session, the store still answers for the default one: the budget headers come from there.
  return withBudgetHeaders(record, record.response).then((response) => {
    record.response = response;
  });
}

/** The answer once the store has counted the request: refusals first, then the operation's own. */
function shapeAnswer(record: RequestRecord): Promise<void> | undefined {
  const { runtime, hit, match, credentials } = record;
  if (hit === null) return undefined;
  const { decision, key, nowMs } = hit;
  record.nowMs = nowMs;
  record.plan = key === null ? 'anonymous' : key.plan;
  record.key =
    key !== null ? key.masked : credentials?.kind === 'token' ? runtime.auth.masked(credentials.token) : null;
  if (hit.trackedClientsDropped !== undefined && !runtime.warned.evictions) {
    runtime.warned.evictions = true;
    runtime.logger.warn(
      `More than maxTrackedClients (${runtime.config.maxTrackedClients}) anonymous clients: the least recently seen are forgotten from now on (their budgets start over), counted in GET /__mock/health`,
    );
  }
  // Every response gets its own fresh headers object, so the steps below add to it in place.
  const limits = limitsOf(record.served, key !== null);
  record.headers = runtime.shaper.rateLimitHeaders(decision, nowMs, limits.fields);
  try {
    if (limits.limited && decision.outcome !== 'allowed') return refuseOverLimit(record, decision, key !== null);
    const fullPath = record.path.slice(0, 200);
    if (match === null)
      throw new HttpError('not_found', `No resource at ${fullPath}; the API is served under ${record.served.basePath}`);
    if (match.kind === 'not-found') throw new HttpError('not_found', `No resource at ${fullPath}`);
    if (match.kind === 'method-not-allowed') {
      throw new HttpError(
        'method_not_allowed',
        `${record.request.method.slice(0, 20)} is not allowed on ${fullPath}; allowed: ${match.allow.join(', ')}`,
        { Allow: match.allow.join(', ') },
      );
    }
    const operationId = match.operation.operationId;
    const operationHeaders = record.served.operationHeaders.get(operationId);
    if (operationHeaders) Object.assign(record.headers, operationHeaders);
    if (refusesAuth(match.operation, key)) {
      record.headers['WWW-Authenticate'] = match.operation.security.challenge;
      return refuse(record, 'unauthorized', credentials?.kind === 'none' ? credentials.failure : 'Invalid API key');
    }
    if (credentials?.kind === 'token' && credentials.missingScopes !== undefined && match.operation.requiresAuth) {
      record.headers['WWW-Authenticate'] =
        `Bearer error="insufficient_scope", scope="${credentials.missingScopes.join(' ').replace(/["\\]/g, '')}"`;
      return refuse(
        record,
        'insufficient_scope',
        `The key lacks the scopes ${credentials.missingScopes.join(', ').slice(0, 200)}`,
      );
    }
    // Past its sunset date a deprecated operation may be gone (`sunset.afterSunset`): only then is
    // the session's setting read, so no other request waits for the store.
    const sunsetMs = record.served.sunsetMs.get(operationId);
    if (sunsetMs !== undefined && nowMs > sunsetMs) return answerAfterSunset(record);
    answerOperation(record);
  } catch (error) {
    answerError(record, error);
  }
  return undefined;
}

/**
 * Whether an operation refuses a request for its key: it requires one and the request has none
 * valid. The one decision of authentication, for the answer and for `needsBody` alike.
 */
function refusesAuth(operation: { requiresAuth: boolean }, key: object | null): boolean {
  return operation.requiresAuth && key === null;
}

function refuseOverLimit(record: RequestRecord, decision: RateDecision, hasKey: boolean): undefined {
  if (decision.outcome === 'banned')
    return refuse(
      record,
      'key_banned',
      `Too many requests after a 429: ${hasKey ? 'this API key' : 'this client'} is banned for ${decision.retryAfterSeconds} seconds`,
    );
  return refuse(
    record,
    'rate_limited',
    `Rate limit exceeded; retry after ${decision.retryAfterSeconds} seconds and back off exponentially`,
  );
}

function refuse(
  record: RequestRecord,
  code: 'key_banned' | 'rate_limited' | 'unauthorized' | 'insufficient_scope',
  message: string,
): undefined {
  const { shaper } = record.runtime;
  const status = errorCatalogue[code].status;
  const shaped = errorShapeFor(record)?.(code, message, status);
  record.response =
    shaped === undefined
      ? shaper.refusal(code, message, record.headers, record.nowMs)
      : shaper.finish(status, shaped, record.headers, record.nowMs);
  record.errorCode = code;
  return undefined;
}

function refuseUnacceptable(operation: CompiledOperation, accept: string): void {
  const response = operation.successStatus === undefined ? undefined : operation.responses.get(operation.successStatus);
  if (response !== undefined) responseMedia(response, accept);
}

/** The path relative to the base path, or null when the request is outside the API. */
function apiPathOf(record: RequestRecord): string | null {
  const { path, served } = record;
  const insideApi = path === served.basePath || path.startsWith(served.basePathSlash) || served.basePath === '';
  return insideApi ? path.slice(served.basePath.length) || '/' : null;
}

/**
 * Whether the answer to a request depends on its body, judged from its head alone and counting
 * nothing (`MockApp.needsBody`): the same head reading, routing and authentication decision as
 * the stages above. True when the store cannot tell.
 */
export async function needsBody(runtime: PipelineRuntime, request: MockRequest): Promise<boolean> {
  const record = new RequestRecord(runtime, request);
  if (record.isControl) return !request.bodyTooLarge && runtime.controlAccessAllowed(request);
  const apiPath = apiPathOf(record);
  if (apiPath === null || request.bodyTooLarge) return false;
  const match = record.served.route(request.method, apiPath, targetQuery(request.url));
  if (match.kind !== 'operation') return false;
  if (
    match.operation.requestBody !== undefined &&
    !bodyIsRead(match.operation.requestBody, request.headers['content-type'])
  )
    return false;
  if (!sessionNamePattern.test(record.session)) return false;
  const credentials = credentialsOf(runtime, match.operation, request);
  try {
    // A key added at run time lives in the store, per session: only a token known nowhere is a 401.
    const known =
      credentials.kind === 'token' &&
      (credentials.configKey !== undefined ||
        (await runtime.store.listKeys(record.session, record.baseTimeMs)).some(
          (entry) => entry.id === credentials.digestHex.slice(0, 32),
        ));
    if (refusesAuth(match.operation, known ? credentials : null)) return false;
    if (!known && record.served.anonymousLimits.limited) {
      const decision = await runtime.store.peekAnonymous(
        record.session,
        request.clientAddress ?? 'local',
        record.baseTimeMs,
      );
      if (decision.outcome !== 'allowed' || decision.remaining <= 0) return false;
    }
    return true;
  } catch {
    return true;
  }
}

import { type ErrorBody, type ErrorCode, HttpError } from '../errors.js';
import { type ErrorShape, errorCodeOf } from '../wire/response-shaping.js';
import { mediaBody, responseMedia } from './media-answers.js';
import { generatedResponse } from './operations.js';
import type { RequestRecord } from './request-record.js';
import { limitsOf } from './served-spec.js';

/**
 * The answer of a request that passed every check: the operation's own (stateful, forced or from the spec), or
 * the error its checks kept, in the error shape the spec declares. The `shapeAnswer` stage of pipeline.ts.
 */
export function answerError(record: RequestRecord, error: unknown): void {
  record.response = record.runtime.shaper.errorResponse(error, record.headers, record.nowMs, errorShapeFor(record));
  record.errorCode = errorCodeOf(error);
}

/** The shape the spec declares for errors of the request's operation (or of the spec, for a request no operation took). */
export function errorShapeFor(record: RequestRecord): ErrorShape | undefined {
  const { served } = record;
  if (served.routelessErrorShape === undefined) return undefined;
  const operation = record.operation;
  return operation === undefined ? served.routelessErrorShape : served.errorShapes.get(operation.operationId);
}

/** A deprecated operation past its sunset: served as usual, or 410 Gone, as the session (else the config) says. */
export function answerAfterSunset(record: RequestRecord): Promise<void> {
  const { runtime, operation } = record;
  return runtime.store.afterSunset(record.session, record.baseTimeMs).then(
    (mode) => {
      if ((mode ?? runtime.config.sunset.afterSunset) === 'serve') return answerOperation(record);
      const sunset = record.served.sunsets.get(operation!.operationId);
      answerError(
        record,
        new HttpError(
          'operation_sunset',
          `${operation!.method.toUpperCase()} ${operation!.pathTemplate} (${operation!.operationId}) was sunset on ${sunset}; it is no longer served`,
        ),
      );
    },
    (error: unknown) => answerError(record, error),
  );
}

/** The operation's own answer (stateful, forced or from the spec), or the error judged before the store. */
export function answerOperation(record: RequestRecord): void {
  const { runtime, hit, forced } = record;
  const match = record.match as Extract<RequestRecord['match'], { kind: 'operation' }>;
  try {
    if (record.pendingError !== undefined) throw record.pendingError;
    if (forced) {
      // A forced 429 shows the reported window spent, in the IETF fields too.
      if (forced.status === 429) Object.assign(record.headers, spentHeaders(record));
      // A 401 names how to authenticate (RFC 9110 11.6.1), forced or not.
      if (forced.status === 401) record.headers['WWW-Authenticate'] = match.operation.security.challenge || 'Bearer';
      const body = forced.body(drawKeyOf(record));
      record.response = runtime.shaper.finish(
        forced.status,
        answerBody(record, forced.status, body),
        record.headers,
        record.nowMs,
      );
      record.errorCode = errorCodeInBody(forced.status, body);
      record.forcedAnswer = true;
      return;
    }
    const stateful = runtime.operations.get(match.operation.operationId);
    const context = {
      operation: match.operation,
      body: record.body,
      pathParams: match.pathParams,
      hit: hit!,
      basePath: record.served.basePath,
      data: runtime.data,
      headers: record.headers,
      drawKey: drawKeyOf(record),
    };
    const result = stateful ? stateful.respond(context) : generatedResponse(context, record.request.headers.accept);
    if (hit!.created && hit!.created.dropped > 0 && !runtime.warned.drops) {
      runtime.warned.drops = true;
      runtime.logger.warn(
        `The category store is full (maxCategories ${runtime.config.maxCategories}, maxCategoryBytes ${runtime.config.maxCategoryBytes}): the oldest categories are dropped from now on, counted in GET /__mock/health (POST /__mock/reset starts over)`,
      );
    }
    record.response = runtime.shaper.finish(result.status, result.body, record.headers, record.nowMs);
  } catch (error) {
    answerError(record, error);
  }
}

/** What an answer's generated data is drawn for: the request's target, so the same request answers the same data (`--dynamic`: afresh). */
function drawKeyOf(record: RequestRecord): string | undefined {
  return record.runtime.config.dynamic ? undefined : record.request.url;
}

/**
 * A forced answer's body in the media type `Accept` prefers among those its response declares (a
 * JSON value as it is; an image forced by `Prefer: code=200` is still an image).
 */
function answerBody(record: RequestRecord, status: number, body: unknown): unknown {
  const response = record.operation?.responses.get(status);
  if (status >= 400 && isOwnError(body))
    return errorShapeFor(record)?.(body.code as ErrorCode, body.message, status) ?? body;
  if (response === undefined) return body;
  const media = responseMedia(response, record.request.headers.accept);
  return media === undefined ? body : mediaBody(media, body);
}

function isOwnError(body: unknown): body is ErrorBody {
  return (
    body !== null &&
    typeof body === 'object' &&
    typeof (body as ErrorBody).code === 'string' &&
    typeof (body as ErrorBody).message === 'string' &&
    Object.keys(body).length === 3
  );
}

/** The rate-limit fields of the request's decision with the reported window spent (a forced 429). */
function spentHeaders(record: RequestRecord): Record<string, string> {
  const decision = record.hit!.decision;
  const windows = decision.windows.map((window) =>
    window.resetAtMs === decision.resetAtMs ? { ...window, remaining: 0 } : window,
  );
  return record.runtime.shaper.rateLimitHeaders(
    { ...decision, outcome: 'limited', remaining: 0, windows },
    record.nowMs,
    limitsOf(record.served, record.hit!.key !== null).fields,
  );
}

/** The `code` of a forced error body (the spec's example, or one the mock made), for the log. */
function errorCodeInBody(status: number, body: unknown): string | null {
  if (status < 400 || body === null || typeof body !== 'object') return null;
  const code = (body as { code?: unknown }).code;
  return typeof code === 'string' && code.length > 0 && code.length <= 64 ? code : null;
}

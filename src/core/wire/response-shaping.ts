import { SpecError } from '../../../spec/ref-resolver.js';
import type { MockConfig } from '../config/mock-config.js';
import { type ErrorBody, type ErrorCode, errorCatalogue, HttpError } from '../errors.js';
import type { RateDecision } from '../state/rate-limiter.js';
import { StoreUnavailableError, TooManySessionsError } from '../state/state-store.js';
import type { Logger, MockResponse } from '../types.js';
import { type RateLimitFields, rateLimitFields } from './rate-limit-headers.js';

const corsHeaders = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers':
    'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Location, Deprecation, Sunset, Allow, X-Mock-Session, WWW-Authenticate, RateLimit, RateLimit-Policy',
};

/** A body that is already JSON text (a stored category, the list): sent as it is. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** A body of a media type the spec declares (problem+json, text, XML, an image): sent as it is, with its type. */
export class MediaBody {
  constructor(
    readonly contentType: string,
    readonly content: string | Uint8Array,
  ) {}
}

/**
 * The body of an error in the shape the spec declares for it (`MediaBody`), or undefined for the
 * API's own Error shape `{code, message, status}`.
 */
export type ErrorShape = (code: ErrorCode, message: string, status: number) => MediaBody | undefined;

/**
 * Response shaping: every answer of the core goes through `finish` (Date from the session's virtual
 * clock, JSON, CORS) or `errorResponse` (the API's Error shape; a store failure is a 503 answer with
 * Retry-After, never a crash). `withoutCors` is the same shaper for the answers no web page may
 * read (the controls).
 */
export interface ResponseShaper {
  readonly cors: Readonly<Record<string, string>>;
  /** This shaper with the CORS headers left out. */
  readonly withoutCors: ResponseShaper;
  /** The rate-limit fields of a decision that `fields` asks for (the served spec's, see `RateLimitFields`). */
  rateLimitHeaders(decision: RateDecision, nowMs: number, fields: RateLimitFields): Record<string, string>;
  /** The answer of `status` with `body` (a value to write as JSON, a `RawJson`, or undefined for none). */
  finish(status: number, body: unknown, headers: Record<string, string>, nowMs: number): MockResponse;
  /**
   * The Error answer of any error (a 500 for one that is no HttpError, logged with its stack), in
   * the shape the spec declares for it when `shape` gives one.
   */
  errorResponse(error: unknown, headers: Record<string, string>, nowMs: number, shape?: ErrorShape): MockResponse;
  /** The Error answer of `code`, built without an Error object: for the refusals on the hot path (401, 429). */
  refusal(code: ErrorCode, message: string, headers: Record<string, string>, nowMs: number): MockResponse;
  httpDate(nowMs: number): string;
}

/**
 * The `code` of the Error answer `errorResponse` gives for `error`: carried with the answer to the
 * request log, so nobody reads it back out of the body.
 */
export function errorCodeOf(error: unknown): ErrorCode {
  if (error instanceof HttpError) return error.code;
  if (error instanceof StoreUnavailableError) return 'store_unavailable';
  if (error instanceof TooManySessionsError) return 'too_many_sessions';
  return 'internal_error';
}

export function createResponseShaper(config: MockConfig, logger: Logger): ResponseShaper {
  const cors = corsHeaders;
  const shared: ShaperState = {
    dates: new HttpDateCache(),
    lastStoreLogMs: Number.NEGATIVE_INFINITY,
    lastRefusal: { code: '', message: '', body: new RawJson('') },
    logger,
  };
  const withCors = shaperOf(shared, config.cors ? cors : undefined, cors);
  const withoutCors = shaperOf(shared, undefined, cors);
  Object.assign(withCors, { withoutCors });
  Object.assign(withoutCors, { withoutCors });
  return withCors as ResponseShaper;
}

/** What both shapers of one app share: the Date text of the current second, the log's throttle, the last refusal. */
interface ShaperState {
  readonly dates: HttpDateCache;
  lastStoreLogMs: number;
  // A hammering client gets the same refusal request after request: its JSON is made once.
  lastRefusal: { code: string; message: string; body: RawJson };
  readonly logger: Logger;
}

function shaperOf(
  state: ShaperState,
  answerCors: Readonly<Record<string, string>> | undefined,
  cors: Readonly<Record<string, string>>,
): Omit<ResponseShaper, 'withoutCors'> {
  const allowOrigin = answerCors?.['Access-Control-Allow-Origin'];
  const exposeHeaders = answerCors?.['Access-Control-Expose-Headers'];
  const shaper: Omit<ResponseShaper, 'withoutCors'> = {
    cors,
    rateLimitHeaders: rateLimitFields,
    httpDate: (nowMs) => state.dates.at(nowMs),
    finish(status, body, headers, nowMs) {
      // Every time the mock states comes from the session's virtual clock, Date included.
      headers.Date = state.dates.at(nowMs);
      // RFC 9110 sections 15.3.5, 15.3.6, 15.4.5: these carry no content, whatever the document declares for them.
      if (status === 204 || status === 205 || status === 304) {
        delete headers['Content-Type'];
        return withCors({ status, headers, body: null });
      }
      let text: string | null;
      if (body instanceof RawJson) text = body.text;
      else if (body instanceof MediaBody) {
        headers['Content-Type'] = body.contentType;
        const { content } = body;
        return withCors(
          typeof content === 'string'
            ? { status, headers, body: content }
            : { status, headers, body: null, bytes: content },
        );
      } else text = body === undefined ? null : JSON.stringify(body);
      if (text !== null) headers['Content-Type'] = 'application/json';
      return withCors({ status, headers, body: text });
    },
    refusal(code, message, headers, nowMs) {
      const status = errorCatalogue[code].status;
      if (state.lastRefusal.code !== code || state.lastRefusal.message !== message) {
        const body: ErrorBody = { code, message, status };
        state.lastRefusal = { code, message, body: new RawJson(JSON.stringify(body)) };
      }
      return shaper.finish(status, state.lastRefusal.body, headers, nowMs);
    },
    errorResponse(error, headers, nowMs, shape) {
      const answer = httpErrorOf(error, state);
      const body = shape?.(answer.code, answer.message, answer.status) ?? answer.toBody();
      return shaper.finish(answer.status, body, Object.assign(headers, answer.headers), nowMs);
    },
  };
  // Set one by one: an Object.assign per answer costs more than two stores.
  function withCors(response: MockResponse): MockResponse {
    if (allowOrigin !== undefined) {
      response.headers['Access-Control-Allow-Origin'] = allowOrigin;
      response.headers['Access-Control-Expose-Headers'] = exposeHeaders!;
    }
    return response;
  }
  return shaper;
}

/** The HttpError an error is answered as; what is not the API's own error is logged (a store outage once per 5 s). */
function httpErrorOf(error: unknown, state: ShaperState): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof StoreUnavailableError) {
    // An outage would log a line per request: one line per 5 seconds says it as well.
    const now = Date.now();
    if (now - state.lastStoreLogMs >= 5_000) {
      state.lastStoreLogMs = now;
      state.logger.warn(`Answering 503 store_unavailable: ${error.detail}`);
    }
    return new HttpError('store_unavailable', error.message, { 'Retry-After': String(error.retryAfterSeconds) });
  }
  // Its slot frees when an idle session expires or one is reset; a minute is an honest guess.
  if (error instanceof TooManySessionsError)
    return new HttpError('too_many_sessions', error.message, { 'Retry-After': '60' });
  state.logger.error(
    `Failed to handle a request: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  // The document could not be read for this request (a schema compiled on first use, nested past what the stack
  // holds): the answer says so, in the document's error shape, rather than an unexplained 500.
  if (error instanceof SpecError)
    return new HttpError('internal_error', `The mock cannot serve this operation of the document: ${error.message}`);
  if (error instanceof RangeError)
    return new HttpError(
      'internal_error',
      'The mock cannot serve this operation of the document: a schema nests too deeply to read (the stack ran out); flatten the nesting',
    );
  return new HttpError('internal_error', 'The mock failed to handle this request; see its log');
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

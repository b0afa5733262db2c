import type { MockConfig } from '../config/mock-config.js';
import { errorCatalogue, HttpError, type ErrorBody, type ErrorCode } from '../errors.js';
import type { RateDecision } from '../state/rate-limiter.js';
import { StoreUnavailableError, TooManySessionsError } from '../state/state-store.js';
import type { Logger, MockResponse } from '../types.js';
import { ietfRateLimitHeaders, rateLimitHeaders as xRateLimitHeaders } from './rate-limit-headers.js';

const corsHeaders = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Location, Deprecation, Sunset, Allow, X-Mock-Session',
};

/** A body that is already JSON text (a stored category, the list): sent as it is. */
export class RawJson {
  constructor(readonly text: string) {}
}

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
  rateLimitHeaders(decision: RateDecision, nowMs: number): Record<string, string>;
  /** The answer of `status` with `body` (a value to write as JSON, a `RawJson`, or undefined for none). */
  finish(status: number, body: unknown, headers: Record<string, string>, nowMs: number): MockResponse;
  /** The Error answer of any error (a 500 for one that is no HttpError, logged with its stack). */
  errorResponse(error: unknown, headers: Record<string, string>, nowMs: number): MockResponse;
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
  // The IETF RateLimit fields are opt-in (config rateLimitHeaders), next to X-RateLimit-*.
  const ietfFields = config.rateLimitHeaders.includes('ietf');
  const cors = ietfFields ? { ...corsHeaders, 'Access-Control-Expose-Headers': `${corsHeaders['Access-Control-Expose-Headers']}, RateLimit, RateLimit-Policy` } : corsHeaders;
  const shared: ShaperState = { dates: new HttpDateCache(), lastStoreLogMs: Number.NEGATIVE_INFINITY, lastRefusal: { code: '', message: '', body: new RawJson('') }, ietfFields, logger };
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
  readonly ietfFields: boolean;
  readonly logger: Logger;
}

function shaperOf(state: ShaperState, answerCors: Readonly<Record<string, string>> | undefined, cors: Readonly<Record<string, string>>): Omit<ResponseShaper, 'withoutCors'> {
  const allowOrigin = answerCors?.['Access-Control-Allow-Origin'];
  const exposeHeaders = answerCors?.['Access-Control-Expose-Headers'];
  const shaper: Omit<ResponseShaper, 'withoutCors'> = {
    cors,
    rateLimitHeaders: (decision, nowMs) => (state.ietfFields ? Object.assign(xRateLimitHeaders(decision), ietfRateLimitHeaders(decision, nowMs)) : xRateLimitHeaders(decision)),
    httpDate: (nowMs) => state.dates.at(nowMs),
    finish(status, body, headers, nowMs) {
      // Every time the mock states comes from the session's virtual clock, Date included.
      headers.Date = state.dates.at(nowMs);
      const text = body instanceof RawJson ? body.text : body === undefined ? null : JSON.stringify(body);
      if (text !== null) headers['Content-Type'] = 'application/json';
      // Set one by one: an Object.assign per answer costs more than two stores.
      if (allowOrigin !== undefined) {
        headers['Access-Control-Allow-Origin'] = allowOrigin;
        headers['Access-Control-Expose-Headers'] = exposeHeaders!;
      }
      return { status, headers, body: text };
    },
    refusal(code, message, headers, nowMs) {
      const status = errorCatalogue[code].status;
      if (state.lastRefusal.code !== code || state.lastRefusal.message !== message) {
        const body: ErrorBody = { code, message, status };
        state.lastRefusal = { code, message, body: new RawJson(JSON.stringify(body)) };
      }
      return shaper.finish(status, state.lastRefusal.body, headers, nowMs);
    },
    errorResponse(error, headers, nowMs) {
      const answer = httpErrorOf(error, state);
      return shaper.finish(answer.status, answer.toBody(), Object.assign(headers, answer.headers), nowMs);
    },
  };
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
  if (error instanceof TooManySessionsError) return new HttpError('too_many_sessions', error.message, { 'Retry-After': '60' });
  state.logger.error(`Failed to handle a request: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
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

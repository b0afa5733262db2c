import { errorCatalogue, HttpError, type ErrorBody, type ErrorCode } from '../errors.js';
import type { MockConfig } from '../config/mock-config.js';
import type { RateDecision } from '../state/rate-limiter.js';
import { ietfRateLimitHeaders, rateLimitHeaders as xRateLimitHeaders } from './rate-limit-headers.js';
import { StoreUnavailableError, TooManySessionsError } from '../state/state-store.js';
import type { Logger, MockResponse } from '../types.js';
import { utf8Length } from './utf8.js';

const corsHeaders = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Location, Deprecation, Sunset, Allow, X-Mock-Session',
};

/** A body that is already JSON text (the cached category list), with its UTF-8 bytes when they are known. */
export class RawJson {
  constructor(
    readonly text: string,
    readonly bytes?: number,
  ) {}
}

/**
 * Response shaping: every answer of the core goes through `finish` (Date from the session's virtual
 * clock, JSON, CORS) or `errorResponse` (the API's Error shape; a store failure is a 503 answer with
 * Retry-After, never a crash). Stateless apart from a per-second Date cache.
 */
export interface ResponseShaper {
  readonly cors: Readonly<Record<string, string>>;
  rateLimitHeaders(decision: RateDecision, nowMs: number): Record<string, string>;
  finish(status: number, body: unknown, headers: Record<string, string>, nowMs: number, withCors?: boolean): MockResponse;
  errorResponse(error: unknown, headers: Record<string, string>, nowMs: number, withCors?: boolean): MockResponse;
  /** The Error answer of `code`, built without an Error object: for the refusals on the hot path (401, 429). */
  refusal(code: ErrorCode, message: string, headers: Record<string, string>, nowMs: number): MockResponse;
  httpDate(nowMs: number): string;
}

export function createResponseShaper(config: MockConfig, logger: Logger): ResponseShaper {
  // The IETF RateLimit fields are opt-in (config rateLimitHeaders), next to X-RateLimit-*.
  const ietfFields = config.rateLimitHeaders.includes('ietf');
  const cors = ietfFields ? { ...corsHeaders, 'Access-Control-Expose-Headers': `${corsHeaders['Access-Control-Expose-Headers']}, RateLimit, RateLimit-Policy` } : corsHeaders;
  const dates = new HttpDateCache();
  // Set one by one in finish: an Object.assign per answer costs more than two stores.
  const { 'Access-Control-Allow-Origin': allowOrigin, 'Access-Control-Expose-Headers': exposeHeaders } = cors;
  let lastStoreLogMs = Number.NEGATIVE_INFINITY;
  // A hammering client gets the same refusal request after request: its JSON is made once.
  let lastRefusal = { code: '', message: '', body: new RawJson('', 0) };

  const shaper: ResponseShaper = {
    cors,
    rateLimitHeaders: (decision, nowMs) => (ietfFields ? Object.assign(xRateLimitHeaders(decision), ietfRateLimitHeaders(decision, nowMs)) : xRateLimitHeaders(decision)),
    httpDate: (nowMs) => dates.at(nowMs),
    finish(status, body, headers, nowMs, withCors = config.cors) {
      // Every time the mock states comes from the session's virtual clock, Date included.
      headers.Date = dates.at(nowMs);
      const raw = body instanceof RawJson;
      const text = raw ? body.text : body === undefined ? null : JSON.stringify(body);
      if (text !== null) headers['Content-Type'] = 'application/json';
      if (withCors) {
        headers['Access-Control-Allow-Origin'] = allowOrigin;
        headers['Access-Control-Expose-Headers'] = exposeHeaders;
      }
      // Every answer has the same four fields (one shape for the transports to read).
      return { status, headers, body: text, bodyBytes: raw ? body.bytes : undefined };
    },
    refusal(code, message, headers, nowMs) {
      const status = errorCatalogue[code].status;
      if (lastRefusal.code !== code || lastRefusal.message !== message) {
        const body: ErrorBody = { code, message, status };
        const text = JSON.stringify(body);
        lastRefusal = { code, message, body: new RawJson(text, utf8Length(text)) };
      }
      return shaper.finish(status, lastRefusal.body, headers, nowMs);
    },
    errorResponse(error, headers, nowMs, withCors = config.cors) {
      if (error instanceof HttpError) return shaper.finish(error.status, error.toBody(), Object.assign(headers, error.headers), nowMs, withCors);
      if (error instanceof StoreUnavailableError) {
        // An outage would log a line per request: one line per 5 seconds says it as well.
        const now = Date.now();
        if (now - lastStoreLogMs >= 5_000) {
          lastStoreLogMs = now;
          logger.warn(`Answering 503 store_unavailable: ${error.detail}`);
        }
        const refusal = new HttpError('store_unavailable', error.message, { 'Retry-After': String(error.retryAfterSeconds) });
        return shaper.finish(refusal.status, refusal.toBody(), Object.assign(headers, refusal.headers), nowMs, withCors);
      }
      if (error instanceof TooManySessionsError) {
        // Its slot frees when an idle session expires or one is reset; a minute is an honest guess.
        const refusal = new HttpError('too_many_sessions', error.message, { 'Retry-After': '60' });
        return shaper.finish(refusal.status, refusal.toBody(), Object.assign(headers, refusal.headers), nowMs, withCors);
      }
      logger.error(`Failed to handle a request: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return shaper.finish(500, new HttpError('internal_error', 'The mock failed to handle this request; see its log').toBody(), headers, nowMs, withCors);
    },
  };
  return shaper;
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

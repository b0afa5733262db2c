/**
 * The catalogue of errors the mock answers with. Every entry becomes the interface's own Error
 * body `{code, message, status}`; `code` values are stable (the interface leaves the set open, so
 * these are the kit's own, listed in docs/mock.md).
 */
export const errorCatalogue = {
  body_required: { status: 400, title: 'Request body is required' },
  malformed_json: { status: 400, title: 'Request body is not valid JSON' },
  validation_failed: { status: 400, title: 'Request body holds invalid values' },
  invalid_parameter: { status: 400, title: 'A path or query parameter is invalid' },
  invalid_prefer: { status: 400, title: 'The Prefer header cannot be honoured' },
  invalid_control_request: { status: 400, title: 'The control request is invalid' },
  invalid_session: { status: 400, title: 'The X-Mock-Session header is not a valid session name' },
  unauthorized: { status: 401, title: 'API key missing or invalid' },
  control_forbidden: { status: 403, title: 'The control API refused the caller' },
  insufficient_scope: { status: 403, title: 'The credentials lack a scope the operation requires' },
  not_found: { status: 404, title: 'No such resource' },
  method_not_allowed: { status: 405, title: 'Method not allowed on this resource' },
  not_acceptable: { status: 406, title: 'No declared media type fits the Accept header' },
  operation_sunset: { status: 410, title: 'The operation is past its sunset date and no longer served' },
  payload_too_large: { status: 413, title: 'Request body too large' },
  unsupported_media_type: { status: 415, title: 'Content type not supported' },
  rate_limited: { status: 429, title: 'Rate limit exceeded' },
  key_banned: { status: 429, title: 'API key temporarily banned' },
  internal_error: { status: 500, title: 'Internal error' },
  store_unavailable: { status: 503, title: "The mock's state store is unavailable" },
  store_corrupt: { status: 503, title: "The mock's state store holds data the mock did not write" },
  store_full: { status: 507, title: "The mock's memory budget (or Redis's maxmemory) is used up" },
  too_many_sessions: { status: 503, title: 'Too many sessions are alive' },
  // Answered by the HTTP server before a request reaches the core (src/server/protocol-guards.ts).
  bad_request: { status: 400, title: 'The HTTP request could not be parsed' },
  request_timeout: { status: 408, title: 'The request took too long to arrive' },
  expectation_failed: { status: 417, title: 'Only Expect: 100-continue is supported' },
  headers_too_large: { status: 431, title: 'Request headers too large' },
  // Answered by the proxy (`petstore-mock proxy`) when its upstream gives no answer (src/server/proxy-server.ts).
  bad_gateway: { status: 502, title: 'The upstream gave no answer' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof errorCatalogue;

/** The Error body of the interface (section 2). */
export interface ErrorBody {
  code: string;
  message: string;
  status: number;
}

/**
 * The Error body of a catalogued code as JSON text, for the edges that write bytes themselves (the
 * server's protocol guards, the proxy): the status is the catalogue's.
 *
 * @example errorBodyText('bad_gateway', 'Failed to get an answer from the upstream: ECONNREFUSED') // '{"code":"bad_gateway",...,"status":502}'
 */
export function errorBodyText(code: ErrorCode, message: string = errorCatalogue[code].title): string {
  return JSON.stringify({ code, message, status: errorCatalogue[code].status } satisfies ErrorBody);
}

/**
 * The one error type the core throws; it is turned into a response at one edge (`mock-app.ts`).
 *
 * @example throw new HttpError('validation_failed', 'name must be a string', { field: 'name' })
 */
export class HttpError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message?: string, headers: Record<string, string> = {}) {
    // An HttpError is an answer, not a bug: nobody reads its stack, and capturing one was a tenth
    // of the cost of a 401 or 429 under load.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message ?? errorCatalogue[code].title);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'HttpError';
    this.code = code;
    this.status = errorCatalogue[code].status;
    this.headers = headers;
  }

  toBody(): ErrorBody {
    return { code: this.code, message: this.message, status: this.status };
  }
}

import type { ContractTarget } from './contract-target.js';
import type { Identity } from './exchange.js';

/** One request as a check describes it. */
export interface ApiRequest {
  operationId: string;
  /** GET and POST for the operations; other methods for the 405 probes. */
  method: string;
  /** Spec path with parameters filled in: `/categories`, `/pets/1`; may carry a query string. */
  path: string;
  /** More headers for this request (a key offered in a cookie); they win over -H headers. */
  headers?: Record<string, string>;
  /** The Authorization header value; undefined sends none. */
  authorization?: string;
  /** The rate budget this request draws on. */
  identity: Identity;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as is: malformed JSON as text, or bytes no JSON writer produces (invalid UTF-8). */
  rawBody?: string | Uint8Array;
  /** The Accept header; default `application/json`, null sends none. */
  accept?: string | null;
  /** Default `application/json` when a body is sent. */
  contentType?: string;
  /** Frame the body with `Transfer-Encoding: chunked` instead of Content-Length (the generators vary framing). */
  chunked?: boolean;
  /** Send these Authorization headers as separate field lines (two credentials in one request); wins over `authorization`. */
  authorizations?: readonly string[];
  /** Send straight to the server even when the run goes through Prism (Prism cannot forward it). */
  bypassPrism?: boolean;
  /** The request is outside what the interface describes (a non-JSON media type): which 4xx answers it is open. */
  offInterface?: boolean;
  /**
   * Send no earlier than this instant of the kit's clock: the kit waits on purpose first (out of
   * --window-wait, within --deadline), with the semaphore free. A wait that does not fit throws
   * `OverBudget`, so the check ends INCONCLUSIVE for its cell. A request of the rate-limit key
   * that waits at least until its last 429's Retry-After may be sent again.
   */
  notBefore?: { atMs: number; why: string };
  /**
   * Send with the rate-limit key although its last 429 has not been waited out: only for the
   * check that sees what keeping on sending gets (interface section 8, rule 3).
   */
  keepSendingAfter429?: boolean;
  /**
   * Spend the main key to its 429 on purpose (--exhaust-main-key): no pacing by its budget, and
   * its 429 is returned to the check instead of ending it INCONCLUSIVE.
   */
  spendToLimit?: boolean;
}

/** The headers a request is sent with: -H headers first, so whatever the check sets wins over them. */
export function requestHeaders(
  target: ContractTarget,
  apiRequest: ApiRequest,
  body: string | Uint8Array | undefined,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(target.extraHeaders)) headers[name.toLowerCase()] = value;
  for (const [name, value] of Object.entries(apiRequest.headers ?? {})) headers[name.toLowerCase()] = value;
  if (apiRequest.accept !== null) headers.accept = apiRequest.accept ?? 'application/json';
  headers['user-agent'] = `petstore-contract (run ${target.runId})`;
  if (apiRequest.authorization !== undefined) headers.authorization = apiRequest.authorization;
  const contentType = apiRequest.contentType ?? (body === undefined ? undefined : 'application/json');
  if (contentType !== undefined) headers['content-type'] = contentType;
  if (apiRequest.authorizations !== undefined) headers.authorization = apiRequest.authorizations.join(', ');
  if (apiRequest.chunked === true && body !== undefined) headers['transfer-encoding'] = 'chunked';
  return headers;
}

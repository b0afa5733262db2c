import { looksLikeCredentialHeader, maskHeaderValue } from '../../spec/credential-masking.js';
import {
  type ObservedExchange,
  type ObservedResponse,
  responseBodyExcerpt,
  truncate,
} from '../../spec/interface/observed.js';
import type { Evidence as ReportEvidence } from '../report/report-schema.js';

export { truncate };

/** Which rate budget a request draws on, as far as the kit can tell. */
export type Identity = 'main' | 'anonymous' | 'rate-limit';

/** One request the suite sent and what came back: the raw material of every check and of the report. */
export interface Exchange {
  seq: number;
  /** Id of the check that sent it. */
  checkId: string;
  /** The spec operation the request was aimed at. */
  operationId: string;
  identity: Identity;
  request: {
    method: string;
    url: string;
    /** Path relative to the base URL, as in the spec (`/categories`). */
    path: string;
    /** Headers sent, with credentials masked. */
    headers: Record<string, string>;
    /** Body sent (truncated), or undefined when none. */
    body: string | undefined;
  };
  sentAtMs: number;
  receivedAtMs: number;
  /**
   * The sequence number the next request had when this answer (or its failure) arrived: every
   * exchange with `seq` at least this was sent after it. Orders events even on a clock that
   * stands still.
   */
  nextSeqAtAnswer?: number;
  /** Undefined when no response arrived (then `transportError` says why). */
  response: ExchangeResponse | undefined;
  transportError: string | undefined;
  /** Sent straight to the server although the run goes through Prism (Prism cannot forward it). */
  bypassedPrism: boolean;
  /** The request is outside what the interface describes: an undeclared 4xx answer to it is information. */
  offInterface?: boolean;
  /** Prism answered in the server's place (it refused to forward): the server said nothing here. */
  answeredByPrism: boolean;
  /** Prism's `sl-violations` header, when the run goes through Prism. */
  prismViolations: PrismViolation[];
}

export interface ExchangeResponse extends ObservedResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** Body text (truncated to keep reports small). */
  bodyText: string;
  /** `hasJson` is true when the body parsed as JSON; `json` then holds the value. */
  hasJson: boolean;
  json: unknown;
  /** Set when the body was longer than --max-body-bytes: only that much was read, the rest discarded. */
  truncatedAtBytes?: number | undefined;
}

export interface PrismViolation {
  location: string[];
  severity: string;
  code?: string | number;
  message: string;
}

/** What a report shows of one failure: the request, the status, the offending header or field. */
export type Evidence = ReportEvidence;

const maxBodyInEvidence = 160;

/**
 * One line naming a request: method, URL, masked Authorization and the start of the body.
 *
 * @example describeRequest(exchange) // 'GET http://127.0.0.1:4010/v1/categories [Authorization: Basic demo…(15)]'
 */
function describeRequest(exchange: Exchange): string {
  const { method, url, headers, body } = exchange.request;
  const auth = headers.authorization === undefined ? 'no Authorization' : `Authorization: ${headers.authorization}`;
  const offered = Object.entries(headers)
    .filter(([name]) => name === 'cookie' || (name !== 'authorization' && looksLikeCredentialHeader(name)))
    .map(([name, value]) => `${name}: ${value}`);
  const shownBody = body === undefined ? '' : ` body ${truncate(body, maxBodyInEvidence)}`;
  const via = exchange.bypassedPrism ? ' (sent directly, bypassing Prism)' : '';
  return `${method} ${url} [${[auth, ...offered].join('; ')}]${shownBody}${via}`;
}

/**
 * Builds the evidence of a failure about one exchange.
 *
 * @example evidenceOf(exchange, 'expected 401, got 200')
 */
export function evidenceOf(
  exchange: Exchange,
  detail: string,
  where: { header?: string; field?: string } = {},
): Evidence {
  return {
    request: describeRequest(exchange),
    seq: exchange.seq,
    ...(exchange.response ? { status: exchange.response.status } : {}),
    ...where,
    detail,
  };
}

/** The body of a response, shortened for a report line. */
export function bodyExcerpt(exchange: Exchange, length = maxBodyInEvidence): string {
  return exchange.response ? responseBodyExcerpt(exchange.response, length) : '(no response)';
}

/** Headers for the record, with credentials masked (Authorization keeps its scheme visible). */
export function maskHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = maskHeaderValue(name, value);
  return out;
}

/** The exchange as the shared judging rules read it (spec/interface/), or undefined when no answer came. */
export function observedOf(exchange: Exchange): ObservedExchange | undefined {
  const response = exchange.response;
  return response === undefined ? undefined : { ...exchange, response };
}

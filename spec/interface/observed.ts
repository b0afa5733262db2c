/**
 * What the judging rules read of one answered request: the structural part of the kit's `Exchange`
 * that the proxy can fill from traffic it forwards. Plain data, no Node types.
 */
export interface ObservedResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Readonly<Record<string, string>>;
  /** Body text (the first bytes only when `truncatedAtBytes` is set). */
  bodyText: string;
  /** True when the body parsed as JSON; `json` then holds the value. */
  hasJson: boolean;
  json: unknown;
  /** Set when the body was longer than the bound: only that much was read, and its content is not judged. */
  truncatedAtBytes?: number | undefined;
}

export interface ObservedExchange {
  /** The operation the request was aimed at (the kit's target, the proxy's route); '' when none. */
  operationId: string;
  request: { method: string };
  /** When the request left, on the observer's clock (a request sent after a 429's Retry-After is judged by it). */
  sentAtMs?: number | undefined;
  /** When the answer arrived, on the observer's clock (judged against the answer's own Date when it has one). */
  receivedAtMs: number;
  response: ObservedResponse;
  /** The request is outside what the interface describes: an undeclared 4xx answer to it is information. */
  offInterface?: boolean | undefined;
}

/** One thing a rule found wrong with one response. */
export interface RuleViolation {
  /** What is wrong, as the evidence line shows it. */
  detail: string;
  /** The same, standing alone in a summary (defaults to `detail`). */
  summary?: string;
  header?: string;
  field?: string;
}

const maxBodyInEvidence = 160;

/**
 * Shortens text for a report line, saying how long it was.
 *
 * @example truncate('abcdef', 3) // 'abc… (6 chars)'
 */
export function truncate(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length)}… (${text.length} chars)`;
}

/**
 * The body of a response, shortened for a report line; a body cut at the bound says so.
 *
 * @example responseBodyExcerpt({ status: 200, headers: {}, bodyText: '', hasJson: false, json: undefined }) // '(empty body)'
 */
export function responseBodyExcerpt(response: ObservedResponse, length = maxBodyInEvidence): string {
  const cut =
    response.truncatedAtBytes === undefined
      ? ''
      : ` [body longer than --max-body-bytes ${response.truncatedAtBytes}: only that much was read, the rest discarded, not judged]`;
  return response.bodyText === '' ? `(empty body)${cut}` : `${truncate(response.bodyText, length)}${cut}`;
}

import type { FaultKind, FaultRule, FaultSettings, LatencyRange } from '../config/fault-config.js';
import type { MockResponse } from '../types.js';

/** What one request meets (decision 042): a fault or none, a latency, and the status a `status` fault asks for. */
export interface FaultDecision {
  fault: FaultKind | undefined;
  delayMs: number;
  /** The status named for a `status` fault (a rule's `status`, `Prefer: code=`), when one is. */
  status: number | undefined;
}

/** What a request offers to the decision: its operation, its key (as sent), and what `Prefer` asked. */
export interface FaultQuery {
  operationId: string;
  token: string | undefined;
  asked?: { delay?: number | undefined; fault?: FaultKind | undefined; code?: number | undefined } | undefined;
}

/**
 * The one decision of latency and fault, for the mock's pipeline and the proxy alike: what the request
 * asked for (`Prefer: fault=`, `delay=`) first; else the first rule that matches the operation and the
 * key and is drawn (each rule tried takes one draw of `draw`), with its latency, else the settings' latency
 * (a range takes one more draw). Pure but for `draw`: the same draws give the same decision.
 */
export function decideFault(settings: FaultSettings | undefined, query: FaultQuery, draw: () => number): FaultDecision {
  const asked = query.asked;
  let latency = settings?.latency;
  let fault: FaultKind | undefined;
  let status: number | undefined;
  if (asked?.fault !== undefined) {
    fault = asked.fault;
    status = asked.code;
  } else {
    const rule = drawnRule(settings?.rules, query, draw);
    if (rule !== undefined) {
      fault = rule.fault;
      status = rule.status;
      if (rule.latency !== undefined) latency = rule.latency;
    }
  }
  const delayMs = asked?.delay ?? (latency === undefined ? 0 : drawnLatency(latency, draw));
  return { fault, delayMs, status };
}

function drawnRule(rules: readonly FaultRule[] | undefined, query: FaultQuery, draw: () => number) {
  if (rules === undefined) return undefined;
  for (const rule of rules) {
    if (rule.operations !== undefined && !rule.operations.includes(query.operationId)) continue;
    if (rule.keys !== undefined && (query.token === undefined || !rule.keys.includes(query.token))) continue;
    if (rule.rate >= 1 || (rule.rate > 0 && draw() < rule.rate)) return rule;
  }
  return undefined;
}

function drawnLatency({ minMs, maxMs }: LatencyRange, draw: () => number): number {
  return maxMs === minMs ? minMs : minMs + Math.floor(draw() * (maxMs - minMs + 1));
}

/** The statuses a `status` fault picks first, in order, among those the operation declares. */
const preferredFaultStatuses = [503, 500, 502, 504, 429];

/** A `status` fault's status: the one named, else one declared (503, 500, 502, 504, 429, then any 5xx), else 503. */
export function faultStatusOf(declared: Iterable<number>, named: number | undefined): number {
  if (named !== undefined) return named;
  const statuses = [...declared];
  return (
    preferredFaultStatuses.find((candidate) => statuses.includes(candidate)) ??
    statuses.find((candidate) => candidate >= 500) ??
    503
  );
}

/** The Error body of a `status` fault. */
export function faultErrorBody(status: number): { code: string; message: string; status: number } {
  const code = status === 429 ? 'rate_limited' : 'injected_fault';
  return { code, message: `A fault the mock was asked to inject (fault=status): ${status}`, status };
}

const textEncoder = new TextEncoder();

/**
 * The answer's status and declared media type with a body that does not parse: its first half, made
 * unparseable for its type (JSON: a value left open; XML: an element left open; bytes: cut; any other
 * text: an invalid UTF-8 sequence), as a connection cut or a broken proxy leaves it.
 */
export function malformedAnswer(response: MockResponse): MockResponse {
  if (response.body === null && response.bytes !== undefined)
    return { ...response, bytes: response.bytes.subarray(0, Math.floor(response.bytes.byteLength / 2)) };
  const text = response.body ?? '';
  const half = text.slice(0, Math.floor(text.length / 2));
  const contentType = (response.headers['Content-Type'] ?? '').toLowerCase();
  if (contentType.includes('json') || contentType === '') return { ...response, body: unparseableJson(half) };
  if (contentType.includes('xml')) return { ...response, body: `${half}<` };
  const bytes = textEncoder.encode(half);
  const broken = new Uint8Array(bytes.byteLength + 2);
  broken.set(bytes);
  // A lead byte followed by one that cannot continue it: no UTF-8 decoder reads it.
  broken.set([0xc3, 0x28], bytes.byteLength);
  return { ...response, body: null, bytes: broken };
}

function unparseableJson(half: string): string {
  if (half.trim() === '') return '{';
  try {
    JSON.parse(half);
    // Half of `12345` is still a number: a value after it never is JSON.
    return `${half}{`;
  } catch {
    return half;
  }
}

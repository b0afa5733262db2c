import { type FaultRule, type FaultSettings, faultDefaults, type LatencyRange } from '../config/fault-config.js';
import { HttpError } from '../errors.js';
import type { CompiledOperation } from '../spec/compiled-spec.js';
import type { MockResponse } from '../types.js';
import type { RequestRecord } from './request-record.js';

/**
 * The latency and the fault of one request (decision 042), decided before the store: `Prefer:
 * delay=MS` and `fault=KIND` first, then the session's settings (the config's, a scenario's or the
 * controls'): the first rule that matches the operation and the key and is drawn (its `rate`, from the
 * session's seeded sequence) gives the fault, and its latency, else the settings' latency applies. A
 * `status` fault is answered like a forced status, so 401s and 429s still come first (decision 003).
 * Only requests that reach an operation of the document meet faults.
 */
export function planFault(record: RequestRecord): undefined {
  const { runtime, operation } = record;
  const preferences = record.preferences;
  if (operation === undefined) return undefined;
  const asked = preferences !== undefined && (preferences.delay !== undefined || preferences.fault !== undefined);
  if (!asked && !runtime.faults.active) return undefined;
  const settings = runtime.faults.settingsOf(record.session);
  let latency = settings?.latency;
  let status: number | undefined;
  if (preferences?.fault !== undefined) {
    record.fault = preferences.fault;
    status = preferences.code;
  } else {
    const rule = drawnRule(record, settings, operation.operationId);
    if (rule !== undefined) {
      record.fault = rule.fault;
      status = rule.status;
      if (rule.latency !== undefined) latency = rule.latency;
    }
  }
  record.delayMs = preferences?.delay ?? (latency === undefined ? 0 : drawnLatency(record, latency));
  if (record.fault === 'status') record.forced = statusFault(operation, status);
  return undefined;
}

/** The first rule of the settings that matches the request and whose rate is drawn; each rule tried takes one draw. */
function drawnRule(
  record: RequestRecord,
  settings: FaultSettings | undefined,
  operationId: string,
): FaultRule | undefined {
  const rules = settings?.rules;
  if (rules === undefined) return undefined;
  const token = record.credentials?.kind === 'token' ? record.credentials.token : undefined;
  for (const rule of rules) {
    if (rule.operations !== undefined && !rule.operations.includes(operationId)) continue;
    if (rule.keys !== undefined && (token === undefined || !rule.keys.includes(token))) continue;
    if (rule.rate >= 1 || (rule.rate > 0 && record.runtime.faults.draw(record.session) < rule.rate)) return rule;
  }
  return undefined;
}

function drawnLatency(record: RequestRecord, { minMs, maxMs }: LatencyRange): number {
  if (maxMs === minMs) return minMs;
  return minMs + Math.floor(record.runtime.faults.draw(record.session) * (maxMs - minMs + 1));
}

/** `Prefer: fault=status, code=N`: N must be a 5xx or 429 (declared or not: a fault is what the document did not plan). */
export function checkFaultStatus(code: number | undefined): void {
  if (code !== undefined && code !== 429 && (code < 500 || code > 599))
    throw new HttpError('invalid_prefer', `Prefer: fault=status takes a code of 5xx or 429, got ${code}`);
}

/** The statuses a `status` fault picks first, in order, among those the operation declares. */
const preferredFaultStatuses = [503, 500, 502, 504, 429];

/**
 * A `status` fault as a forced answer: the status asked for, else one the operation declares (503
 * first, then 500, 502, 504, 429, then any 5xx), else 503; the body is the document's error shape.
 */
function statusFault(operation: CompiledOperation, wanted: number | undefined) {
  const declared = operation.responses;
  const status =
    wanted ??
    preferredFaultStatuses.find((candidate) => declared.has(candidate)) ??
    [...declared.keys()].find((candidate) => candidate >= 500) ??
    503;
  const code = status === 429 ? 'rate_limited' : 'injected_fault';
  const message = `A fault the mock was asked to inject (fault=status): ${status}`;
  return { status, body: () => ({ code, message, status }) };
}

/**
 * After the answer is made: `malformed` and `empty` change its body, and what the transport carries
 * out (the latency, `reset`, `close`, `timeout`, `slow-body`) is attached to it.
 */
export function applyFault(record: RequestRecord): undefined {
  const { delayMs } = record;
  if (record.fault === undefined && delayMs === 0) return undefined;
  if (record.hit === null) {
    // The store failed: its 503 is the answer, with no fault of ours on top.
    record.fault = undefined;
    record.delayMs = 0;
    return undefined;
  }
  // A status fault is answered only where the operation's own answer would have been (never over a 401 or a 429).
  if (record.fault === 'status' && !record.forcedAnswer) record.fault = undefined;
  const fault = record.fault;
  if (fault === undefined && delayMs === 0) return undefined;
  let response = record.response;
  if (fault === 'malformed') response = malformed(response);
  else if (fault === 'empty') response = { ...response, body: '', bytes: undefined };
  const settings = record.runtime.faults.settingsOf(record.session);
  const transportKind =
    fault === 'reset' || fault === 'close' || fault === 'timeout' || fault === 'slow-body' ? fault : undefined;
  record.response = {
    ...response,
    fault: {
      delayMs,
      ...(transportKind === undefined ? {} : { kind: transportKind }),
      timeoutMs: settings?.timeoutMs ?? faultDefaults.timeoutMs,
      slowBody: settings?.slowBody ?? faultDefaults.slowBody,
    },
  };
  return undefined;
}

const textEncoder = new TextEncoder();

/**
 * The answer's status and declared media type with a body that does not parse: its first half, made
 * unparseable for its type (JSON: a value left open; XML: an element left open; bytes: cut; any other
 * text: an invalid UTF-8 sequence), as a connection cut or a broken proxy leaves it.
 */
function malformed(response: MockResponse): MockResponse {
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

import { faultDefaults } from '../config/fault-config.js';
import { HttpError } from '../errors.js';
import { decideFault, faultErrorBody, faultStatusOf, malformedAnswer } from '../wire/faults.js';
import type { RequestRecord } from './request-record.js';

/**
 * The latency and the fault of one request (decision 042), decided before the store: `Prefer:
 * delay=MS` and `fault=KIND` first, then the session's settings (the config's, a scenario's or the
 * controls'), drawn from the session's seeded sequence (wire/faults.ts, shared with the proxy). A
 * `status` fault is answered like a forced status, so 401s and 429s still come first (decision 003).
 * Only requests that reach an operation of the document meet faults.
 */
export function planFault(record: RequestRecord): undefined {
  const { runtime, operation, preferences } = record;
  if (operation === undefined) return undefined;
  const asked = preferences !== undefined && (preferences.delay !== undefined || preferences.fault !== undefined);
  if (!asked && !runtime.faults.active) return undefined;
  const decision = decideFault(
    runtime.faults.settingsOf(record.session),
    {
      operationId: operation.operationId,
      token: record.credentials?.kind === 'token' ? record.credentials.token : undefined,
      asked: preferences,
    },
    () => runtime.faults.draw(record.session),
  );
  record.fault = decision.fault;
  record.delayMs = decision.delayMs;
  if (decision.fault === 'status') {
    const status = faultStatusOf(operation.responses.keys(), decision.status);
    record.forced = { status, body: () => faultErrorBody(status) };
  }
  return undefined;
}

/** `Prefer: fault=status, code=N`: N must be a 5xx or 429 (declared or not: a fault is what the document did not plan). */
export function checkFaultStatus(code: number | undefined): void {
  if (code !== undefined && code !== 429 && (code < 500 || code > 599))
    throw new HttpError('invalid_prefer', `Prefer: fault=status takes a code of 5xx or 429, got ${code}`);
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
  if (fault === 'malformed') response = malformedAnswer(response);
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

import { Buffer } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type FaultKind, type FaultSettings, faultDefaults } from '../core/config/fault-config.js';
import { FaultSessions } from '../core/state/fault-sessions.js';
import { decideFault, faultErrorBody, faultStatusOf, malformedAnswer } from '../core/wire/faults.js';
import { dripBody, endUnanswered } from './fault-writes.js';
import { forwardedHeaders } from './proxy-upstream-message.js';

/**
 * Latency and faults of the judging proxy towards its client (decision 042): the same settings and the
 * same decision as the mock's (wire/faults.ts), drawn from the proxy's seed. The request is forwarded
 * as it came (the upstream does the work, as behind a real flaky network); what the client gets is
 * changed: its answer late, reset, closed or held unanswered, dripped, cut or emptied. A `status`
 * fault is the proxy's own answer (a gateway's 5xx), not forwarded. `Prefer` goes upstream untouched.
 */
export interface ProxyFaultPlan {
  fault: FaultKind | undefined;
  delayMs: number;
  /** For a `status` fault: the status answered. */
  status: number;
  timeoutMs: number;
  slowBody: { chunks: number; durationMs: number };
}

export interface ProxyFaults {
  /** The plan for one request to `operation` (null: one the document does not declare: no fault). */
  plan(
    request: IncomingMessage,
    operation: { operationId: string; statuses: Iterable<number> } | null,
  ): ProxyFaultPlan | undefined;
}

export function createProxyFaults(settings: FaultSettings | undefined, seed: number): ProxyFaults | undefined {
  if (settings === undefined) return undefined;
  const draws = new FaultSessions(settings, seed, 0);
  return {
    plan(request, operation) {
      if (operation === null) return undefined;
      const authorization = request.headers.authorization;
      const token = authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
      const decision = decideFault(settings, { operationId: operation.operationId, token }, () =>
        draws.draw('default'),
      );
      if (decision.fault === undefined && decision.delayMs === 0) return undefined;
      return {
        fault: decision.fault,
        delayMs: decision.delayMs,
        status: decision.fault === 'status' ? faultStatusOf(operation.statuses, decision.status) : 0,
        timeoutMs: settings.timeoutMs ?? faultDefaults.timeoutMs,
        slowBody: settings.slowBody ?? faultDefaults.slowBody,
      };
    },
  };
}

/** Waits the plan's latency; false when the client went away meanwhile (nothing is forwarded then). */
export function waitLatency(request: IncomingMessage, plan: ProxyFaultPlan | undefined): Promise<boolean> {
  if (plan === undefined || plan.delayMs === 0) return Promise.resolve(true);
  const socket = request.socket;
  return new Promise((resolve) => {
    // One listener for the wait, removed after it: a keep-alive connection carries many requests.
    const gone = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      socket.off('close', gone);
      resolve(!socket.destroyed);
    }, plan.delayMs).unref();
    socket.once('close', gone);
  });
}

/** A `status` fault: the proxy's own answer, in the API's Error shape. */
export function answerStatusFault(response: ServerResponse, plan: ProxyFaultPlan): void {
  const body = JSON.stringify(faultErrorBody(plan.status));
  response.writeHead(plan.status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  response.end(body);
}

/**
 * Hands the upstream's answer to the client as the plan's fault says, once it has come whole (the
 * judge reads it meanwhile, as for any answer): nothing, after a reset, a close or a hold; or its head
 * with a body dripped, cut or emptied. An answer over `maxBytes` is forwarded as it is. `client`: the
 * request the answer is for, and the client's response.
 */
export function forwardWithFault(
  answer: IncomingMessage,
  client: { request: IncomingMessage; response: ServerResponse },
  plan: ProxyFaultPlan,
  maxBytes: number,
): void {
  const { request, response } = client;
  const fault = plan.fault!;
  if (fault === 'reset' || fault === 'close' || fault === 'timeout') {
    answer.on('end', () => endUnanswered(request.socket, fault, plan.timeoutMs));
    answer.resume();
    return;
  }
  const status = answer.statusCode ?? 502;
  if (request.method === 'HEAD' || status === 204 || status === 304) {
    // No body to drip, cut or empty: the answer goes as it came.
    response.writeHead(status, answer.statusMessage, forwardedHeaders(answer.rawHeaders));
    answer.pipe(response);
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  answer.on('data', (chunk: Buffer) => {
    size += chunk.length;
    chunks.push(chunk);
  });
  answer.on('end', () => {
    const headers = withoutFraming(forwardedHeaders(answer.rawHeaders));
    const whole = Buffer.concat(chunks);
    const body = size > maxBytes ? whole : faultyBody(fault, whole, answer.headers['content-type']);
    headers.push('Content-Length', `${body.byteLength}`);
    response.writeHead(status, answer.statusMessage, headers);
    if (fault === 'slow-body' && size <= maxBytes) dripBody(response, body, plan.slowBody);
    else response.end(body);
  });
}

function faultyBody(fault: FaultKind, body: Buffer, contentType: string | undefined): Uint8Array {
  if (fault === 'empty') return Buffer.alloc(0);
  if (fault !== 'malformed') return body;
  // A text body is cut as text (left open for its media type), bytes as bytes.
  const headers: Record<string, string> = contentType === undefined ? {} : { 'Content-Type': contentType };
  const cut = isText(contentType)
    ? malformedAnswer({ status: 200, headers, body: body.toString('utf8') })
    : malformedAnswer({ status: 200, headers, body: null, bytes: body });
  return cut.body !== null ? Buffer.from(cut.body, 'utf8') : cut.bytes!;
}

function isText(contentType: string | undefined): boolean {
  return contentType === undefined || /json|xml|^text\//i.test(contentType);
}

function withoutFraming(raw: string[]): string[] {
  const out: string[] = [];
  for (let index = 0; index < raw.length; index += 2) {
    const name = raw[index]!.toLowerCase();
    if (name !== 'content-length' && name !== 'transfer-encoding') out.push(raw[index]!, raw[index + 1]!);
  }
  return out;
}

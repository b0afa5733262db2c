import type { RateDecision } from '../core/rate-limiter.js';
import type { MockRequest, MockResponse } from '../core/types.js';
import type { LabLimits, LabObservation } from './lab-types.js';

/**
 * Builds a lab observation from what is on the wire: a request and the core's response. The replay
 * and the scripted-client proofs use it with today's core; the integration into the core feeds the
 * lab from the rate decision itself (see `windowResetOf`), which needs no guessing.
 *
 * What the wire says: a 429 with code `key_banned` is a ban; a 429 with code `rate_limited` is the
 * limiter's refusal unless its message says it was forced by Prefer; the `Deprecation` header marks a
 * deprecated operation (its `Sunset` gives the date); a window reset is a response whose
 * X-RateLimit-Reset is exactly one window (minute or day) after this request, for a client seen before.
 *
 * @example
 * observeExchange(request, response, { atMs, client: 'demo-free', kind: 'key', plan: 'free',
 *   limits: { perMinute: 60, perDay: 1000 }, operation: { operationId: 'listCategories' }, seenBefore: true });
 */
export function observeExchange(
  request: Pick<MockRequest, 'method' | 'url' | 'headers'>,
  response: MockResponse,
  context: {
    atMs: number;
    client: string;
    clientId?: string;
    kind: 'key' | 'anonymous';
    plan: string;
    limits: LabLimits;
    operation: { operationId: string } | null;
    /** The client sent a request before this one (a first request always starts fresh windows). */
    seenBefore: boolean;
  },
): LabObservation {
  const path = pathOnly(request.url);
  const status = response.status;
  const headers = response.headers;
  let outcome: LabObservation['outcome'] = 'allowed';
  let forced = false;
  const preferred = preferAsksForResponse(request.headers.prefer);
  if (path === '/__mock' || path.startsWith('/__mock/') || (request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined)) {
    outcome = 'other';
  } else if (status === 429) {
    const code = codeOf(response.body);
    const forcedMessage = response.body !== null && response.body.includes('"message":"Forced by Prefer');
    if (code === 'key_banned' && !forcedMessage) outcome = 'banned';
    else if (!forcedMessage) outcome = 'limited';
    else forced = true;
  } else if (preferred) {
    // A forced error says so in its message; a forced success cannot be told from a real one, but the
    // core serves Prefer on every allowed request of a known operation, so asked for means forced.
    forced = status < 400 ? context.operation !== null : response.body !== null && response.body.includes('"message":"Forced by Prefer');
  }
  const retryAfter = headers['Retry-After'];
  const deprecation = headers.Deprecation;
  const sunset = headers.Sunset;
  const observation: LabObservation = {
    atMs: context.atMs,
    client: context.client,
    ...(context.clientId !== undefined ? { clientId: context.clientId } : {}),
    kind: context.kind,
    plan: context.plan,
    limits: context.limits,
    method: request.method,
    path,
    operationId: context.operation?.operationId ?? null,
    status,
    outcome,
    forced,
    windowReset: false,
  };
  if (status === 429 && retryAfter !== undefined && /^\d+$/.test(retryAfter)) observation.retryAfterSeconds = Number(retryAfter);
  if (deprecation !== undefined) {
    const sunsetMs = sunset === undefined ? Number.NaN : Date.parse(sunset);
    observation.deprecated = { sunset: Number.isNaN(sunsetMs) ? null : new Date(sunsetMs).toISOString() };
  }
  if (context.seenBefore && outcome === 'allowed') {
    const reset = Number(headers['X-RateLimit-Reset']);
    observation.windowReset = reset === Math.ceil((context.atMs + 60_000) / 1000) || reset === Math.ceil((context.atMs + 86_400_000) / 1000);
  }
  return observation;
}

/**
 * Whether a request found a window over and began a new one, from the core's rate decision: what the
 * core sets `LabObservation.windowReset` to. `previousRequests` is the client's count before this one
 * (`HitResult.history.requests - 1`).
 */
export function windowResetOf(decision: Pick<RateDecision, 'outcome' | 'windows'>, nowMs: number, previousRequests: number): boolean {
  if (previousRequests <= 0 || decision.outcome === 'banned') return false;
  return decision.windows.some((window) => window.resetAtMs - window.windowSeconds * 1000 === nowMs);
}

function preferAsksForResponse(prefer: string | undefined): boolean {
  return prefer !== undefined && /(?:^|[;,\s])(?:code|example)\s*=|(?:^|[;,\s])dynamic(?:\s*=\s*true)?(?:$|[;,\s])/i.test(prefer);
}

function codeOf(body: string | null): string | null {
  if (body === null) return null;
  const match = /"code":"([^"]{1,64})"/.exec(body);
  return match ? match[1]! : null;
}

function pathOnly(url: string): string {
  const questionMark = url.indexOf('?');
  return questionMark === -1 ? url : url.slice(0, questionMark);
}

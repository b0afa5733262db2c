import { targetPath } from '../../spec/url-parts.js';
import type { RateDecision } from '../core/state/rate-limiter.js';
import type { HitResult } from '../core/state/state-store.js';
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
  context: Pick<LabObservation, 'atMs' | 'client' | 'clientId' | 'kind' | 'plan' | 'limits'> & {
    operation: { operationId: string } | null;
    /** The client sent a request before this one (a first request always starts fresh windows). */
    seenBefore: boolean;
    /** When that previous request came, if known: one in the same millisecond shares its windows. */
    previousAtMs?: number;
  },
): LabObservation {
  const path = targetPath(request.url);
  const status = response.status;
  const headers = response.headers;
  let outcome: LabObservation['outcome'] = 'allowed';
  let forced = false;
  const preferred = preferAsksForResponse(request.headers.prefer);
  if (
    path === '/__mock' ||
    path.startsWith('/__mock/') ||
    (request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined)
  ) {
    outcome = 'other';
  } else if (status === 429) {
    const code = codeOf(response.body);
    const forcedMessage = response.body?.includes('"message":"Forced by Prefer') === true;
    if (code === 'key_banned' && !forcedMessage) outcome = 'banned';
    else if (!forcedMessage) outcome = 'limited';
    else forced = true;
  } else if (preferred) {
    // A forced error says so in its message; a forced success cannot be told from a real one, but the
    // core serves Prefer on every allowed request of a known operation, so asked for means forced.
    forced =
      status < 400 ? context.operation !== null : response.body?.includes('"message":"Forced by Prefer') === true;
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
  const idempotencyKey = request.headers['idempotency-key'];
  if (idempotencyKey !== undefined) observation.idempotencyKey = idempotencyKey.slice(0, 200);
  if (status === 429 && retryAfter !== undefined && /^\d+$/.test(retryAfter))
    observation.retryAfterSeconds = Number(retryAfter);
  if (deprecation !== undefined) {
    const sunsetMs = sunset === undefined ? Number.NaN : Date.parse(sunset);
    observation.deprecated = { sunset: Number.isNaN(sunsetMs) ? null : new Date(sunsetMs).toISOString() };
  }
  if (
    context.seenBefore &&
    outcome === 'allowed' &&
    (context.previousAtMs === undefined || context.previousAtMs < context.atMs)
  ) {
    const reset = Number(headers['X-RateLimit-Reset']);
    observation.windowReset =
      reset === Math.ceil((context.atMs + 60_000) / 1000) || reset === Math.ceil((context.atMs + 86_400_000) / 1000);
  }
  return observation;
}

/**
 * Whether a request found a window over and began a new one, from the core's rate decision: what the
 * core sets `LabObservation.windowReset` to. `previousRequestAtMs` is the client's previous request
 * (the lab keeps it: `labState.clients[hit.client]?.lastAtMs ?? null`), null for its first.
 */
export function windowResetOf(
  decision: Pick<RateDecision, 'outcome' | 'windows'>,
  nowMs: number,
  previousRequestAtMs: number | null,
): boolean {
  // A window that began now began with this request only if the client's previous request came
  // earlier: two requests in the same millisecond share the window the first one opened.
  if (previousRequestAtMs === null || previousRequestAtMs >= nowMs || decision.outcome === 'banned') return false;
  // A loop, not some() with an arrow: no closure made on every request.
  for (const window of decision.windows) if (window.resetAtMs - window.windowSeconds * 1000 === nowMs) return true;
  return false;
}

function preferAsksForResponse(prefer: string | undefined): boolean {
  return (
    prefer !== undefined &&
    /(?:^|[;,\s])(?:code|example)\s*=|(?:^|[;,\s])dynamic(?:\s*=\s*true)?(?:$|[;,\s])/i.test(prefer)
  );
}

function codeOf(body: string | null): string | null {
  if (body === null) return null;
  const match = /"code":"([^"]{1,64})"/.exec(body);
  return match ? match[1]! : null;
}

/**
 * The observation of a request the core served, from what it holds at the end of the request: the
 * store's `HitResult` (one round trip, no other), the route and the response. What the integration
 * calls after each API request (not for the controls or a CORS preflight).
 *
 * @example
 * observeLab(labState, observationFromHit({ hit, method: 'GET', path: '/v1/pets/1', operationId: 'getPetById',
 *   status: 200, forced: false, deprecatedSunset: '2027-12-31T23:59:59.000Z', anonymousLimits: config.anonymous,
 *   display: demoKeyNames.has(token) ? token : undefined, previousRequestAtMs: labState.clients[hit.client]?.lastAtMs ?? null }),
 *   '/pets/{petId}');
 */
export function observationFromHit(input: {
  hit: Pick<HitResult, 'nowMs' | 'decision' | 'key' | 'client'>;
  method: string;
  /** Path without the query. */
  path: string;
  operationId: string | null;
  status: number;
  /** The response came from `Prefer` (forcedResponse returned one). */
  forced: boolean;
  /** undefined when the operation is not deprecated; else its sunset (ISO) or null. */
  deprecatedSunset?: string | null;
  anonymousLimits: LabLimits;
  /** How to show a key client (a demo key in full); default the key's mask. */
  display?: string;
  /** The client's previous request (`labState.clients[hit.client]?.lastAtMs ?? null`). */
  previousRequestAtMs: number | null;
  /** The fault and latency the request log recorded, and the request's Idempotency-Key (resilience verdicts). */
  fault?: LabObservation['fault'];
  delayMs?: number;
  idempotencyKey?: string;
}): LabObservation {
  const { hit } = input;
  const key = hit.key;
  const address = hit.client.startsWith('a:') ? hit.client.slice(2) : hit.client;
  const observation: LabObservation = {
    atMs: hit.nowMs,
    client: key ? (input.display ?? key.masked) : `anonymous ${address}`,
    clientId: hit.client,
    kind: key ? 'key' : 'anonymous',
    plan: key ? key.plan : 'anonymous',
    limits: key ? key.limits : input.anonymousLimits,
    method: input.method,
    path: input.path,
    operationId: input.operationId,
    status: input.status,
    outcome: hit.decision.outcome,
    forced: input.forced && hit.decision.outcome === 'allowed',
    windowReset: windowResetOf(hit.decision, hit.nowMs, input.previousRequestAtMs),
  };
  if (input.status === 429) observation.retryAfterSeconds = hit.decision.retryAfterSeconds;
  if (input.deprecatedSunset !== undefined) observation.deprecated = { sunset: input.deprecatedSunset };
  if (input.fault !== undefined) observation.fault = input.fault;
  if (input.delayMs !== undefined) observation.delayMs = input.delayMs;
  if (input.idempotencyKey !== undefined) observation.idempotencyKey = input.idempotencyKey;
  return observation;
}

/**
 * Scripted clients of the resilience verdicts (retries-idempotent, no-blind-resend, bounded-attempts),
 * run against a scripted flaky server that answers as the mock's request log records faults
 * (`RequestLogEntry.fault`, `delayMs`), on a virtual clock: each client's policy decides, from the log
 * entry of its last attempt, how long to wait and whether to send again. Shared by the proof in
 * src/lab/resilience-clients.test.ts.
 */
import type { RequestLogEntry } from '../../src/core/state/request-log.js';
import type { LabObservation, Verdict } from '../../src/lab/lab-types.js';
import { seededRandom } from './lab-scripted-clients.js';

/** One attempt as the client sent it and the log recorded it. */
export interface LoggedAttempt {
  entry: RequestLogEntry;
  idempotencyKey: string | null;
}

/** How a client retries: the wait (ms) before attempt `attempt + 1` of a request, or null to give up; and its POST keys. */
export interface ResiliencePolicy {
  wait(attempt: number, failed: RequestLogEntry): number | null;
  /** The Idempotency-Key of a POST's attempt, or null for none. */
  postKey(attempt: number): string | null;
  /** Whether a POST whose outcome is unknown (reset, close, timeout) is sent again at all. */
  resendPost: boolean;
}

/** How long the client waits for an answer before it gives up on a `timeout` (its own timeout). */
const clientTimeoutMs = 2_000;
const t0 = Date.UTC(2026, 0, 1);

type Answer = Pick<RequestLogEntry, 'status' | 'code' | 'fault' | 'delayMs'>;

/** The flaky server: each request's answers, attempt by attempt (the last one repeats). */
function flakyAnswers(faults: boolean): Record<string, Answer[]> {
  const ok = (status: number): Answer => ({ status, code: null });
  if (!faults)
    return { 'GET /v1/categories': [ok(200)], 'POST /v1/categories': [ok(201)], 'GET /v1/pets/1': [ok(200)] };
  return {
    // A 503, a reset, a timeout, then served.
    'GET /v1/categories': [
      { status: 503, code: 'unavailable', fault: 'status' },
      { status: 0, code: null, fault: 'reset' },
      { status: 0, code: null, fault: 'timeout', delayMs: 30_000 },
      ok(200),
    ],
    // No answer to the first attempt: the server may have created it.
    'POST /v1/categories': [{ status: 0, code: null, fault: 'timeout', delayMs: 30_000 }, ok(201)],
    // Down for good: 503 on every attempt.
    'GET /v1/pets/1': [{ status: 503, code: 'unavailable', fault: 'status' }],
  };
}

/**
 * Runs a client through three requests (a GET that fails three ways then succeeds, a POST that times
 * out once, a GET that always fails) and returns the log the mock would have recorded.
 */
export function runResilienceClient(policy: ResiliencePolicy, options: { faults?: boolean } = {}): LoggedAttempt[] {
  const answers = flakyAnswers(options.faults !== false);
  const log: LoggedAttempt[] = [];
  let now = t0;
  for (const request of ['GET /v1/categories', 'POST /v1/categories', 'GET /v1/pets/1']) {
    const [method, path] = request.split(' ') as [string, string];
    const script = answers[request]!;
    for (let attempt = 0; attempt < 30; attempt += 1) {
      const answer = script[Math.min(attempt, script.length - 1)]!;
      const entry: RequestLogEntry = {
        time: new Date(now).toISOString(),
        method,
        path,
        operationId: null,
        plan: 'free',
        key: 'demo-free',
        ...answer,
      };
      log.push({ entry, idempotencyKey: method === 'POST' ? policy.postKey(attempt) : null });
      // The client sees an answer at once, or none until its own timeout.
      now += answer.fault === 'timeout' ? clientTimeoutMs : 50;
      const failed = answer.status >= 500 || answer.status === 0;
      if (!failed) break;
      if (method === 'POST' && !policy.resendPost) break;
      const wait = policy.wait(attempt, entry);
      if (wait === null) break;
      now += wait;
    }
    now += 1_000;
  }
  return log;
}

/** A logged attempt as the lab observes it: the log entry's fault and latency, the request's Idempotency-Key. */
export function observationOfLogged({ entry, idempotencyKey }: LoggedAttempt): LabObservation {
  return {
    atMs: Date.parse(entry.time),
    client: entry.key ?? 'anonymous',
    kind: 'key',
    plan: entry.plan,
    limits: { perMinute: 60, perDay: 1000 },
    method: entry.method,
    path: entry.path,
    operationId: entry.operationId,
    status: entry.status,
    outcome: 'allowed',
    forced: false,
    windowReset: false,
    ...(entry.fault === undefined ? {} : { fault: entry.fault }),
    ...(entry.delayMs === undefined ? {} : { delayMs: entry.delayMs }),
    ...(idempotencyKey === null ? {} : { idempotencyKey }),
  };
}

type Outcomes = Record<'retries-idempotent' | 'no-blind-resend' | 'bounded-attempts', Verdict['outcome']>;

export const resilienceClients: { name: string; policy: () => ResiliencePolicy; expected: Outcomes; faults?: false }[] =
  [
    {
      name: 'backs off exponentially, resends a POST with its Idempotency-Key and gives up after 4 attempts',
      policy: () => ({
        wait: (attempt) => (attempt < 3 ? 500 * 2 ** attempt : null),
        postKey: () => 'key-7f3a',
        resendPost: true,
      }),
      expected: { 'retries-idempotent': 'pass', 'no-blind-resend': 'pass', 'bounded-attempts': 'pass' },
    },
    {
      name: 'retries at once, resends a POST blindly and never gives up',
      policy: () => ({ wait: () => 0, postKey: () => null, resendPost: true }),
      expected: { 'retries-idempotent': 'fail', 'no-blind-resend': 'fail', 'bounded-attempts': 'fail' },
    },
    {
      name: 'retries every second, never resends a POST, gives up after 5 attempts',
      policy: () => ({ wait: (attempt) => (attempt < 4 ? 1_000 : null), postKey: () => null, resendPost: false }),
      expected: { 'retries-idempotent': 'fail', 'no-blind-resend': 'pass', 'bounded-attempts': 'pass' },
    },
    {
      name: 'never retries (shows the error)',
      policy: () => ({ wait: () => null, postKey: () => 'key-1', resendPost: false }),
      expected: { 'retries-idempotent': 'info', 'no-blind-resend': 'pass', 'bounded-attempts': 'pass' },
    },
    {
      name: 'backs off with seeded jitter but gives each POST attempt a fresh Idempotency-Key',
      policy: () => {
        const random = seededRandom(7);
        return {
          wait: (attempt) => (attempt < 5 ? Math.round(400 * 2 ** attempt * (1 + random() * 0.5)) : null),
          postKey: (attempt) => `key-${attempt}`,
          resendPost: true,
        };
      },
      expected: { 'retries-idempotent': 'pass', 'no-blind-resend': 'fail', 'bounded-attempts': 'pass' },
    },
    {
      name: 'meets no fault at all (a perfect network)',
      policy: () => ({ wait: () => 0, postKey: () => null, resendPost: true }),
      faults: false,
      expected: {
        'retries-idempotent': 'not-exercised',
        'no-blind-resend': 'not-exercised',
        'bounded-attempts': 'not-exercised',
      },
    },
  ];

/**
 * The shapes of the rate-limit lab (issue 12), shared with the dashboard (issue 13) and kept stable:
 * see /work/briefs/lab-contract.md, docs/decisions/012-rate-limit-lab.md and docs/lab-readme-draft.md.
 *
 * Browser-safe: plain data only, no Node types.
 */
import type { RequestLogEntry } from '../core/state/request-log.js';

/** A client's budget: requests per minute and per day. */
export interface LabLimits {
  perMinute: number;
  perDay: number;
}

/** The ban policy a client is judged against (the config's `ban` section, in milliseconds). */
export interface LabBanPolicy {
  enabled: boolean;
  /** Requests answered 429 in a row that a client may send; the next one bans it. */
  threshold: number;
  durationMs: number;
}

export type VerdictRule =
  | 'retry-after-honoured'
  | 'backoff-growing'
  | 'no-hammering'
  | 'deprecated-operation'
  // The client's resilience to failed answers (resilience-judge.ts).
  | 'retries-idempotent'
  | 'no-blind-resend'
  | 'bounded-attempts';
export type VerdictOutcome = 'pass' | 'fail' | 'not-exercised' | 'info';

export interface Verdict {
  rule: VerdictRule;
  outcome: VerdictOutcome;
  evidence: {
    /** One human line. */
    summary: string;
    /** Rule-specific; all times are ISO strings of the virtual clock, waits in seconds. */
    [key: string]: unknown;
  };
}

export interface ClientRequestCounts {
  total: number;
  /** By HTTP status, as a string ("200", "429", ...). */
  byStatus: Record<string, number>;
  /** Requests answered 429, forced ones included. */
  refused429: number;
}

export interface ClientReport {
  /** The masked key (demo keys in full), a replay pseudonym, or "anonymous <address>". */
  client: string;
  kind: 'key' | 'anonymous';
  /** 'free' | 'pro' | ... | 'custom' | 'anonymous'. */
  plan: string;
  limits: LabLimits;
  requests: ClientRequestCounts;
  verdicts: Verdict[];
}

export const situationNames = ['401', '400', '429', 'ban', 'deprecated-call', 'window-reset'] as const;
export type SituationName = (typeof situationNames)[number];

export interface SituationCoverage {
  met: boolean;
  count: number;
  /** ISO time (virtual clock) the situation was first met, or null. */
  firstAt: string | null;
}

export interface OperationCoverage {
  operationId: string;
  method: string;
  path: string;
  /** Ascending by status. */
  statuses: { status: number; organic: number; forced: number }[];
}

export interface CoverageReport {
  /** Sorted by operationId. */
  operations: OperationCoverage[];
  situations: Record<SituationName, SituationCoverage>;
}

export interface LabClockState {
  now: string;
  epochSeconds: number;
  offsetSeconds: number;
}

/** `GET /__mock/report` (per session). */
export interface LabReport {
  session: string;
  /** ISO, virtual clock. */
  generatedAt: string;
  clock: LabClockState;
  clients: ClientReport[];
  coverage: CoverageReport;
}

/** `GET /__mock/dashboard` (per session): see issue 13. */
export interface DashboardSnapshot {
  session: string;
  sessions: { name: string; lastSeen: string | null }[];
  clock: LabClockState;
  clients: DashboardClient[];
  /** Newest last, at most `?limit` (default 10,000). */
  recent: {
    timeMs: number;
    client: string;
    method: string;
    path: string;
    status: number;
    code: string | null;
    /** The fault the request met and its latency (decision 042), when any. */
    fault?: string;
    delayMs?: number;
  }[];
  coverage: CoverageReport;
  tokenRequired: boolean;
  /** The timeline of `recent`, rendered by `renderTimelineSvg`. */
  timelineSvg: string;
}

export interface DashboardClient {
  client: string;
  kind: 'key' | 'anonymous';
  plan: string;
  /** A public demo key, shown by name. */
  demo: boolean;
  /** Configured keys not yet used appear with `used: false`. */
  used: boolean;
  windows: {
    name: 'minute' | 'day';
    limit: number;
    used: number;
    resetsAt: string | null;
    resetsInSeconds: number | null;
  }[];
  ban: { until: string; secondsLeft: number } | null;
  requests: ClientRequestCounts;
  verdicts: Verdict[];
}

/** What `renderTimelineSvg` draws (the drawing lives in spec/, shared with the contract kit's HTML report). */
export type { TimelineInput } from '../../spec/timeline-input.js';

/**
 * One request as the lab sees it: what the core knows at the end of each request (the rate
 * decision, the client it was counted against, the operation, the response), so feeding the lab
 * needs no second round trip to the store.
 *
 * @example
 * { atMs: 1767225600000, client: 'demo-free', clientId: 'k:3f2a…', kind: 'key', plan: 'free',
 *   limits: { perMinute: 60, perDay: 1000 }, method: 'GET', path: '/v1/categories',
 *   operationId: 'listCategories', status: 429, outcome: 'limited', retryAfterSeconds: 42,
 *   forced: false, windowReset: false }
 */
export interface LabObservation {
  /** Virtual time of the request, ms since the epoch. */
  atMs: number;
  /** How the client is shown: the masked key (demo keys in full), a pseudonym, or "anonymous <address>". */
  client: string;
  /**
   * Stable identity the judge groups by (the rate-limit client, `k:<key id>` or `a:<address>`); defaults
   * to `client`. Two keys with the same mask stay apart.
   */
  clientId?: string;
  kind: 'key' | 'anonymous';
  plan: string;
  limits: LabLimits;
  method: string;
  /** Path without the query. */
  path: string;
  operationId: string | null;
  status: number;
  /**
   * The rate limiter's decision for this request: `limited`/`banned` are 429s the limiter gave;
   * `other` for requests it did not count (the controls, a CORS preflight).
   */
  outcome: 'allowed' | 'limited' | 'banned' | 'other';
  /** Retry-After of a 429 (whole seconds). */
  retryAfterSeconds?: number;
  /** The response was forced with `Prefer` (code, example or dynamic), not decided by the mock. */
  forced: boolean;
  /** Set when the operation is deprecated; `sunset` is the ISO sunset date, when there is one. */
  deprecated?: { sunset: string | null };
  /** This request found one of the client's windows (minute or day) over and a new one began. */
  windowReset: boolean;
  /** The fault the mock gave the answer, as the request log records it (`RequestLogEntry.fault`). */
  fault?: RequestLogEntry['fault'];
  /** The latency the mock added before answering, as the request log records it (ms). */
  delayMs?: number;
  /** The request's `Idempotency-Key` header, when it sent one (cut to 200 characters). */
  idempotencyKey?: string;
}

/** ISO string of a virtual time. */
export function isoOf(ms: number): string {
  return new Date(ms).toISOString();
}

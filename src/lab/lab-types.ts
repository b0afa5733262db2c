/**
 * The shapes of the rate-limit lab (issue 12), shared with the dashboard (issue 13) and kept stable:
 * see /work/briefs/lab-contract.md, docs/decisions/012-rate-limit-lab.md and docs/lab-readme-draft.md.
 *
 * Browser-safe: plain data only, no Node types.
 */
import type { RequestLogEntry } from '../core/state/request-log.js';
import type { CoverageReport, Verdict } from './dashboard-schema.js';

// The shapes the dashboard and `GET /__mock/report` send are their schemas' (dashboard-schema.ts, lab-report-schema.ts).
export type {
  ClientRequestCounts,
  CoverageReport,
  DashboardClient,
  DashboardSnapshot,
  LabClockState,
  OperationCoverage,
  SituationCoverage,
  Verdict,
} from './dashboard-schema.js';
export { situationNames } from './dashboard-schema.js';
export type { ClientReport, LabReport } from './lab-report-schema.js';
export type SituationName = keyof CoverageReport['situations'];
export type VerdictRule = Verdict['rule'];
export type VerdictOutcome = Verdict['outcome'];

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

/**
 * The data shapes the dashboard page consumes, copied from the shared lab contract
 * (docs: /work/briefs/lab-contract.md). `src/lab/lab-types.ts` (issue 12) owns them; until it lands
 * here the page keeps this copy. When merging, replace the bodies with re-exports from
 * `../lab/lab-types.js`: the names and fields are identical. Browser-safe: no Node types.
 */

export interface Verdict {
  rule: 'retry-after-honoured' | 'backoff-growing' | 'no-hammering' | 'deprecated-operation';
  outcome: 'pass' | 'fail' | 'not-exercised' | 'info';
  evidence: { summary: string; [key: string]: unknown };
}

export interface RequestCounts {
  total: number;
  byStatus: Record<string, number>;
  refused429: number;
}

export type Situation = '401' | '400' | '429' | 'ban' | 'deprecated-call' | 'window-reset';

export interface CoverageReport {
  operations: {
    operationId: string;
    method: string;
    path: string;
    statuses: { status: number; organic: number; forced: number }[];
  }[];
  situations: Record<Situation, { met: boolean; count: number; firstAt: string | null }>;
}

export interface ClockState {
  now: string;
  epochSeconds: number;
  offsetSeconds: number;
}

export interface DashboardWindow {
  name: 'minute' | 'day';
  limit: number;
  used: number;
  resetsAt: string | null;
  resetsInSeconds: number | null;
}

export interface DashboardClient {
  client: string;
  kind: 'key' | 'anonymous';
  plan: string;
  demo: boolean;
  used: boolean;
  windows: DashboardWindow[];
  ban: { until: string; secondsLeft: number } | null;
  requests: RequestCounts;
  verdicts: Verdict[];
}

export interface RecentRequest {
  timeMs: number;
  client: string;
  method: string;
  path: string;
  status: number;
  code: string | null;
}

export interface DashboardSnapshot {
  session: string;
  sessions: { name: string; lastSeen: string | null }[];
  clock: ClockState;
  clients: DashboardClient[];
  /** Newest last, at most `?limit` entries (default 10,000). */
  recent: RecentRequest[];
  coverage: CoverageReport;
  tokenRequired: boolean;
  /** Server-rendered by src/lab/timeline-svg.ts; the page shows it and never redraws it. */
  timelineSvg: string;
}

/** The API's Error shape, which every /__mock/* refusal uses. */
export interface ApiError {
  code: string;
  message: string;
  status: number;
}

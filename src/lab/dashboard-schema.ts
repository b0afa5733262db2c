import type * as z from 'zod';
import { onFirstUse } from '../../spec/zod-module.js';
import { dashboardVersion } from './dashboard-version.js';

// The dashboard's data (`GET /__mock/dashboard`) and the lab's verdicts, counts and coverage it carries
// (`GET /__mock/report` too: its envelope is lab-report-schema.ts), written once. The core's snapshot is typed by this schema and does not run
// it (the page polls every second); dashboard-schema.test.ts parses what the mock really answers; the
// page imports these types only (`import type`: zod stays out of its bundle) and checks the version;
// schemas/dashboard.v1.schema.json publishes it. A change to a field's meaning is a new `version`.

export const situationNames = ['401', '400', '429', 'ban', 'deprecated-call', 'window-reset'] as const;

const verdictRules = [
  'retry-after-honoured',
  'backoff-growing',
  'no-hammering',
  'deprecated-operation',
  // The client's resilience to failed answers (resilience-judge.ts).
  'retries-idempotent',
  'no-blind-resend',
  'bounded-attempts',
] as const;

/** A client's verdicts, request counts and the lab's coverage: the parts of the lab's report (lab-report-schema.ts). */
export const labReportParts = onFirstUse((z) => {
  const verdict = z.object({
    rule: z.enum(verdictRules),
    outcome: z.enum(['pass', 'fail', 'not-exercised', 'info']),
    /** One human line (`summary`), and the rule's own fields: times are ISO strings of the virtual clock, waits in seconds. */
    evidence: z.looseObject({ summary: z.string() }),
  });
  const requestCounts = z.object({
    total: z.int().min(0),
    /** By HTTP status, as a string ("200", "429", ...). */
    byStatus: z.record(z.string(), z.int().min(0)),
    /** Requests answered 429, forced ones included. */
    refused429: z.int().min(0),
  });
  const situationCoverage = z.object({
    met: z.boolean(),
    count: z.int().min(0),
    /** ISO time (virtual clock) the situation was first met, or null. */
    firstAt: z.string().nullable(),
  });
  const operationCoverage = z.object({
    operationId: z.string(),
    method: z.string(),
    path: z.string(),
    /** Ascending by status. */
    statuses: z.array(z.object({ status: z.int(), organic: z.int().min(0), forced: z.int().min(0) })),
  });
  const coverage = z.object({
    /** Sorted by operationId. */
    operations: z.array(operationCoverage),
    situations: z.record(z.enum(situationNames), situationCoverage),
  });
  const clock = z.object({ now: z.string(), epochSeconds: z.number(), offsetSeconds: z.number() });
  return { verdict, requestCounts, situationCoverage, operationCoverage, coverage, clock };
});

/** One client on the dashboard: its windows as they stand, its ban, counts and verdicts. */
const dashboardClientSchema = onFirstUse((z) => {
  const { verdict, requestCounts } = labReportParts();
  return z.object({
    client: z.string(),
    kind: z.enum(['key', 'anonymous']),
    plan: z.string(),
    /** A public demo key, shown by name. */
    demo: z.boolean(),
    /** Configured keys not yet used appear with `used: false`. */
    used: z.boolean(),
    windows: z.array(
      z.object({
        name: z.enum(['minute', 'day']),
        limit: z.int(),
        used: z.int().min(0),
        resetsAt: z.string().nullable(),
        resetsInSeconds: z.number().nullable(),
      }),
    ),
    ban: z.object({ until: z.string(), secondsLeft: z.number() }).nullable(),
    requests: requestCounts,
    verdicts: z.array(verdict),
  });
});

/** `GET /__mock/dashboard` (per session): see issue 13 and docs/dashboard.md. */
export const dashboardSnapshotSchema = onFirstUse((z) => {
  const { coverage, clock } = labReportParts();
  return z.object({
    version: z.literal(dashboardVersion),
    session: z.string(),
    sessions: z.array(z.object({ name: z.string(), lastSeen: z.string().nullable() })),
    clock,
    clients: z.array(dashboardClientSchema()),
    /** Newest last, at most `?limit` (default 10,000). */
    recent: z.array(
      z.object({
        timeMs: z.number(),
        client: z.string(),
        method: z.string(),
        path: z.string(),
        status: z.int(),
        code: z.string().nullable(),
        /** The fault the request met and its latency (decision 042), when any. */
        fault: z.string().optional(),
        delayMs: z.number().optional(),
      }),
    ),
    coverage,
    tokenRequired: z.boolean(),
    /** The timeline of `recent`, rendered by `renderTimelineSvg`. */
    timelineSvg: z.string(),
  });
});

type Parts = ReturnType<typeof labReportParts>;
export type Verdict = z.output<Parts['verdict']>;
export type ClientRequestCounts = z.output<Parts['requestCounts']>;
export type SituationCoverage = z.output<Parts['situationCoverage']>;
export type OperationCoverage = z.output<Parts['operationCoverage']>;
export type CoverageReport = z.output<Parts['coverage']>;
export type LabClockState = z.output<Parts['clock']>;
export type DashboardClient = z.output<ReturnType<typeof dashboardClientSchema>>;
export type DashboardSnapshot = z.output<ReturnType<typeof dashboardSnapshotSchema>>;

import type { Evidence } from '../lib/exchange.js';
import type { InterfaceLinks } from './interface-links.js';

/** The five outcomes of a check. Only FAIL makes a server non-conforming. */
export type CheckStatus = 'PASS' | 'FAIL' | 'SKIP' | 'INFO' | 'WARN';
export const checkStatuses: readonly CheckStatus[] = ['PASS', 'FAIL', 'SKIP', 'INFO', 'WARN'];

/** One check's verdict, in the order the suite defines them. */
export interface CheckResult {
  /** Stable id (`auth.missing-key:listCategories`), used by expectation files. */
  id: string;
  /** The interface rule (`§5.3`). */
  rule: string;
  title: string;
  operation: string | undefined;
  /** The group it belongs to (`Authentication (§5)`). */
  area: string;
  status: CheckStatus;
  /** Why it failed or was skipped, what it found (INFO), or a note on a pass. */
  message: string | undefined;
  evidence: Evidence[];
  requests: number;
  /** Deterministic cases the check sent (coverage phase), when it counts them. */
  cases?: number;
  /** SKIP because something outside the rule stopped it (rate limits, deadline, server gone): the run is INCONCLUSIVE. */
  inconclusive?: boolean;
  /** When the check started, in ms after the run started. */
  startMs?: number;
  durationMs: number;
}

/** The run's verdict. */
export type Verdict = 'CONFORMS' | 'DOES NOT CONFORM' | 'INCONCLUSIVE';

/**
 * Exit codes of petstore-contract: 0 conforms, 1 a required check failed (or a SKIP under
 * --fail-on-skip), 2 usage error / unreachable server / the kit could not run, 3 inconclusive
 * (required checks could not run: rate-limited, deadline, server gone mid-run).
 */
export const exitCodes = { CONFORMS: 0, 'DOES NOT CONFORM': 1, usage: 2, INCONCLUSIVE: 3 } as const;

export interface ContractReport {
  tool: { name: 'petstore-contract'; version: string };
  runId: string;
  target: { baseUrl: string; viaPrism: boolean; prismUrl: string | undefined };
  spec: { path: string; title: string; version: string };
  startedAt: string;
  durationMs: number;
  settings: {
    apiKey: string;
    rateLimitKey: string | undefined;
    readOnly: boolean;
    strict: boolean;
    seed: number;
    propertyRuns: number;
    concurrency: number;
    timeoutSeconds: number;
    maxRequests: number;
    maxWaitSeconds: number;
    /** The run's profile was --thorough (it decides what would check a cell the run could not afford). */
    thorough?: boolean;
    /** Seconds the run could wait on purpose to watch windows (--window-wait). */
    windowWaitSeconds?: number;
    namePrefix: string;
    deadlineSeconds?: number;
    maxBodyBytes?: number;
    createBudget?: number;
    failOnSkip?: boolean;
    /** The generic layer may change resources the run did not create (--allow-destructive). */
    allowDestructive?: boolean;
    /** Most invalid requests per operation of the generic layer (--invalid-cases). */
    invalidCases?: number;
    /** -H headers, credential values masked. */
    extraHeaders?: Record<string, string>;
  };
  /** Requests sent, by the key they drew on (masked), e.g. { 'main key demo…(8)': 120, anonymous: 60 }. */
  requestsByKey?: Record<string, number>;
  /** Every request of the run on the key it drew on, with its time and answer: the HTML report's timeline. */
  requestTimeline?: RequestTimeline;
  /** Categories the run created on the server (the interface has no delete). */
  createdCategories?: number;
  /** The most it could have created: the bound printed before its first request that could create data. */
  mayCreateCategories?: number;
  verdict?: Verdict;
  /** What stopped required checks, when the verdict is INCONCLUSIVE. */
  stoppedBy?: string[];
  /** Tolerance used to judge time (server Date vs. headers). */
  timeTolerance?: string;
  /** The failures grouped by cause, each with a curl that sends its evidence's request again. */
  failureGroups?: FailureGroup[];
  /** Where each rule id of the report points in the interface document (shipped in the package). */
  interface?: InterfaceLinks;
  results: CheckResult[];
  summary: Record<CheckStatus, number> & { total: number; requests: number };
  /** Messages the run printed while it ran (waits for rate-limit windows, Prism). */
  log: string[];
  /** True when no required check failed. */
  conforms: boolean;
  exitCode: 0 | 1 | 3;
}

/**
 * Counts results by status.
 *
 * @example summarise(results).FAIL // 0
 */
export function summarise(results: readonly CheckResult[]): ContractReport['summary'] {
  const summary = { PASS: 0, FAIL: 0, SKIP: 0, INFO: 0, WARN: 0, total: results.length, requests: 0 };
  for (const result of results) {
    summary[result.status] += 1;
    summary.requests += result.requests;
  }
  return summary;
}

/**
 * Failures grouped by cause: one broken behaviour usually fails many checks (a 401 without an
 * Error body fails 48 auth probes; an unprotected operation fails its twelve), and a reader wants
 * the behaviour once, with the places it showed up and one request that shows it again.
 *
 * Two failures share a cause when their messages say the same thing once what varies between
 * places is taken out (which probe it was, "expected 401 for <probe>, got 200"; the exact 2xx a
 * refused request got; numbers that are counts, ids or times; quoted values; URLs; the run's
 * names; the fast-check counterexample), or when a failure's evidence is a response that already
 * failed a check of the group. The same rule failing on several operations is one cause; so is
 * one response breaking several rules.
 */
export interface FailureGroup {
  /** What is wrong, in the checks' words: their message when they all say it alike, else what they share. */
  cause: string;
  /** The failures' shared message with what varies taken out; the group's key. */
  signature: string;
  /** Rule ids of the group's checks, in the order they first appear. */
  rules: string[];
  /** Operations hit (`METHOD /path`; `(every response)` for checks over the whole run). */
  operations: string[];
  checks: { id: string; rule: string; title: string; operation: string | undefined }[];
  /** The first piece of evidence of the group's first check. */
  evidence: Evidence | undefined;
  /** A curl that sends the evidence's request again (the keys as shell variables), when the run kept it. */
  curl?: string;
}

/**
 * The run's requests per key, as sent: when, and what came back. Compact (a run sends about a
 * thousand): times are ms after `fromMs`, and only what the timeline draws is kept.
 */
export interface RequestTimeline {
  /** The first request's time on the kit's clock (ms since the epoch; virtual under a virtual clock). */
  fromMs: number;
  /** The last answer's time, ms after `fromMs`. */
  toMs: number;
  keys: KeyTimeline[];
}

/** One key's requests, in the order sent. */
export interface KeyTimeline {
  /** The key as `requestsByKey` names it (masked): `main key demo…(8)`, `no key (auth probes)`. */
  key: string;
  /** The smallest X-RateLimit-Limit the server announced on this key (its per-minute budget), when it did. */
  announcedLimit?: number;
  requests: TimedRequest[];
}

/** One request: sent `atMs` after the timeline's start; `status` undefined when no answer came. */
export interface TimedRequest {
  atMs: number;
  status?: number;
  /** The Error body's `code`, when the answer had one (`rate_limited`, `key_banned`). */
  code?: string;
  /** The wait a 429 asked for (Retry-After), in seconds. */
  retryAfterSeconds?: number;
}

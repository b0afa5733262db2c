import type { StatedOptions } from '../runner/contract-options-api.js';
import {
  type CheckResult,
  type CheckStatus,
  checkStatusList,
  type FailureGroup,
  type JsonReport,
  type KeyTimeline,
  type RequestTimeline,
  type TimedRequest,
} from './report-schema.js';

// The report's types are the JSON report's schema's (report-schema.ts): one declaration of each field.
export type { CheckResult, CheckStatus, FailureGroup, KeyTimeline, RequestTimeline, TimedRequest };

/** The five outcomes of a check. Only FAIL makes a server non-conforming. */
export const checkStatuses: readonly CheckStatus[] = checkStatusList;

/** The run's verdict. */
export type Verdict = NonNullable<JsonReport['verdict']>;

/**
 * Exit codes of petstore-contract: 0 conforms, 1 a required check failed (or a SKIP under
 * --fail-on-skip), 2 usage error / unreachable server / the kit could not run, 3 inconclusive
 * (required checks could not run: rate-limited, deadline, server gone mid-run).
 */
export const exitCodes = { CONFORMS: 0, 'DOES NOT CONFORM': 1, usage: 2, INCONCLUSIVE: 3 } as const;

/**
 * The run's settings as a report states them: every resolved number and flag by its option's name
 * (typed from `ContractOptions`, so a new option is stated without a line here; a report made by hand
 * may leave any out), the keys and the credential-like `-H` values masked, and the prefix of the names
 * of the data it created.
 */
type ReportSettings = Partial<StatedOptions> & {
  apiKey: string;
  rateLimitKey: string | undefined;
  namePrefix: string;
  extraHeaders?: Record<string, string>;
};

/** A run's report: the JSON report without what `renderJsonReport` adds (its version, the coverage matrix). */
export type ContractReport = Omit<JsonReport, 'reportVersion' | 'coverage' | 'settings'> & { settings: ReportSettings };

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

import type { Evidence } from '../lib/exchange.js';

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
  durationMs: number;
}

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
    namePrefix: string;
  };
  results: CheckResult[];
  summary: Record<CheckStatus, number> & { total: number; requests: number };
  /** Messages the run printed while it ran (waits for rate-limit windows, Prism). */
  log: string[];
  /** True when no required check failed. */
  conforms: boolean;
  exitCode: 0 | 1;
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

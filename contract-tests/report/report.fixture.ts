import { type CheckResult, type ContractReport, summarise } from './report-model.js';

/** A check result for reporter tests: a passing listCategories check unless overridden. */
export const sampleResult = (overrides: Partial<CheckResult>): CheckResult => ({
  id: 'list.ok',
  rule: '§4 listCategories',
  title: '200 + JSON array of valid Category',
  operation: 'GET /categories',
  area: 'listCategories (§4)',
  status: 'PASS',
  message: undefined,
  evidence: [],
  requests: 1,
  durationMs: 12,
  ...overrides,
});

/** A whole report around `results`, its verdict and exit code following them as a run's would. */
export function sampleReport(results: CheckResult[], overrides: Partial<ContractReport> = {}): ContractReport {
  const failed = results.some((entry) => entry.status === 'FAIL');
  return {
    tool: { name: 'petstore-contract', version: '0.1.0' },
    runId: 'ab12',
    target: { baseUrl: 'http://h/v1', viaPrism: false, prismUrl: undefined },
    spec: { path: 'spec.yaml', title: 'Petstore', version: '1.0.0' },
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 1234,
    settings: {
      apiKey: 'demo…(8)',
      rateLimitKey: undefined,
      readOnly: false,
      strict: false,
      seed: 1,
      propertyRuns: 15,
      concurrency: 4,
      timeoutSeconds: 10,
      maxRequests: 1100,
      maxWaitSeconds: 120,
      namePrefix: 'contract-test-ab12',
    },
    results,
    summary: summarise(results),
    log: [],
    conforms: !failed,
    exitCode: failed ? 1 : 0,
    ...overrides,
  };
}

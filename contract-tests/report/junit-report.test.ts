import { describe, expect, it } from 'vitest';
import { escapeXml, renderJunitReport } from './junit-report.js';
import { summarise, type CheckResult, type ContractReport } from './report-model.js';

const result = (overrides: Partial<CheckResult>): CheckResult => ({
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

function report(results: CheckResult[]): ContractReport {
  return {
    tool: { name: 'petstore-contract', version: '0.1.0' },
    runId: 'ab12',
    target: { baseUrl: 'http://h/v1', viaPrism: false, prismUrl: undefined },
    spec: { path: 'spec.yaml', title: 'Petstore', version: '1.0.0' },
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 1234,
    settings: { apiKey: 'demo…(8)', rateLimitKey: undefined, readOnly: false, strict: false, seed: 1, propertyRuns: 15, concurrency: 4, timeoutSeconds: 10, maxRequests: 1100, maxWaitSeconds: 120, namePrefix: 'contract-test-ab12' },
    results,
    summary: summarise(results),
    log: [],
    conforms: !results.some((entry) => entry.status === 'FAIL'),
    exitCode: results.some((entry) => entry.status === 'FAIL') ? 1 : 0,
  };
}

describe('JUnit report', () => {
  it('escapes XML and drops characters XML cannot carry', () => {
    expect(escapeXml(`a < b & "c" 'd' > e`)).toBe('a &lt; b &amp; &quot;c&quot; &apos;d&apos; &gt; e');
    expect(escapeXml('bell\u0007')).toBe('bell\\x07');
  });

  it('turns FAIL into <failure> with evidence, SKIP into <skipped>, INFO into <system-out>', () => {
    const xml = renderJunitReport(
      report([
        result({ status: 'FAIL', message: 'expected 401, got 200', evidence: [{ request: 'GET http://h/v1/categories [no Authorization]', status: 200, detail: 'body <html>' }] }),
        result({ id: 'rate.429', status: 'SKIP', message: 'needs --rate-limit-key', area: 'Rate limit exceeded (§8.1, §8.2)' }),
        result({ id: 'other.response', status: 'INFO', message: '200, body {}' }),
      ]),
    );
    expect(xml).toContain('<testsuites name="petstore-contract" tests="3" failures="1" errors="0" skipped="1" time="1.234"');
    expect(xml).toContain('<failure message="expected 401, got 200" type="§4 listCategories">GET http://h/v1/categories [no Authorization] -&gt; 200: body &lt;html&gt;</failure>');
    expect(xml).toContain('<skipped message="needs --rate-limit-key"/>');
    expect(xml).toContain('<system-out>INFO: 200, body {}</system-out>');
    expect(xml.match(/<testsuite /g)).toHaveLength(3);
    expect(xml).toContain('coverage matrix (rule x operation)');
  });
});

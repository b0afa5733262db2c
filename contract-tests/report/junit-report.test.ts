import { describe, expect, it } from 'vitest';
import { escapeXml, renderJunitReport } from './junit-report.js';
import type { CheckResult, ContractReport } from './report-model.js';
import { sampleReport, sampleResult } from './report.fixture.js';

const result = sampleResult;
const report = (results: CheckResult[]): ContractReport => sampleReport(results);

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

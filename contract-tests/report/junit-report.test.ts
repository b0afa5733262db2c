import { describe, expect, it } from 'vitest';
import { escapeXml, renderJunitReport } from './junit-report.js';
import { sampleReport, sampleResult } from './report.fixture.js';
import type { CheckResult, ContractReport } from './report-model.js';

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
        result({
          status: 'FAIL',
          message: 'expected 401, got 200',
          evidence: [{ request: 'GET http://h/v1/categories [no Authorization]', status: 200, detail: 'body <html>' }],
        }),
        result({
          id: 'rate.429',
          status: 'SKIP',
          message: 'needs --rate-limit-key',
          area: 'Rate limit exceeded (§8.1, §8.2)',
        }),
        result({ id: 'other.response', status: 'INFO', message: '200, body {}' }),
      ]),
    );
    expect(xml).toContain(
      '<testsuites name="petstore-contract" tests="3" failures="1" errors="0" skipped="1" time="1.234"',
    );
    expect(xml).toContain(
      '<failure message="expected 401, got 200" type="§4 listCategories">GET http://h/v1/categories [no Authorization] -&gt; 200: body &lt;html&gt;\ncause 1 of 1: expected 401, got 200 (1 check)</failure>',
    );
    expect(xml).toContain('<skipped message="needs --rate-limit-key"/>');
    expect(xml).toContain('<system-out>INFO: 200, body {}</system-out>');
    // Two areas, two suites: the coverage matrix rides in the first suite's output, not in an empty suite.
    expect(xml.match(/<testsuite /g)).toHaveLength(2);
    for (const match of xml.matchAll(/<testsuite [^>]*tests="(\d+)"/g)) expect(Number(match[1])).toBeGreaterThan(0);
    expect(xml.match(/<system-out>Coverage \(rule x operation\)/g)).toHaveLength(1);
  });

  it("links each testcase to its rule's section of the interface document, and carries the cause and its curl in a failure", () => {
    const xml = renderJunitReport(
      sampleReport(
        [
          result({
            status: 'FAIL',
            rule: '§5.3',
            message: 'the 401 body is not a JSON Error',
            evidence: [
              { request: 'GET http://h/v1/categories [no Authorization]', seq: 3, status: 401, detail: '(empty body)' },
            ],
          }),
        ],
        {
          interface: {
            document: 'docs/petstore-service-interface.md',
            local: 'docs/petstore-service-interface.md',
            web: 'https://example.test/i.md',
            sections: { '§5.3': { heading: '5. Authentication', anchor: '5-authentication' } },
          },
          failureGroups: [
            {
              cause: 'the 401 body is not a JSON Error',
              signature: 'x',
              rules: ['§5.3'],
              operations: ['GET /categories'],
              checks: [{ id: 'list.ok', rule: '§5.3', title: 't', operation: 'GET /categories' }],
              evidence: undefined,
              curl: "curl -sS -i -g --path-as-is 'http://h/v1/categories?a=1'",
            },
          ],
        },
      ),
    );
    expect(xml).toContain('<property name="rule-url" value="https://example.test/i.md#5-authentication"/>');
    expect(xml).toContain(
      'cause 1 of 1: the 401 body is not a JSON Error (1 check)\nreproduce: curl -sS -i -g --path-as-is &apos;http://h/v1/categories?a=1&apos;\nrule: https://example.test/i.md#5-authentication</failure>',
    );
  });
});

import { describe, expect, it } from 'vitest';
import { coverageMatrix, describeCell } from './coverage-matrix.js';
import { md, renderMarkdownReport } from './markdown-report.js';
import { sampleReport, sampleResult } from './report.fixture.js';
import type { CheckResult, ContractReport } from './report-model.js';

const result = (overrides: Partial<CheckResult>): CheckResult =>
  sampleResult({
    id: 'x',
    rule: '§5.3',
    title: 'missing key -> 401',
    operation: 'GET /categories',
    area: 'Authentication (§5)',
    durationMs: 1,
    ...overrides,
  });
const report = (results: CheckResult[]): ContractReport =>
  sampleReport(results, {
    requestsByKey: { 'main key demo…(8)': 10 },
    conforms: false,
    exitCode: 1,
    verdict: 'DOES NOT CONFORM',
  });

describe('coverage matrix', () => {
  it('sums up rule x operation with the worst status, counts, cases and the first skip reason', () => {
    const matrix = coverageMatrix([
      result({ id: 'a' }),
      result({ id: 'b', status: 'FAIL' }),
      result({ id: 'c', rule: '§4 createCategory.1', operation: 'POST /categories', cases: 12 }),
      result({ id: 'd', rule: '§8', operation: undefined, status: 'SKIP', message: 'needs --rate-limit-key' }),
    ]);
    expect(matrix.operations).toEqual(['GET /categories', 'POST /categories', '(every response)']);
    expect(describeCell(matrix.rows[0]!.cells['GET /categories'])).toBe('FAIL 1/2');
    expect(describeCell(matrix.rows[1]!.cells['POST /categories'])).toBe('PASS 1 · 12 cases');
    expect(describeCell(matrix.rows[2]!.cells['(every response)'])).toBe('SKIP 1 (needs --rate-limit-key)');
  });
});

describe('Markdown report', () => {
  it('shows the verdict, counts, the matrix and failures with evidence, with what the server sent escaped', () => {
    const text = renderMarkdownReport(
      report([
        result({
          status: 'FAIL',
          message: 'got <script>alert(1)</script> | `x`',
          evidence: [{ request: 'GET http://h/v1/categories', status: 200, detail: 'body [](javascript:x)\u001b[2J' }],
        }),
      ]),
    );
    expect(text).toContain('## ❌ petstore-contract: DOES NOT CONFORM (exit 1)');
    expect(text).toContain('### Coverage (rule x operation)');
    expect(text).toContain('| §5.3 | FAIL 1 |');
    expect(text).toContain('&lt;script&gt;');
    expect(text).not.toContain('<script>');
    expect(text).not.toContain('\u001b');
    expect(text).toContain('\\[\\]\\(javascript:x\\)');
    expect(md('a|b')).toBe('a&#124;b');
  });
});

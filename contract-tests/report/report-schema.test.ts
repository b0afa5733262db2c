import { describe, expect, it } from 'vitest';
import { toJSONSchema } from 'zod';
import { renderJsonReport } from './json-report.js';
import { sampleReport, sampleResult } from './report.fixture.js';
import { jsonReportSchema, parseJsonReport } from './report-schema.js';

// The runner's report is typed by the schema and never runs it; here a report is written and parsed back.

function writtenReport(): string {
  const failed = sampleResult({
    id: 'auth.missing-key:listCategories',
    status: 'FAIL',
    message: 'expected 401, got 200',
    evidence: [{ request: 'GET http://h/v1/categories [no Authorization]', seq: 3, status: 200, detail: 'served' }],
  });
  return renderJsonReport(
    sampleReport([sampleResult({}), failed, sampleResult({ id: 'rl.429', status: 'SKIP', inconclusive: true })], {
      verdict: 'DOES NOT CONFORM',
      requestsByKey: { 'main key demo…(8)': 3 },
      requestTimeline: {
        fromMs: 0,
        toMs: 40,
        keys: [{ key: 'main key demo…(8)', requests: [{ atMs: 1, status: 200 }] }],
      },
      failureGroups: [
        {
          cause: 'expected 401, got 200',
          signature: 'expected 401, got <2xx>',
          rules: ['§5.3'],
          operations: ['GET /categories'],
          checks: [{ id: failed.id, rule: failed.rule, title: failed.title, operation: failed.operation }],
          evidence: failed.evidence[0],
        },
      ],
    }),
  );
}

describe('the JSON report schema', () => {
  it('reads what renderJsonReport writes, field for field', () => {
    const text = writtenReport();
    expect(parseJsonReport(text)).toEqual(JSON.parse(text));
    expect(JSON.parse(text).reportVersion).toBe(1);
  });

  it('refuses a report of another version, or a wrong field, in one line', () => {
    const report = JSON.parse(writtenReport());
    expect(() => parseJsonReport(JSON.stringify({ ...report, reportVersion: 2 }))).toThrow(
      'Failed to read the report: reportVersion: expected 1, got 2 (a report of another petstore-contract)',
    );
    expect(() => parseJsonReport(JSON.stringify({ ...report, reportVersion: undefined }))).toThrow(/got none/);
    report.results[0].status = 'MAYBE';
    expect(() => parseJsonReport(JSON.stringify(report))).toThrow(/^Failed to read the report: results\.0\.status: /);
  });

  it('keeps a refusal one short line, whatever the size of a key or a message it quotes', () => {
    const huge = 'k'.repeat(1_000_000);
    const report = JSON.parse(writtenReport());
    const refusal = (value: unknown): string => {
      try {
        parseJsonReport(JSON.stringify(value));
      } catch (error) {
        return (error as Error).message;
      }
      return 'read';
    };
    // A record's key is in the path; a key an enum-keyed record does not know is in zod's message.
    const inPath = refusal({ ...report, requestsByKey: { [huge]: -1 } });
    const row = report.coverage.dimensions.rows[0] ?? { rule: 'r', says: 's', cells: {} };
    const dimensions = { ...report.coverage.dimensions, rows: [{ ...row, cells: { ...row.cells, [huge]: {} } }] };
    const inMessage = refusal({ ...report, coverage: { ...report.coverage, dimensions } });
    const escaped = refusal({ ...report, requestsByKey: { '\u001b[2J': -1 } });
    for (const message of [inPath, inMessage, escaped]) {
      expect(message).toMatch(/^Failed to read the report: /);
      expect(message.length).toBeLessThan(300);
    }
    expect(inPath).toMatch(/^Failed to read the report: requestsByKey\."k{30}…": /);
    expect(inMessage).toMatch(/^Failed to read the report: coverage\.dimensions\.rows\.0\.cells: .*… \(\d+ chars\)$/);
    expect(escaped).toContain('requestsByKey."\\u001b[2J"');
  });

  it('is published as JSON Schema, equal to what zod emits (`npx vitest run -u` rewrites the file)', async () => {
    const emitted = toJSONSchema(jsonReportSchema(), { io: 'input', unrepresentable: 'any' });
    await expect(`${JSON.stringify(emitted, null, 2)}\n`).toMatchFileSnapshot(
      '../../schemas/contract-report.v1.schema.json',
    );
  });
});

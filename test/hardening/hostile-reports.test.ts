import { describe, expect, it } from 'vitest';
import { parseJsonReport } from '../../contract-tests/index.js';

// Red team of issue 43's JSON report schema: parseJsonReport (exported from petstore-kit/contract)
// refuses whatever is not a report of its version in one short line starting "Failed to read the report".

const refusal = (text: string): string => {
  try {
    parseJsonReport(text);
  } catch (error) {
    return (error as Error).message;
  }
  return 'read';
};

describe('parseJsonReport on what is not a report of its version', () => {
  it('refuses a text that is not JSON in its own words, not a bare SyntaxError', () => {
    for (const text of ['', '<html>', '{"reportVersion":1', 'NaN']) {
      const message = refusal(text);
      expect(message).toMatch(/^Failed to read the report: not JSON \(/);
      expect(message).not.toContain('\n');
    }
  });

  it('names another version in a short line, whatever the size of what stands in its place', () => {
    const huge = JSON.stringify({ reportVersion: 'x'.repeat(1_000_000) });
    const message = refusal(huge);
    expect(message).toMatch(/^Failed to read the report: reportVersion: expected 1, got "x+…/);
    expect(message.length).toBeLessThan(200);
    expect(refusal('{"reportVersion":2}')).toBe(
      'Failed to read the report: reportVersion: expected 1, got 2 (a report of another petstore-contract)',
    );
    expect(refusal('[]')).toBe(
      'Failed to read the report: reportVersion: expected 1, got none (a report of another petstore-contract)',
    );
  });
});

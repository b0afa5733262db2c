import { describe, expect, it } from 'vitest';
import { causeSignature, checksByOperation, groupFailures } from './failure-groups.js';
import { sampleResult } from './report.fixture.js';
import type { CheckResult } from './report-model.js';

const fail = (overrides: Partial<CheckResult>): CheckResult => sampleResult({ status: 'FAIL', ...overrides });

describe('failures grouped by cause', () => {
  it('takes out of a message what varies between places: the probe, the 2xx, numbers, quotes, URLs, run names, counterexamples', () => {
    expect(causeSignature('expected 401 for near miss: the key plus one character (prefix match), got 201')).toBe(
      'expected 401, got 2xx',
    );
    expect(
      causeSignature(
        'expected 401 for key in the query string (api_key, access_token, ...) without Authorization, got 200',
      ),
    ).toBe('expected 401, got 2xx');
    expect(causeSignature('expected 201 for a valid NewCategory, got 200')).toBe('expected 201, got 200');
    expect(causeSignature('expected 400 for a body that is not valid JSON, got 500')).toBe('expected 400, got 5xx');
    expect(causeSignature('id 17 is not unique: it was already returned by create.ok')).toBe(
      'id # is not unique: it was already returned by create.ok',
    );
    expect(
      causeSignature(
        'description not echoed: sent "a \\"b\\"", got undefined (fast-check seed 424242, counterexample {"suffix":")"})',
      ),
    ).toBe('description not echoed: sent "…", got undefined');
    expect(
      causeSignature('category 9 (contract-test-7ae9c0e2-listed) was created but GET /categories does not list it'),
    ).toBe('category # (contract-test-…) was created but GET /categories does not list it');
    expect(
      causeSignature(
        'Failed to get a response to GET http://127.0.0.1:33753/v1/store/orders: no answer within --timeout 0.5 s',
      ),
    ).toBe('Failed to get a response to GET <url>: no answer within --timeout # s');
  });

  it('one rule failing on several operations is one cause, listed by operation', () => {
    const groups = groupFailures(
      ['GET /categories', 'POST /categories', 'GET /pets/{petId}'].map((operation, index) =>
        fail({
          id: `auth.key-in-query:${index}`,
          rule: '§5.1',
          title: 'key in the query string without Authorization -> 401 + Error',
          operation,
          message: `expected 401 for key in the query string without Authorization, got ${index === 1 ? 201 : 200}`,
          evidence: [{ request: `x${index}`, seq: index + 1, detail: '' }],
        }),
      ),
    );
    expect(groups).toHaveLength(1);
    expect(groups[0]).toMatchObject({
      cause: 'expected 401, got 2xx',
      rules: ['§5.1'],
      operations: ['GET /categories', 'POST /categories', 'GET /pets/{petId}'],
      evidence: { seq: 1 },
    });
    expect(checksByOperation(groups[0]!)).toEqual([
      ['GET /categories', ['key in the query string without Authorization']],
      ['POST /categories', ['key in the query string without Authorization']],
      ['GET /pets/{petId}', ['key in the query string without Authorization']],
    ]);
  });

  it('one response breaking several rules is one cause; unrelated failures stay apart, in order of appearance', () => {
    const groups = groupFailures([
      fail({
        id: 'a',
        rule: '§5.3',
        message: 'the 401 body is not a JSON Error',
        evidence: [{ request: 'GET /categories', seq: 7, detail: '' }],
      }),
      sampleResult({ id: 'ok' }),
      fail({
        id: 'b',
        rule: '§8',
        message: 'X-RateLimit-Reset is 1795566063000: milliseconds, not seconds',
        evidence: [{ request: 'GET /categories', seq: 9, detail: '' }],
      }),
      fail({
        id: 'c',
        rule: '§7',
        operation: undefined,
        message: '48 of 86 error responses are not JSON Error objects: 401 body is not JSON: (empty body)',
        evidence: [
          { request: 'GET /categories', seq: 7, detail: '' },
          { request: 'more', seq: 8, detail: '' },
        ],
      }),
      fail({
        id: 'd',
        rule: '§5.3',
        message: 'the 401 body is not a JSON Error',
        evidence: [{ request: 'POST /categories', seq: 11, detail: '' }],
      }),
    ]);
    expect(groups.map((group) => group.checks.map((check) => check.id))).toEqual([['a', 'c', 'd'], ['b']]);
    expect(groups[0]).toMatchObject({
      cause: 'the 401 body is not a JSON Error',
      rules: ['§5.3', '§7'],
      operations: ['GET /categories', '(every response)'],
    });
    expect(groups[1]!.cause).toBe('X-RateLimit-Reset is 1795566063000: milliseconds, not seconds');
  });

  it('groups nothing but FAIL: WARN, SKIP and INCONCLUSIVE are not failures', () => {
    expect(
      groupFailures([
        sampleResult({ status: 'WARN', message: 'x' }),
        sampleResult({ status: 'SKIP', inconclusive: true, message: 'y' }),
      ]),
    ).toEqual([]);
  });
});

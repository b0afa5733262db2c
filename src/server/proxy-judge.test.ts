import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildSpecModel } from '../../spec/interface/spec-model.js';
import { readSpecFile } from '../../spec/load-spec.js';
import { createProxyJudge } from './proxy-judge.js';

const spec = buildSpecModel(await readSpecFile());
const banPolicy = { enabled: true, threshold: 10, durationMs: 900_000 };
const nowMs = Date.parse('2026-01-01T00:00:00Z');
const operation = { operationId: 'listCategories', deprecated: false };

function answer(remaining: number, status = 200) {
  return {
    status,
    headers: {
      date: new Date(nowMs).toUTCString(),
      'content-type': 'application/json',
      'x-ratelimit-limit': '60',
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-reset': String(nowMs / 1000 + 60),
    },
    bodyText: '[]',
    hasJson: true,
    json: [],
  };
}

const request = (key: string) => ({
  method: 'GET',
  url: '/v1/categories',
  headers: { authorization: `Bearer ${key}` },
  operation,
  clientAddress: '127.0.0.1',
});

describe('the proxy judge', () => {
  it('judges the step between sequential answers of a key, and not between answers sent in parallel', () => {
    const judge = createProxyJudge({ spec, banPolicy, now: () => nowMs });
    judge.answered(judge.sent(request('k')), answer(10));
    const first = judge.sent(request('k'));
    const second = judge.sent(request('k'));
    judge.answered(first, answer(9));
    judge.answered(second, answer(9));
    const rule = () => judge.report('up').server.rules.find((entry) => entry.id === 'rate.remaining-exact')!;
    expect(rule()).toMatchObject({ judged: 0, failed: 0 });
    // The next one alone may fall by more than one: the server may have counted the parallel two in either order.
    judge.answered(judge.sent(request('k')), answer(6));
    expect(rule()).toMatchObject({ judged: 1, failed: 0 });
    // Between two alone, the step is exact again.
    judge.answered(judge.sent(request('k')), answer(3));
    expect(rule()).toMatchObject({ judged: 2, failed: 1, outcome: 'fail' });
    expect(rule().evidence[0]).toMatchObject({ seq: 5, status: 200, header: 'X-RateLimit-Remaining' });
    expect(rule().evidence[0]!.request).toMatch(/^GET \/v1\/categories \(client-[0-9a-f]{12}\)$/);
  });

  it('keeps its memory bounded: keys followed, examples per rule, export lines, each with a count of the rest', () => {
    const judge = createProxyJudge({
      spec,
      banPolicy,
      now: () => nowMs,
      maxKeys: 2,
      maxEvidence: 2,
      maxExportLines: 3,
    });
    for (const key of ['a', 'b', 'c', 'd']) judge.answered(judge.sent(request(key)), { ...answer(5), headers: {} });
    const report = judge.report('up');
    expect(report.limits).toEqual({ keysFollowed: 2, keysNotFollowed: 2, exportLinesDropped: 1 });
    const missing = report.server.rules.find((rule) => rule.id === 'every.rate-headers-present')!;
    expect(missing).toMatchObject({ judged: 4, failed: 4, moreFailures: 2 });
    expect(missing.evidence).toHaveLength(2);
    expect(judge.exportLines()).toHaveLength(3);
    expect(report.client.clients).toHaveLength(2);
  });

  it('counts an upstream failure, judges nothing of it, and breaks the key sequence', () => {
    const judge = createProxyJudge({ spec, banPolicy, now: () => nowMs });
    judge.answered(judge.sent(request('k')), answer(10));
    judge.failed(judge.sent(request('k')), 'upstream');
    judge.answered(judge.sent(request('k')), answer(7));
    const report = judge.report('up');
    expect(report.requests).toMatchObject({ forwarded: 3, answered: 2, upstreamFailures: 1 });
    expect(report.server.rules.find((rule) => rule.id === 'rate.remaining-exact')!.judged).toBe(0);
    expect(judge.broke('server')).toBe(false);
  });

  it('judges any value an upstream sends in the headers it reads, and never throws (issue 40 row 3)', () => {
    // Near the judge's clock too, so that the pair rules do arithmetic on the values, not only the header rules.
    const numberLike = fc.oneof(
      fc.integer({ min: nowMs / 1000 - 120, max: nowMs / 1000 + 120 }).map(String),
      fc.bigInt({ min: 0n, max: 10n ** 30n }).map(String),
      fc.constantFrom('-1', '1e400', 'NaN', '0x10', '', ' ', '9'.repeat(400)),
    );
    const dateLike = fc.oneof(
      fc
        .date({ noInvalidDate: false })
        .map((date) => (Number.isNaN(date.getTime()) ? 'Invalid Date' : date.toUTCString())),
      fc.constantFrom(
        'Sat, 13 Sep 275760 00:00:00 GMT',
        'Mon, 01 Jan -271821 00:00:00 GMT',
        'Sunday, 06-Nov-94 08:49:37 GMT',
      ),
      fc.string(),
    );
    const headerValue = fc.oneof(numberLike, dateLike);
    const names = [
      'retry-after',
      'date',
      'x-ratelimit-limit',
      'x-ratelimit-remaining',
      'x-ratelimit-reset',
      'sunset',
      'deprecation',
    ];
    const answerOf = fc.record({
      status: fc.constantFrom(200, 429),
      headers: fc.record(Object.fromEntries(names.map((name) => [name, headerValue]))),
    });
    fc.assert(
      fc.property(fc.array(answerOf, { minLength: 2, maxLength: 4 }), (answers) => {
        const judge = createProxyJudge({ spec, banPolicy, now: () => nowMs });
        for (const { status, headers } of answers)
          judge.answered(judge.sent(request('k')), {
            ...answer(0, status),
            headers: { ...answer(0).headers, ...headers },
          });
        expect(JSON.stringify(judge.report('up'))).not.toContain('could not be read');
        judge.exportLines();
      }),
      { seed: 40_3, numRuns: 300 },
    );
  });
});

import { describe, expect, it } from 'vitest';
import { buildSpecModel } from '../../spec/interface/spec-model.js';
import { readSpecFile } from '../../spec/load-spec.js';
import type { Exchange } from './exchange.js';
import { RunJudge } from './run-judge.js';

const spec = buildSpecModel(await readSpecFile());
const nowMs = Date.parse('2026-01-01T00:00:00Z');
let seq = 0;

/** An exchange of GET /categories answered 200 with `remaining` left (or with more of its own). */
function exchange(remaining: number, more: { method?: string; truncatedAtBytes?: number } = {}): Exchange {
  seq += 1;
  return {
    seq,
    checkId: 'some.check',
    operationId: 'listCategories',
    identity: 'main',
    request: {
      method: more.method ?? 'GET',
      url: 'http://x/v1/categories',
      path: '/categories',
      headers: {},
      body: undefined,
    },
    sentAtMs: nowMs,
    receivedAtMs: nowMs,
    response: {
      status: 200,
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
      truncatedAtBytes: more.truncatedAtBytes,
    },
    transportError: undefined,
    bypassedPrism: false,
    answeredByPrism: false,
    prismViolations: [],
  };
}

/** Sends and answers each exchange in turn with the main key: the judge's record of the step rule. */
function judged(judge: RunJudge, ...exchanges: { exchange: Exchange; headers?: Record<string, string> }[]) {
  for (const { exchange: each, headers = {} } of exchanges)
    judge.answered(judge.sent(each.request.method, { authorization: 'Bearer demo-pro', ...headers }), each);
  return judge.recordOf('rate.remaining-exact');
}

describe("the run's judge: the whole catalogue on every exchange", () => {
  it('judges no step across a request sent through Prism (its client may send it upstream twice)', () => {
    const judge = new RunJudge(spec, ['demo-pro']);
    const first = exchange(10);
    judge.answered(judge.sent('GET', { authorization: 'Bearer demo-pro' }), first);
    // Through Prism: answered with two spent (a retry the kit never saw), then a direct request one lower.
    judge.answered(judge.sent('GET', { authorization: 'Bearer demo-pro' }, '', true), exchange(8));
    judge.answered(judge.sent('GET', { authorization: 'Bearer demo-pro' }), exchange(7));
    const record = judge.recordOf('rate.remaining-exact');
    expect(record.violations).toEqual([]);
    expect(record.judged).toHaveLength(0);
  });

  it('judges every answer by the response rules and each step of a key by the sequence rules', () => {
    const judge = new RunJudge(spec, ['demo-pro']);
    const record = judged(judge, { exchange: exchange(10) }, { exchange: exchange(8) });
    expect(record.judged).toHaveLength(1);
    expect(record.violations[0]).toMatchObject({ which: 'after', header: 'X-RateLimit-Remaining' });
    expect(record.violations[0]!.before?.seq).toBe(record.violations[0]!.exchange.seq - 1);
    expect(judge.recordOf('every.rate-headers-present').judged).toHaveLength(2);
  });

  it('keeps a CORS preflight out of the key sequence (a server answers it with the budget it did not touch)', () => {
    const preflight = { 'access-control-request-method': 'GET', origin: 'http://page.test' };
    const record = judged(
      new RunJudge(spec),
      { exchange: exchange(10) },
      { exchange: exchange(60, { method: 'OPTIONS' }), headers: preflight },
      { exchange: exchange(9) },
    );
    expect(record.judged).toHaveLength(1);
    expect(record.violations).toEqual([]);
  });

  it('judges no pair across a request that carries the key another way (a lenient server may count it)', () => {
    const ways: Record<string, string>[] = [
      { authorization: 'Bearer\tdemo-pro' },
      { authorization: 'Basic x', cookie: 'key=demo-pro' },
    ];
    for (const carried of ways) {
      const record = judged(
        new RunJudge(spec, ['demo-pro']),
        { exchange: exchange(10) },
        { exchange: exchange(9), headers: carried },
        { exchange: exchange(8) },
      );
      expect(record.judged, JSON.stringify(carried)).toEqual([]);
    }
  });

  it('judges no pair on an answer it did not read whole, and nothing without the Petstore document', () => {
    const cut = judged(
      new RunJudge(spec),
      { exchange: exchange(10) },
      { exchange: exchange(10, { truncatedAtBytes: 1_000 }) },
      { exchange: exchange(5) },
    );
    expect(cut.judged).toEqual([]);
    const none = new RunJudge(undefined);
    judged(none, { exchange: exchange(10) }, { exchange: exchange(3) });
    expect(none.recordOf('every.rate-headers-present').judged).toEqual([]);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { type RunningProxyServer, startProxyServer } from '../../src/server/proxy-server.js';
import { type FakePetstore, type Fault, fakeKeys, startFakePetstore } from '../contract-kit/support/fake-petstore.js';
import { type ClientSideExchange, driveTraffic } from './proxy-traffic.js';

/**
 * The proxy in front of the kit's deliberately broken servers (test/contract-kit/support/fake-petstore.ts):
 * the conforming fake passes, and each fault is reported under the rule it breaks, with evidence,
 * on the first answer that shows it (told from the answers the client itself recorded).
 */
const rateHeaders = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];
const isErrorShape = (json: unknown, status: number) =>
  json !== null &&
  typeof json === 'object' &&
  typeof (json as { code?: unknown }).code === 'string' &&
  typeof (json as { message?: unknown }).message === 'string' &&
  Number.isInteger((json as { status?: unknown }).status) &&
  status > 0;
const firstLimitedByKey = (ex: ClientSideExchange, all: ClientSideExchange[]) =>
  ex.status === 429 && all.find((other) => other.key === ex.key && other.status === 429) === ex;

/** Which answers show a rule broken, judged by the test on what the client received. */
const shows: Record<string, (ex: ClientSideExchange, all: ClientSideExchange[]) => boolean> = {
  'every.error-status': (ex) =>
    ex.status >= 400 &&
    ex.status !== 429 &&
    typeof (ex.json as { status?: unknown })?.status === 'number' &&
    (ex.json as { status: number }).status !== ex.status,
  'every.rate-headers-present': (ex) => rateHeaders.some((name) => ex.headers[name] === undefined),
  'every.rate-headers-integers': (ex) =>
    rateHeaders.some((name) => ex.headers[name] !== undefined && !/^\d+$/.test(ex.headers[name]!)) ||
    Number(ex.headers['x-ratelimit-remaining']) > Number(ex.headers['x-ratelimit-limit']),
  'every.rate-reset-seconds': (ex) =>
    Number(ex.headers['x-ratelimit-reset']) > 1e11 || Number(ex.headers['x-ratelimit-reset']) < 864_000,
  'every.429-retry-after': (ex) =>
    ex.status === 429 &&
    !/^[1-9]\d*$/.test(ex.headers['retry-after'] ?? '') &&
    !/^[A-Z][a-z]{2}, /.test(ex.headers['retry-after'] ?? ''),
  'every.error-shape': (ex) => ex.status >= 400 && ex.status !== 429 && !isErrorShape(ex.json, ex.status),
  'rate.remaining-exact': (ex, all) => {
    const before = all.filter((other) => other.key === ex.key && other.seq < ex.seq).at(-1);
    if (before === undefined || ex.key === null) return false;
    if ([401, 429].includes(before.status) || [401, 429].includes(ex.status)) return false;
    return Number(ex.headers['x-ratelimit-remaining']) !== Number(before.headers['x-ratelimit-remaining']) - 1;
  },
  'rate.reset-steady': (ex, all) => {
    const before = all.filter((other) => other.key === ex.key && other.seq < ex.seq).at(-1);
    if (before === undefined || ex.key === null) return false;
    if ([401, 429].includes(before.status) || [401, 429].includes(ex.status)) return false;
    return Number(ex.headers['x-ratelimit-reset']) < Number(before.headers['x-ratelimit-reset']) - 1;
  },
  'rate.429-only-when-exhausted': firstLimitedByKey,
  'rate.retry-after-matches-reset': firstLimitedByKey,
  'rate.retry-after-future': firstLimitedByKey,
};

const cases: { fault: Fault; rule: string; status?: number }[] = [
  { fault: 'error-status-mismatch', rule: 'every.error-status' },
  { fault: 'no-rate-headers-on-errors', rule: 'every.rate-headers-present' },
  { fault: 'no-rate-headers-on-404', rule: 'every.rate-headers-present' },
  { fault: 'no-rate-headers-on-429', rule: 'every.rate-headers-present' },
  { fault: 'non-integer-rate-headers', rule: 'every.rate-headers-integers' },
  { fault: 'remaining-above-limit', rule: 'every.rate-headers-integers' },
  { fault: 'reset-in-milliseconds', rule: 'every.rate-reset-seconds' },
  { fault: 'reset-as-delta', rule: 'every.rate-reset-seconds' },
  { fault: 'no-retry-after', rule: 'every.429-retry-after' },
  { fault: 'retry-after-invalid', rule: 'every.429-retry-after' },
  { fault: 'html-404', rule: 'every.error-shape' },
  { fault: 'empty-405', rule: 'every.error-shape' },
  { fault: 'text-error-body', rule: 'every.error-shape' },
  { fault: 'error-without-status', rule: 'every.error-shape' },
  { fault: 'unauthorized-without-error-body', rule: 'every.error-shape' },
  { fault: 'remaining-constant', rule: 'rate.remaining-exact' },
  { fault: 'posts-not-counted', rule: 'rate.remaining-exact' },
  { fault: 'errors-not-counted', rule: 'rate.remaining-exact' },
  { fault: 'remaining-nonzero-on-429', rule: 'rate.429-only-when-exhausted' },
  { fault: 'reset-jitters', rule: 'rate.reset-steady' },
  { fault: 'remaining-lies-high', rule: 'rate.429-only-when-exhausted' },
  { fault: 'retry-after-beyond-reset', rule: 'rate.retry-after-matches-reset' },
  { fault: 'retry-after-past-date', rule: 'rate.retry-after-future' },
  { fault: '401-as-403', rule: 'every.schema', status: 403 },
  { fault: 'validation-422', rule: 'every.schema', status: 422 },
  { fault: 'create-returns-200', rule: 'every.schema' },
  { fault: 'string-ids', rule: 'every.schema' },
  { fault: 'list-wrapped', rule: 'every.schema' },
];

describe('the judging proxy in front of broken servers', () => {
  let upstream: FakePetstore | undefined;
  let proxy: RunningProxyServer | undefined;
  afterEach(async () => {
    await proxy?.close();
    await upstream?.close();
    proxy = undefined;
    upstream = undefined;
  });

  const run = async (faults: Fault[]) => {
    upstream = await startFakePetstore({ faults });
    proxy = await startProxyServer({ upstream: upstream.baseUrl, port: 0 });
    const traffic = await driveTraffic(proxy.baseUrl, fakeKeys);
    return { traffic, report: proxy.report() };
  };

  it('passes the conforming fake: no server rule fails, and the rules across answers of a key were judged', async () => {
    const { traffic, report } = await run([]);
    expect(traffic.some((ex) => ex.status === 429)).toBe(true);
    expect(
      report.server.rules.filter((rule) => rule.outcome === 'fail').map((rule) => [rule.id, rule.evidence[0]]),
    ).toEqual([]);
    const judged = Object.fromEntries(report.server.rules.map((rule) => [rule.id, rule.judged]));
    expect(judged['rate.remaining-exact']).toBeGreaterThan(5);
    expect(judged['rate.429-only-when-exhausted']).toBe(1);
    expect(judged['rate.retry-after-matches-reset']).toBe(1);
    expect(judged['every.error-shape']).toBeGreaterThan(4);
    expect(report.server.outcome).toBe('pass');
    expect(report.requests).toMatchObject({ forwarded: traffic.length, answered: traffic.length, upstreamFailures: 0 });
  });

  it.each(cases)(
    '$fault: reported as $rule with evidence, first on the answer that shows it',
    async ({ fault, rule, status }) => {
      const { traffic, report } = await run([fault]);
      const result = report.server.rules.find((entry) => entry.id === rule)!;
      expect(
        result.outcome,
        JSON.stringify(report.server.rules.filter((entry) => entry.outcome === 'fail').map((entry) => entry.id)),
      ).toBe('fail');
      const first = result.evidence[0]!;
      expect(first.detail).not.toBe('');
      const predicate = shows[rule];
      const expected =
        predicate !== undefined
          ? traffic.find((ex) => predicate(ex, traffic))
          : status !== undefined
            ? traffic.find((ex) => ex.status === status)
            : undefined;
      if (expected !== undefined) {
        expect(first.seq).toBe(expected.seq);
        expect(first.status).toBe(expected.status);
      }
      expect(first.request).toMatch(/^(GET|POST|PATCH) \/v1\//);
      expect(report.server.outcome).toBe('fail');
    },
  );
});

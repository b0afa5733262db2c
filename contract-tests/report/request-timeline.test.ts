import { describe, expect, it } from 'vitest';
import type { Exchange, Identity } from '../lib/exchange.js';
import { requestTimeline } from './request-timeline.js';

const keyNames: Record<Identity, string> = {
  main: 'main key demo…(8)',
  anonymous: 'no key (auth probes)',
  'rate-limit': 'rate-limit key demo…(9)',
};

function exchange(seq: number, identity: Identity, sentAtMs: number, answer?: Partial<Exchange['response']>): Exchange {
  return {
    seq,
    checkId: 'x',
    operationId: 'listCategories',
    identity,
    request: { method: 'GET', url: 'http://h/v1/categories', path: '/categories', headers: {}, body: undefined },
    sentAtMs,
    receivedAtMs: sentAtMs + 5,
    response:
      answer === undefined
        ? undefined
        : { status: 200, headers: {}, bodyText: '', hasJson: false, json: undefined, ...answer },
    transportError: answer === undefined ? 'ECONNRESET' : undefined,
    bypassedPrism: false,
    answeredByPrism: false,
    prismViolations: [],
  };
}

describe('requestTimeline', () => {
  it('keeps each request per key in the order sent, its time after the first, status, code and Retry-After', () => {
    const t0 = Date.UTC(2026, 0, 1);
    const timeline = requestTimeline(
      [
        exchange(3, 'rate-limit', t0 + 2000, {
          status: 429,
          headers: { 'retry-after': '37', 'x-ratelimit-limit': '60' },
          hasJson: true,
          json: { code: 'rate_limited', message: 'slow down', status: 429 },
        }),
        exchange(1, 'main', t0, { headers: { 'x-ratelimit-limit': '1000' } }),
        exchange(2, 'main', t0 + 10, { headers: { 'x-ratelimit-limit': '300' } }),
        exchange(4, 'rate-limit', t0 + 3000, {
          status: 429,
          headers: { 'retry-after': new Date(t0 + 3005 + 20_000).toUTCString() },
        }),
        exchange(5, 'rate-limit', t0 + 4000),
      ],
      keyNames,
    );
    expect(timeline).toEqual({
      fromMs: t0,
      toMs: 4005,
      keys: [
        {
          key: 'main key demo…(8)',
          announcedLimit: 300,
          requests: [
            { atMs: 0, status: 200 },
            { atMs: 10, status: 200 },
          ],
        },
        {
          key: 'rate-limit key demo…(9)',
          announcedLimit: 60,
          requests: [
            { atMs: 2000, status: 429, code: 'rate_limited', retryAfterSeconds: 37 },
            { atMs: 3000, status: 429, retryAfterSeconds: 20 },
            { atMs: 4000 },
          ],
        },
      ],
    });
  });

  it('has no timeline without requests, and ignores a code that is not a short string or a Retry-After it cannot read', () => {
    expect(requestTimeline([], keyNames)).toBeUndefined();
    const timeline = requestTimeline(
      [exchange(1, 'main', 5, { status: 429, headers: { 'retry-after': 'soon' }, hasJson: true, json: { code: 7 } })],
      keyNames,
    );
    expect(timeline?.keys[0]?.requests).toEqual([{ atMs: 0, status: 429 }]);
    expect(timeline?.keys[0]?.announcedLimit).toBeUndefined();
  });
});

import { parseNonNegativeInteger, parseRetryAfter } from '../../spec/interface/rate-limit-headers.js';
import type { Exchange, Identity } from '../lib/exchange.js';
import type { KeyTimeline, RequestTimeline, TimedRequest } from './report-model.js';

/**
 * The run's requests per key for the report's timeline: each exchange's send time, status, Error
 * code and Retry-After, under the name `requestsByKey` gives its key. Keys without requests are
 * left out; the keys keep the order of `keyNames`.
 *
 * @example requestTimeline(state.exchanges, { main: 'main key demo…(8)', anonymous: 'no key (auth probes)', 'rate-limit': 'rate-limit key demo…(9)' })
 */
export function requestTimeline(
  exchanges: readonly Exchange[],
  keyNames: Readonly<Record<Identity, string>>,
): RequestTimeline | undefined {
  if (exchanges.length === 0) return undefined;
  const fromMs = exchanges.reduce((first, exchange) => Math.min(first, exchange.sentAtMs), Number.POSITIVE_INFINITY);
  const byIdentity = new Map<Identity, KeyTimeline>();
  for (const identity of Object.keys(keyNames) as Identity[])
    byIdentity.set(identity, { key: keyNames[identity], requests: [] });
  let toMs = 0;
  const ordered = [...exchanges].sort((a, b) => a.sentAtMs - b.sentAtMs || a.seq - b.seq);
  for (const exchange of ordered) {
    const lane = byIdentity.get(exchange.identity);
    if (lane === undefined) continue;
    lane.requests.push(timedRequest(exchange, fromMs));
    toMs = Math.max(toMs, Math.max(exchange.sentAtMs, exchange.receivedAtMs) - fromMs);
    const limit = parseNonNegativeInteger(exchange.response?.headers['x-ratelimit-limit']);
    if (limit !== undefined && limit > 0) lane.announcedLimit = Math.min(lane.announcedLimit ?? limit, limit);
  }
  return { fromMs, toMs, keys: [...byIdentity.values()].filter((lane) => lane.requests.length > 0) };
}

function timedRequest(exchange: Exchange, fromMs: number): TimedRequest {
  const { response } = exchange;
  const request: TimedRequest = { atMs: Math.max(0, Math.round(exchange.sentAtMs - fromMs)) };
  if (response === undefined) return request;
  request.status = response.status;
  const code = (response.json as { code?: unknown } | null | undefined)?.code;
  if (response.hasJson && typeof code === 'string' && code.length <= 64) request.code = code;
  if (response.status === 429) {
    const retry = parseRetryAfter(response.headers['retry-after'], exchange.receivedAtMs);
    if (retry.ok) request.retryAfterSeconds = Math.round(retry.delayMs / 1000);
  }
  return request;
}

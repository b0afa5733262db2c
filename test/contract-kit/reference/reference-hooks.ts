import type { Category, PlainRequest, PlainResponse } from './reference-petstore.js';
import type { RateDecision } from './reference-rate-limiter.js';

/**
 * Where the bug corpus (test/contract-kit/bug-servers/) adds its lines to the reference server. Each hook
 * stands where a real backend puts a middleware, a serializer, a cache or a limiter setting; the reference
 * itself has no hooks, so it answers exactly as without them. Types only: nothing here runs.
 */
export interface ReferenceHooks {
  /** A middleware before the app: what the app reads of the request. */
  request?(request: PlainRequest): PlainRequest;
  /** A middleware after the app: what leaves on the wire. */
  response?(response: PlainResponse, request: PlainRequest): PlainResponse;
  /** The rate-limit call: `take(bucket)` counts the request in a bucket; the default is `take(bucket)`. */
  decide?(take: (bucket: string) => RateDecision, bucket: string, request: PlainRequest): RateDecision;
  /** The ORM's insert: the category stored for a valid body; returning one of `stored` stores nothing new. */
  create?(draft: Category, context: { request: PlainRequest; stored: readonly Category[] }): Category;
  /** The query behind `GET /categories`: the categories it answers. */
  list?(stored: readonly Category[]): readonly Category[];
  /**
   * How requests reach the app (several processes behind a balancer, a store's latency): `start()` makes one
   * app with these hooks. Default: one app, called at once.
   */
  deploy?(start: () => (request: PlainRequest) => PlainResponse): (request: PlainRequest) => Promise<PlainResponse>;
  /** Settings of the limiter's arithmetic. */
  limiter?: LimiterTweaks;
}

/** The limiter's comparisons, where real limiters get an edge or an expiry wrong. */
export interface LimiterTweaks {
  /** Whether a window already holding `count` served requests is full. Default `count >= limit`. */
  full?(count: number, limit: number, window: 'minute' | 'day'): boolean;
  /** The number of the minute `now` falls in (its window ends at the next multiple of a minute). Default the UTC minute. */
  minuteOf?(now: number): number;
  /** The number of the day `now` falls in (its window ends at the next multiple of a day). Default the UTC day. */
  dayOf?(now: number): number;
  /** When a ban recorded to end at `bannedUntilMs` (0: never banned) ends. Default that moment. */
  banEnd?(bannedUntilMs: number): number;
}

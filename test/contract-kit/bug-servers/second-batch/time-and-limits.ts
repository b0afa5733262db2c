import type { PlainResponse } from '../../reference/reference-petstore.js';
import type { BugServer } from '../bug-server.js';
import { bearerOf, withHeader } from '../wire.js';
import { everyMinute } from '../witness.js';

/** Second batch, docs/bug-taxonomy.md sections 6 and 7: windows, clocks and units; counting. */

const minuteMs = 60_000;
/** The reference's ban: ten minutes, announced by Retry-After. */
const banSeconds = 600;

function rewriteReset(response: PlainResponse, change: (resetSeconds: number) => string): PlainResponse {
  const reset = response.headers['X-RateLimit-Reset'];
  return reset === undefined ? response : withHeader(response, 'X-RateLimit-Reset', change(Number(reset)));
}

export const secondBatchTimeBugs: readonly BugServer[] = [
  {
    id: 'time-reset-as-http-date',
    taxonomyClass: 'time',
    models: 'X-RateLimit-Reset written as an HTTP date (resetTime.toUTCString()), not a Unix timestamp',
    adds: "res.set('X-RateLimit-Reset', resetTime.toUTCString())",
    witness: [{}],
    hooks: () => ({
      response: (response) => rewriteReset(response, (seconds) => new Date(seconds * 1000).toUTCString()),
    }),
  },
  {
    id: 'time-reset-is-window-start',
    taxonomyClass: 'time',
    models: "X-RateLimit-Reset written from the bucket's key, the window's start (floor), not its end",
    adds: "res.set('X-RateLimit-Reset', Math.floor(now / 60_000) * 60)",
    witness: [{}],
    hooks: ({ clock }) => ({
      response: (response) => rewriteReset(response, () => String(Math.floor(clock.now() / minuteMs) * 60)),
    }),
  },
  {
    id: 'time-retry-after-negative',
    taxonomyClass: 'time',
    models: "Retry-After computed against the window's start instead of its end: zero or negative",
    adds: 'retryAfter = Math.ceil((windowStartMs - now) / 1000)',
    witness: [{ as: 'limited', times: 61 }],
    hooks: ({ clock }) => ({
      decide: (take, bucket) => {
        const decision = take(bucket);
        if (decision.allowed) return decision;
        const windowStartMs = Math.floor(clock.now() / minuteMs) * minuteMs;
        return { ...decision, retryAfterSeconds: Math.ceil((windowStartMs - clock.now()) / 1000) };
      },
    }),
  },
  {
    id: 'time-reset-stale-after-rollover',
    taxonomyClass: 'time',
    models:
      "an in-memory store sets a client's resetTime when its entry is created and never again: after the first window Reset is in the past",
    adds: 'store[key] ??= { hits: 0, resetTime: now + windowMs } // the hits are cleared by a timer, resetTime is not',
    witness: [{}, { afterMs: minuteMs }],
    hooks: () => {
      const firstReset = new Map<string, string>();
      return {
        response: (response, request) => {
          const reset = response.headers['X-RateLimit-Reset'];
          if (reset === undefined) return response;
          const client = bearerOf(request) ?? request.client;
          if (!firstReset.has(client)) firstReset.set(client, reset);
          return withHeader(response, 'X-RateLimit-Reset', firstReset.get(client));
        },
      };
    },
  },
  {
    id: 'time-minute-rolls-at-boot-offset',
    taxonomyClass: 'time',
    models:
      'the counters are cleared by setInterval(clear, 60_000) started at boot, while Reset announces the calendar minute',
    adds: "setInterval(() => hits.clear(), 60_000); res.set('X-RateLimit-Reset', Math.ceil(now / 60_000) * 60)",
    witness: [
      { as: 'limited', times: 60 },
      { as: 'limited', afterMs: 40_000 },
    ],
    hooks: ({ clock }) => {
      const bootOffsetMs = clock.now() % minuteMs;
      return { limiter: { minuteOf: (now) => Math.floor((now - bootOffsetMs) / minuteMs) } };
    },
  },
  {
    id: 'time-ban-without-retry-after',
    taxonomyClass: 'time',
    models:
      "a blocklist middleware in front of the limiter answers banned keys 429 'Banned' without Retry-After or rate headers",
    adds: "if (await redis.get('ban:' + key)) return res.status(429).send('Banned')",
    witness: [{ as: 'limited', times: 67 }],
    hooks: () => ({
      response: (response) =>
        response.status === 429 && response.headers['Retry-After'] === String(banSeconds)
          ? { status: 429, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: 'Banned' }
          : response,
    }),
  },
];

export const secondBatchLimitBugs: readonly BugServer[] = [
  {
    id: 'limits-remaining-negative-when-refused',
    taxonomyClass: 'limits',
    models:
      'the counter is incremented before the comparison, refused requests included: Remaining = limit - hits goes negative',
    adds: "const hits = await redis.incr(key); res.set('X-RateLimit-Remaining', String(limit - hits))",
    witness: everyMinute(1, { as: 'limited', times: 62 }),
    hooks: ({ clock }) => {
      const refusedInMinute = new Map<string, { minute: number; refused: number }>();
      return {
        decide: (take, bucket) => {
          const decision = take(bucket);
          if (decision.allowed) return decision;
          const minute = Math.floor(clock.now() / minuteMs);
          const entry = refusedInMinute.get(bucket);
          const refused = entry?.minute === minute ? entry.refused + 1 : 1;
          refusedInMinute.set(bucket, { minute, refused });
          return { ...decision, remaining: -refused };
        },
      };
    },
  },
];

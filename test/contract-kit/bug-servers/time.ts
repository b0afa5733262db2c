import type { ReferenceHooks } from '../reference/reference-hooks.js';
import type { RateDecision } from '../reference/reference-rate-limiter.js';
import type { BugServer } from './bug-server.js';
import { withHeader } from './wire.js';
import { everyMinute } from './witness.js';

/** docs/bug-taxonomy.md section 6: windows, clocks and units. */

const minuteMs = 60_000;

/** The answer with X-RateLimit-Reset rewritten from its value in seconds. */
function resetAs(change: (resetSeconds: number) => number) {
  return (response: { status: number; headers: Record<string, string>; body: string }) => {
    const reset = response.headers['X-RateLimit-Reset'];
    return reset === undefined ? response : withHeader(response, 'X-RateLimit-Reset', String(change(Number(reset))));
  };
}

/** A limiter call whose refusals carry another Retry-After (`change` of the refusal). */
function retryAfterOfRefusals(change: (decision: RateDecision) => number): ReferenceHooks['decide'] {
  return (take, bucket) => {
    const decision = take(bucket);
    return decision.allowed ? decision : { ...decision, retryAfterSeconds: change(decision) };
  };
}

export const timeBugs: readonly BugServer[] = [
  {
    id: 'time-reset-in-milliseconds',
    taxonomyClass: 'time',
    models: 'X-RateLimit-Reset written as epoch milliseconds (Date.getTime())',
    adds: "res.set('X-RateLimit-Reset', String(resetTime.getTime()))",
    witness: [{}],
    hooks: () => ({ response: resetAs((seconds) => seconds * 1000) }),
  },
  {
    id: 'time-reset-as-delta',
    taxonomyClass: 'time',
    models: 'X-RateLimit-Reset written as seconds until the reset, not a Unix timestamp',
    adds: "res.set('X-RateLimit-Reset', String(Math.ceil((resetMs - Date.now()) / 1000)))",
    witness: [{}],
    hooks: ({ clock }) => ({ response: resetAs((seconds) => seconds - Math.floor(clock.now() / 1000)) }),
  },
  {
    id: 'time-reset-slides',
    taxonomyClass: 'time',
    models: 'the counter TTL is refreshed on every hit (INCR + EXPIRE), so Reset announces now + 60 s on each answer',
    adds: "multi.incr(key).expire(key, 60); res.set('X-RateLimit-Reset', now + 60)",
    witness: [{}],
    hooks: ({ clock }) => ({ response: resetAs(() => Math.ceil((clock.now() + minuteMs) / 1000)) }),
  },
  {
    id: 'time-reset-local-time-zone',
    taxonomyClass: 'time',
    models: 'Reset built from local wall-clock fields on a host at UTC+1: an hour early (in the past)',
    adds: 'new Date(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes() + 1)',
    witness: [{}],
    hooks: () => ({ response: resetAs((seconds) => seconds - 3600) }),
  },
  {
    id: 'time-retry-after-in-milliseconds',
    taxonomyClass: 'time',
    models: 'Retry-After written in milliseconds (msBeforeNext)',
    adds: "res.set('Retry-After', String(rateLimiterRes.msBeforeNext))",
    witness: [{ as: 'limited', times: 61 }],
    hooks: () => ({ decide: retryAfterOfRefusals((decision) => decision.retryAfterSeconds * 1000) }),
  },
  {
    id: 'time-retry-after-elapsed',
    taxonomyClass: 'time',
    models: "Retry-After from the seconds elapsed in the window, not those left (a sign slip in the window's end)",
    adds: 'retryAfter = Math.ceil((now - windowStart) / 1000)',
    witness: [{ as: 'limited', times: 61 }],
    hooks: () => ({
      decide: retryAfterOfRefusals((decision) => Math.max(1, minuteMs / 1000 - decision.retryAfterSeconds)),
    }),
  },
  {
    id: 'time-retry-after-other-clock',
    taxonomyClass: 'time',
    models: "Retry-After from the store's clock, 3 s ahead of the host that writes Reset",
    adds: "const [now] = await redis.time(); res.set('Retry-After', Math.ceil((resetMs - now) / 1000))",
    witness: [{ as: 'limited', times: 61 }],
    hooks: () => ({ decide: retryAfterOfRefusals((decision) => Math.max(0, decision.retryAfterSeconds - 3)) }),
  },
  {
    id: 'time-ban-never-ends',
    taxonomyClass: 'time',
    models: 'the ban is checked as "ever banned" (its expiry was never set): it never ends',
    adds: 'if (usage.bannedUntilMs) return refused(...)',
    witness: [
      { as: 'limited', times: 66 },
      { as: 'limited', afterMs: 11 * 60_000 },
    ],
    hooks: () => ({ limiter: { banEnd: (bannedUntilMs) => (bannedUntilMs > 0 ? Number.POSITIVE_INFINITY : 0) } }),
  },
  {
    id: 'time-ban-announced-as-minute',
    taxonomyClass: 'time',
    models: "one refusal path for the limit and the ban: a ban is announced with the minute's Reset and Retry-After",
    adds: 'return refused(now, plan.perMinute, minuteEndMs) // for the ban too',
    witness: [{ as: 'limited', times: 66 }],
    hooks: ({ clock }) => ({
      decide: (take, bucket) => {
        const decision = take(bucket);
        const now = clock.now();
        const minuteEndMs = (Math.floor(now / minuteMs) + 1) * minuteMs;
        if (decision.allowed || decision.resetMs <= minuteEndMs) return decision;
        return { ...decision, resetMs: minuteEndMs, retryAfterSeconds: Math.ceil((minuteEndMs - now) / 1000) };
      },
    }),
  },
  {
    id: 'time-retry-after-floored',
    taxonomyClass: 'time',
    models: 'Retry-After rounded down (Math.floor): mid-second, the client retries before the window ends',
    adds: "res.set('Retry-After', String(Math.floor((resetMs - now) / 1000)))",
    witness: [
      { as: 'limited', times: 60 },
      { as: 'limited', afterMs: 500 },
    ],
    hooks: ({ clock }) => ({
      decide: retryAfterOfRefusals((decision) => Math.floor((decision.resetMs - clock.now()) / 1000)),
    }),
  },
  {
    id: 'time-day-resets-at-local-midnight',
    taxonomyClass: 'time',
    models: 'the day counter rolls at local midnight (a UTC+1 host) while Reset announces UTC midnight',
    adds: 'const day = Math.floor((now - new Date().getTimezoneOffset() * 60_000) / 86_400_000)',
    witness: [...everyMinute(16, { as: 'limited', times: 60 }), { as: 'limited', afterMs: 13 * 3_600_000 }],
    hooks: () => ({ limiter: { dayOf: (now) => Math.floor((now + 3_600_000) / 86_400_000) } }),
  },
];

import { plans } from '../reference/plans.js';
import type { BugServer } from './bug-server.js';
import { withHeader, withoutRateHeaders } from './wire.js';
import { everyMinute, post } from './witness.js';

/** docs/bug-taxonomy.md section 7: counting and exhaustion. */

export const limitBugs: readonly BugServer[] = [
  {
    id: 'limits-minute-off-by-one',
    taxonomyClass: 'limits',
    models: '`>` for `>=` at the minute edge: limit + 1 requests served per minute',
    adds: 'if (usage.minuteCount > plan.perMinute) return refused(...)',
    witness: [{ as: 'limited', times: 61 }],
    hooks: () => ({
      limiter: { full: (count, limit, window) => (window === 'minute' ? count > limit : count >= limit) },
    }),
  },
  {
    id: 'limits-day-off-by-one',
    taxonomyClass: 'limits',
    models: '`>` for `>=` at the day edge: the 1001st request of a Free day is served',
    adds: 'const dayFull = usage.dayCount > plan.perDay',
    witness: everyMinute(17, { as: 'limited', times: 60 }),
    hooks: () => ({ limiter: { full: (count, limit, window) => (window === 'day' ? count > limit : count >= limit) } }),
  },
  {
    id: 'limits-429-without-rate-headers',
    taxonomyClass: 'limits',
    models: "the limiter's 429 handler answers before the headers are set",
    adds: 'handler: (req, res) => res.status(429).json(error) // standardHeaders set after',
    witness: [{ as: 'limited', times: 61 }],
    hooks: () => ({ response: (response) => (response.status === 429 ? withoutRateHeaders(response) : response) }),
  },
  {
    id: 'limits-429-without-retry-after',
    taxonomyClass: 'limits',
    models: 'a custom 429 handler that forgets Retry-After',
    adds: 'handler: (req, res) => res.status(429).json(error)',
    witness: [{ as: 'limited', times: 61 }],
    hooks: () => ({ response: (response) => withHeader(response, 'Retry-After', undefined) }),
  },
  {
    id: 'limits-remaining-before-decrement',
    taxonomyClass: 'limits',
    models: 'Remaining read before the request is counted: one too many on every answer',
    adds: "res.set('X-RateLimit-Remaining', limit - countBefore)",
    witness: [{}],
    hooks: () => ({
      decide: (take, bucket) => {
        const decision = take(bucket);
        return decision.allowed ? { ...decision, remaining: decision.remaining + 1 } : decision;
      },
    }),
  },
  {
    id: 'limits-limit-from-default-plan',
    taxonomyClass: 'limits',
    models: "X-RateLimit-Limit written from the default plan's setting, not the caller's plan",
    adds: "res.set('X-RateLimit-Limit', config.defaultPlan.perMinute)",
    witness: [{ as: 'limited' }],
    hooks: () => ({
      decide: (take, bucket) => ({ ...take(bucket), limit: plans.pro.perMinute }),
    }),
  },
  {
    id: 'limits-double-count',
    taxonomyClass: 'limits',
    models: 'the limiter mounted twice (app and router): every request counts twice',
    adds: "app.use(limiter); router.use(limiter) // express-rate-limit's ERR_ERL_DOUBLE_COUNT",
    witness: [{}],
    hooks: () => ({
      decide: (take, bucket) => {
        take(bucket);
        return take(bucket);
      },
    }),
  },
  {
    id: 'limits-post-costs-five',
    taxonomyClass: 'limits',
    models: 'a cost-weighted limiter nobody documented: a POST counts as five requests',
    adds: "rateLimiter.consume(key, req.method === 'POST' ? 5 : 1)",
    witness: [post({ name: 'a' })],
    hooks: () => ({
      decide: (take, bucket, request) => {
        const cost = request.method === 'POST' ? 5 : 1;
        for (let extra = 1; extra < cost; extra += 1) take(bucket);
        return take(bucket);
      },
    }),
  },
];

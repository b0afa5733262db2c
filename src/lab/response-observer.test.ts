import { describe, expect, it } from 'vitest';
import { call, createTestApp, request } from '../../test/support/core-test-app.js';
import { createFixedClock } from '../core/clock.js';
import { RateLimiter } from '../core/state/rate-limiter.js';
import { observeExchange, windowResetOf } from './response-observer.js';

const context = {
  client: 'demo-free',
  kind: 'key' as const,
  plan: 'free',
  limits: { perMinute: 60, perDay: 1000 },
  operation: { operationId: 'listCategories' },
};

describe('windowResetOf (what the core sets LabObservation.windowReset to)', () => {
  it('is true when a request finds a window over and starts a new one, never on the first request or in a ban', async () => {
    const clock = createFixedClock(Date.UTC(2026, 0, 1));
    const limiter = new RateLimiter({ clock, ban: { enabled: true, threshold: 10, durationMs: 900_000 } });
    const limits = { perMinute: 60, perDay: 1000 };
    const start = clock.now();
    expect(windowResetOf(limiter.hit('a', limits), clock.now(), null)).toBe(false);
    expect(windowResetOf(limiter.hit('a', limits), clock.now(), start)).toBe(false);
    clock.advance(30_000);
    expect(windowResetOf(limiter.hit('a', limits), clock.now(), start)).toBe(false);
    clock.advance(30_000);
    expect(windowResetOf(limiter.hit('a', limits), clock.now(), start + 30_000)).toBe(true);
  });
});

describe('observeExchange', () => {
  it('tells a limiter 429, a ban and a forced 429 apart from the wire', async () => {
    const app = createTestApp({ config: { ban: { threshold: 1 } } });
    const observe = async (headers: Record<string, string> = {}) => {
      const mockRequest = request('GET', '/v1/categories?limit=1', { key: 'demo-free', headers });
      return observeExchange(mockRequest, await app.handle(mockRequest), {
        ...context,
        atMs: app.clock.now(),
        seenBefore: true,
      });
    };
    const forced = await observe({ prefer: 'code=429' });
    expect(forced).toMatchObject({ status: 429, outcome: 'allowed', forced: true, path: '/v1/categories' });
    for (let index = 0; index < 59; index += 1) await observe();
    expect(await observe()).toMatchObject({ status: 429, outcome: 'limited', forced: false, retryAfterSeconds: 60 });
    expect(await observe()).toMatchObject({ status: 429, outcome: 'banned', retryAfterSeconds: 900 });
    expect(await observe({ prefer: 'code=429' })).toMatchObject({ outcome: 'banned', forced: false });
  });

  it('reads the deprecation and a window reset, and ignores the controls', async () => {
    const app = createTestApp();
    const pet = request('GET', '/v1/pets/1', { key: 'demo-pro' });
    expect(
      observeExchange(pet, await app.handle(pet), { ...context, atMs: app.clock.now(), seenBefore: false }).deprecated,
    ).toEqual({ sunset: '2027-12-31T23:59:59.000Z' });
    app.clock.advance(60_000);
    const again = request('GET', '/v1/categories', { key: 'demo-pro' });
    expect(
      observeExchange(again, await app.handle(again), { ...context, atMs: app.clock.now(), seenBefore: true })
        .windowReset,
    ).toBe(true);
    const control = request('POST', '/__mock/reset');
    expect(
      observeExchange(control, await app.handle(control), { ...context, atMs: app.clock.now(), seenBefore: true })
        .outcome,
    ).toBe('other');
    expect((await call(app, 'GET', '/v1/categories', { key: 'demo-pro' })).status).toBe(200);
  });
});

describe('observationFromHit (the integration path)', () => {
  it('builds the observation from a store hit with no guessing', async () => {
    const { observationFromHit } = await import('./response-observer.js');
    const clock = createFixedClock(Date.UTC(2026, 0, 1));
    const limiter = new RateLimiter({ clock, ban: { enabled: true, threshold: 10, durationMs: 900_000 } });
    const limits = { perMinute: 1, perDay: 10 };
    limiter.hit('k:1', limits);
    const decision = limiter.hit('k:1', limits);
    const key = { masked: 'team…(12)', plan: 'custom', limits, id: '1' };
    const observation = observationFromHit({
      hit: { nowMs: clock.now(), decision, key, client: 'k:1' },
      previousRequestAtMs: clock.now(),
      method: 'GET',
      path: '/v1/categories',
      operationId: 'listCategories',
      status: 429,
      forced: true,
      anonymousLimits: { perMinute: 60, perDay: 1000 },
    });
    expect(observation).toEqual({
      atMs: clock.now(),
      client: 'team…(12)',
      clientId: 'k:1',
      kind: 'key',
      plan: 'custom',
      limits,
      method: 'GET',
      path: '/v1/categories',
      operationId: 'listCategories',
      status: 429,
      outcome: 'limited',
      forced: false,
      windowReset: false,
      retryAfterSeconds: 60,
    });
    const anonymous = observationFromHit({
      hit: { nowMs: clock.now(), decision: limiter.hit('a:10.1.1.1', limits), key: null, client: 'a:10.1.1.1' },
      previousRequestAtMs: null,
      method: 'GET',
      path: '/v1/pets/1',
      operationId: 'getPetById',
      status: 200,
      forced: false,
      deprecatedSunset: null,
      anonymousLimits: { perMinute: 60, perDay: 1000 },
    });
    expect(anonymous).toMatchObject({
      client: 'anonymous 10.1.1.1',
      kind: 'anonymous',
      plan: 'anonymous',
      deprecated: { sunset: null },
    });
  });
});

import { describe, expect, it } from 'vitest';
import { startMockServer } from '../../src/server/start-server.js';
import { createVirtualClock } from './reference/virtual-clock.js';
import { resultOf, runKit } from './support/run-kit.js';

/**
 * The checks that wait windows out, against an implementation they were not written from: the
 * project's own mock (windows that start at a key's first request, a 15-minute ban after ten more requests while limited) on a
 * virtual clock that the kit moves when it waits. Every time cell runs, and the mock conforms: the
 * time checks assert the interface, not the reference server's calendar windows.
 */
describe('the time cells against our mock on a virtual clock', () => {
  it('after Retry-After, over the limit with a bad body and a valid POST, a ban watched to its end and a whole day: CONFORMS, each cell judged', async () => {
    const clock = createVirtualClock({ startMs: Date.parse('2026-03-02T10:00:20Z') });
    const mock = await startMockServer({ port: 0, seed: 1, clock });
    try {
      const run = await runKit({
        baseUrl: mock.baseUrl,
        apiKey: 'demo-pro',
        rateLimitKey: 'demo-free',
        clock,
        windowWaitSeconds: 2 * 86_400,
        maxWaitSeconds: 86_400,
        maxRequests: 3_000,
      });
      expect(
        run.report.results
          .filter((result) => result.status === 'FAIL' || result.inconclusive)
          .map((result) => `${result.id}: ${result.message}`),
      ).toEqual([]);
      expect(run.report.verdict).toBe('CONFORMS');
      for (const id of [
        'rate.after-retry-after',
        'rate.limit-before-validation',
        'rate.day-window',
        'rate.day-rollover',
        'rate.429-only-when-exhausted',
        'rate.reset-moves-at-rollover',
        'rate.reset-steady',
        'rate.remaining-exact',
        'rate.parallel-exact',
      ])
        expect(resultOf(run, id).status, id).toBe('PASS');
      // The mock bans a key that sends more than ten requests while limited, for 15 minutes: the watch keeps
      // sending past that, sees the ban announced (429, Retry-After to its end), waits it out and is served again.
      expect(resultOf(run, 'rate.post-over-limit').status).toBe('PASS');
      expect(resultOf(run, 'rate.ban-watch').status).toBe('INFO');
      expect(resultOf(run, 'rate.ban-watch').message).toMatch(
        /^a ban after \d+ requests kept sending: Retry-After \d+; after waiting it, served again$/,
      );
      expect(resultOf(run, 'rate.ban-announced').status).toBe('INFO');
      expect(resultOf(run, 'rate.ban-announced').message).toMatch(
        /a ban: after 1[1-4] requests refused in a row, the key was told to wait 9\d\d s/,
      );
      expect(resultOf(run, 'rate.ban-temporary').status).toBe('PASS');
      expect(resultOf(run, 'rate.first-429-no-ban').status).toBe('PASS');
      expect(resultOf(run, 'rate.day-window').message).toMatch(/^\d+ served in the day window/);
    } finally {
      await mock.close(1_000);
    }
  });
});

import type { Clock } from './types.js';

/** Wall-clock time. */
export const systemClock: Clock = { now: () => Date.now() };

/**
 * A clock that runs with its base clock but can be moved forward, so a minute or a day of rate
 * limits passes instantly. It never moves backwards: windows and bans must not come back to life.
 *
 * @example
 * const clock = createVirtualClock();
 * clock.advance(60_000); // the per-minute window is over
 */
export interface VirtualClock extends Clock {
  advance(ms: number): void;
  /** How far the clock is ahead of its base, in milliseconds. */
  offset(): number;
}

export function createVirtualClock(base: Clock = systemClock): VirtualClock {
  let offsetMs = 0;
  return {
    now: () => base.now() + offsetMs,
    advance(ms) {
      if (!Number.isFinite(ms) || ms < 0)
        throw new RangeError('Failed to advance the clock: the step must be a finite number >= 0');
      offsetMs += ms;
    },
    offset: () => offsetMs,
  };
}

/** A clock that stands still until moved: for tests. */
export function createFixedClock(startMs: number): VirtualClock {
  return createVirtualClock({ now: () => startMs });
}

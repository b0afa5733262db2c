import type { KitClock } from '../../../contract-tests/lib/kit-clock.js';

/** A clock the test moves: the kit waits on it, the reference server reads it. */
export interface VirtualClock extends KitClock {
  /** Moves the clock forward by `ms` (never back). */
  advance(ms: number): void;
  /** Sets the clock to `ms` if that is later than now. */
  advanceTo(ms: number): void;
}

/**
 * A virtual clock. Sleeps take no real time: each one resolves on the next turn of the event loop
 * once the clock has been moved to its end, sleepers in the order of their ends, so two checks
 * that wait for the same instant wake at that instant (not one after the other).
 *
 * With `followRealTime`, the clock also moves with real time from `startMs` on, as a server's
 * clock does while requests are in flight: a run that starts at 12:00:59.5 crosses the minute.
 * Without it, time stands still between sleeps, and a run is repeatable request for request.
 *
 * @example
 * const clock = createVirtualClock({ startMs: Date.parse('2026-03-01T12:00:59.500Z'), followRealTime: true });
 * await clock.sleep(60_000); // returns at once; clock.now() is a minute later
 */
export function createVirtualClock(options: { startMs: number; followRealTime?: boolean }): VirtualClock {
  const realStart = performance.now();
  let skippedMs = 0;
  const sleepers: { atMs: number; wake: () => void }[] = [];
  let scheduled = false;

  const now = () => options.startMs + skippedMs + (options.followRealTime === true ? performance.now() - realStart : 0);
  const advanceTo = (ms: number) => {
    const current = now();
    if (ms > current) skippedMs += ms - current;
  };
  const wakeNext = () => {
    scheduled = false;
    sleepers.sort((a, b) => a.atMs - b.atMs);
    const next = sleepers.shift();
    if (next === undefined) return;
    advanceTo(next.atMs);
    next.wake();
    if (sleepers.length > 0) schedule();
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(wakeNext);
  };
  return {
    virtual: true,
    now,
    advance: (ms) => advanceTo(now() + Math.max(0, ms)),
    advanceTo,
    sleep: (ms) =>
      new Promise<void>((resolve) => {
        sleepers.push({ atMs: now() + Math.max(0, ms), wake: resolve });
        schedule();
      }),
  };
}

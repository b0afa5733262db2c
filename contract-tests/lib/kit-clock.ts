/**
 * The kit's notion of time: what "now" is and how it waits. Every timestamp the kit judges
 * (when a request was sent and answered, when a window resets, when Retry-After ends) is read
 * from one `KitClock`, and every wait (pacing by X-RateLimit-Remaining, honouring Retry-After,
 * watching a window roll over) goes through its `sleep`.
 *
 * The real clock is the default. Tests and tools that embed the kit inject their own with
 * `runContract({ clock })`: against a server that runs on the same clock, a wait then moves that
 * clock forward instead of sleeping, so a minute window, a Retry-After or a ban takes no real
 * time. Per-request timeouts and the run's `--deadline` stay on real time: they protect the
 * machine, not the rules.
 *
 * @example
 * const clock: KitClock = { now: () => virtualMs, sleep: async (ms) => { virtualMs += ms; } };
 * await runContract({ baseUrl, apiKey, clock });
 */
export interface KitClock {
  /** The current time in epoch milliseconds. */
  now(): number;
  /**
   * Resolves once `ms` have passed on this clock. Rejects (with any error) when `signal` aborts
   * first; a clock whose sleeps take no real time may ignore the signal.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * True when a sleep takes no real time (a test's virtual clock): the run's real-time deadline
   * then does not limit how long the kit may wait on purpose. Default false.
   */
  readonly virtual?: boolean;
}

/**
 * The wall clock: `Date.now()` and a timer that an abort signal cancels.
 *
 * @example await systemClock.sleep(1_000, AbortSignal.timeout(5_000));
 */
export const systemClock: KitClock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      function onAbort() {
        clearTimeout(timer);
        reject(signal?.reason);
      }
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

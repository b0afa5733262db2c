// Timing guards of the hardening tests (algorithmic cost, not speed targets): the fastest of a few runs
// is the one least disturbed by GC or a busy neighbour, and the bounds sit an order of magnitude away
// from both the linear and the quadratic cost.

/** The fastest of `runs` timings of `work`, in milliseconds. */
export async function fastest(runs: number, work: () => Promise<unknown>): Promise<number> {
  let best = Number.POSITIVE_INFINITY;
  for (let run = 0; run < runs; run += 1) {
    const started = performance.now();
    await work();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

/** The fastest of `runs` timings of synchronous `work`, in milliseconds. */
export function fastestSync(runs: number, work: () => void): number {
  let best = Number.POSITIVE_INFINITY;
  for (let run = 0; run < runs; run += 1) {
    const started = performance.now();
    work();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

// Timing guards of the tests (algorithmic cost and hangs, not speed targets): the fastest of a few
// runs is the one least disturbed by GC, and the bounds sit an order of magnitude away from both the
// linear and the quadratic cost. What is timed is this process's CPU time (vitest runs each file in a
// process of its own), not the wall clock: on a loaded CI machine a run waits for a core, which
// stretched one wall-clock route of 3 ms to 74 ms, while the CPU it takes stays what it is. Only work
// done in this process is timed so: the CPU of a child process or a server elsewhere is not counted.

/** CPU time of this process since `since` (a `process.cpuUsage()` reading), in milliseconds. */
function cpuMsSince(since: NodeJS.CpuUsage): number {
  const spent = process.cpuUsage(since);
  return (spent.user + spent.system) / 1000;
}

/** The fastest of `runs` timings of `work`, in milliseconds of this process's CPU. */
export async function fastest(runs: number, work: () => Promise<unknown>): Promise<number> {
  let best = Number.POSITIVE_INFINITY;
  for (let run = 0; run < runs; run += 1) {
    const started = process.cpuUsage();
    await work();
    best = Math.min(best, cpuMsSince(started));
  }
  return best;
}

/** The fastest of `runs` timings of synchronous `work`, in milliseconds of this process's CPU. */
export function fastestSync(runs: number, work: () => void): number {
  let best = Number.POSITIVE_INFINITY;
  for (let run = 0; run < runs; run += 1) {
    const started = process.cpuUsage();
    work();
    best = Math.min(best, cpuMsSince(started));
  }
  return best;
}

/** What one run of `work` gives, and the milliseconds of this process's CPU it took (for work that runs once). */
export async function cpuTimed<T>(work: () => Promise<T>): Promise<{ value: T; cpuMs: number }> {
  const started = process.cpuUsage();
  const value = await work();
  return { value, cpuMs: cpuMsSince(started) };
}

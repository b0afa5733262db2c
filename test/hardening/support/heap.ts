import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A function that runs a full garbage collection, in a vitest worker that was not started with
 * --expose-gc: the flag can still be set at run time, and a fresh context then sees `gc`.
 */
function obtainGc(): () => void {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (typeof existing === 'function') return existing;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

const gc = obtainGc();

/**
 * Bytes of live JavaScript heap after full collections: what the process really holds, not
 * garbage waiting to be swept. Two passes, because the first can leave objects that only die
 * once their finalizers ran.
 *
 * @example const before = liveHeapBytes(); work(); expect(liveHeapBytes() - before).toBeLessThan(5 * MiB);
 */
export function liveHeapBytes(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

export const MiB = 1024 * 1024;

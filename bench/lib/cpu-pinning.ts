import { spawnSync } from 'node:child_process';

/**
 * Which CPUs the servers and the load generator run on: apart, so neither steals the other's CPU
 * time slices, and a server's figures do not depend on where the kernel happened to place it. On
 * this project's 2-CPU VM, unpinned runs of the same mock measured 54 to 93 us of CPU per POST
 * request from one run to the next (two clusters: placements); pinned, 52 to 56.
 */
export interface CpuPinning {
  /** taskset's CPU list for the servers (e.g. "0"). */
  servers: string;
  /** taskset's CPU list for the load generator (e.g. "1"). */
  load: string;
}

/**
 * The CPUs this process may use, from a taskset/cpuset list such as "0-3,6" (the kernel's format
 * in `taskset -cp` and /sys/fs/cgroup/cpuset.cpus.effective); null when the text is not one.
 */
export function parseCpuList(text: string): number[] | null {
  const cpus: number[] = [];
  for (const part of text.trim().split(',')) {
    const range = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (range === null) return null;
    const first = Number(range[1]);
    const last = range[2] === undefined ? first : Number(range[2]);
    if (last < first || last - first > 4_096) return null;
    for (let cpu = first; cpu <= last; cpu += 1) cpus.push(cpu);
  }
  return cpus.length === 0 ? null : cpus;
}

/**
 * Splits the CPUs this process may use: the first half for the servers, the rest for the load
 * generator. Null (no pinning) with `mode` off, without `taskset` (util-linux; not on macOS), or
 * with fewer than 2 usable CPUs; `why` says which.
 */
export function planCpuPinning(mode: 'auto' | 'off'): { pinning: CpuPinning | null; why: string } {
  if (mode === 'off') return { pinning: null, why: 'not pinned (--pin off)' };
  const asked = spawnSync('taskset', ['-cp', String(process.pid)], { encoding: 'utf8', timeout: 5_000 });
  if (asked.error !== undefined || asked.status !== 0)
    return { pinning: null, why: 'not pinned (no taskset on this machine)' };
  const cpus = parseCpuList(asked.stdout.slice(asked.stdout.lastIndexOf(':') + 1));
  if (cpus === null)
    return { pinning: null, why: `not pinned (could not read taskset's answer "${asked.stdout.trim().slice(0, 80)}")` };
  if (cpus.length < 2) return { pinning: null, why: 'not pinned (one CPU: servers and load generator share it)' };
  const half = Math.floor(cpus.length / 2);
  const pinning = { servers: cpus.slice(0, half).join(','), load: cpus.slice(half).join(',') };
  return { pinning, why: `servers on CPU ${pinning.servers}, load generator on CPU ${pinning.load}` };
}

/** `command args` run on `cpus` through taskset (which execs it: the pid is the command's own); unchanged without. */
export function onCpus(
  command: string,
  args: readonly string[],
  cpus: string | undefined,
): { command: string; args: string[] } {
  return cpus === undefined
    ? { command, args: [...args] }
    : { command: 'taskset', args: ['-c', cpus, command, ...args] };
}

import { readdirSync, readFileSync } from 'node:fs';

/** Memory of a server process tree while it was under load. */
export interface RssSample {
  /** Highest sum of VmRSS over the process and its descendants seen while sampling. */
  peakRssBytes: number;
  /** VmHWM of the main process (its own resident high-water mark since start), read at the end. */
  highWaterMarkBytes: number;
  samples: number;
}

/** Reads one field (`VmRSS`, `VmHWM`) of /proc/<pid>/status in bytes; 0 when the process is gone. */
function readProcStatus(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** The pid and every descendant (Prism's `--multiprocess` forks its server, for example). */
function processTree(pid: number): number[] {
  const pids = [pid];
  for (let index = 0; index < pids.length; index += 1) {
    const current = pids[index]!;
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${current}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      try {
        for (const child of readFileSync(`/proc/${current}/task/${task}/children`, 'utf8').trim().split(/\s+/)) {
          if (child !== '') pids.push(Number(child));
        }
      } catch {
        // The task ended between the listing and the read.
      }
    }
  }
  return pids;
}

// USER_HZ: the unit of utime/stime in /proc/<pid>/stat. 100 on every mainstream Linux build
// (`getconf CLK_TCK`); Node has no sysconf to ask.
const clockTicksPerSecond = 100;

/**
 * CPU seconds (user + system) used so far by `pid` and its descendants, from /proc/<pid>/stat;
 * 0 when unavailable. CPU time per request is the figure to compare on a shared machine: other
 * work there changes how many requests a second a server gets through, far less what each costs.
 */
export function readCpuSeconds(pid: number): number {
  let ticks = 0;
  for (const member of processTree(pid)) {
    try {
      const text = readFileSync(`/proc/${member}/stat`, 'utf8');
      // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return ticks / clockTicksPerSecond;
}

/** True when /proc exists (Linux); elsewhere the RSS column is left empty. */
export function canSampleRss(): boolean {
  return readProcStatus(process.pid, 'VmRSS') > 0;
}

/**
 * Samples the resident memory of `pid` and its descendants every `intervalMs` until `stop()`.
 * Reading /proc costs microseconds, so sampling does not disturb the measurement.
 *
 * @example
 * const sampler = sampleRss(server.pid);
 * await runLoad(...);
 * const { peakRssBytes } = sampler.stop();
 */
export function sampleRss(pid: number, intervalMs = 100): { stop(): RssSample } {
  let peak = 0;
  let samples = 0;
  const take = () => {
    let total = 0;
    for (const member of processTree(pid)) total += readProcStatus(member, 'VmRSS');
    if (total > 0) samples += 1;
    peak = Math.max(peak, total);
  };
  take();
  const timer = setInterval(take, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      const highWaterMarkBytes = readProcStatus(pid, 'VmHWM');
      return { peakRssBytes: Math.max(peak, highWaterMarkBytes), highWaterMarkBytes, samples };
    },
  };
}

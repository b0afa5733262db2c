import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The parts of a V8 `.cpuprofile` (as written by `node --cpu-prof`) that the summary reads. */
export interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
    children?: number[];
  }[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface FunctionCost {
  /** `name (file:line)`, file relative to the repository (or the node_modules package). */
  name: string;
  selfMs: number;
  /** Time with this function anywhere on the stack (recursion counted once). */
  totalMs: number;
  selfShare: number;
  totalShare: number;
}

function describeFrame(frame: CpuProfile['nodes'][number]['callFrame'], root: string): string {
  const name = frame.functionName || '(anonymous)';
  if (!frame.url) return name;
  let file = frame.url;
  try {
    file = frame.url.startsWith('file:') ? fileURLToPath(frame.url) : frame.url;
  } catch {
    // Keep the URL as it is.
  }
  const modules = file.lastIndexOf('node_modules/');
  file = modules === -1 ? relative(root, file) : file.slice(modules + 'node_modules/'.length);
  // Code loaded through tsx reports every function on line 0 (its transform keeps no line
  // mapping V8 sees); a line number is only shown when it means something.
  return frame.lineNumber > 0 ? `${name} (${file}:${frame.lineNumber + 1})` : `${name} (${file})`;
}

/**
 * Self and inclusive time per function of a CPU profile, most expensive first. "(idle)" and
 * "(program)" are kept: a server that is mostly idle under load is waiting on the load generator.
 *
 * @example summarizeProfile(JSON.parse(readFileSync('CPU.cpuprofile', 'utf8')), process.cwd()).slice(0, 20)
 */
export function summarizeProfile(profile: CpuProfile, root: string): FunctionCost[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const keyOf = new Map(profile.nodes.map((node) => [node.id, describeFrame(node.callFrame, root)]));
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let all = 0;
  for (let index = 0; index < profile.samples.length; index += 1) {
    const id = profile.samples[index]!;
    // timeDeltas[i] is the time before sample i; charging it to sample i is the usual convention.
    const delta = (profile.timeDeltas[index] ?? 0) / 1000;
    all += delta;
    const key = keyOf.get(id) ?? '(unknown)';
    self.set(key, (self.get(key) ?? 0) + delta);
    const seen = new Set<string>();
    for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
      const frameKey = keyOf.get(current) ?? '(unknown)';
      if (byId.get(current)?.callFrame.functionName === '(root)' || seen.has(frameKey)) continue;
      seen.add(frameKey);
      total.set(frameKey, (total.get(frameKey) ?? 0) + delta);
    }
  }
  return [...total.keys()]
    .map((name) => ({
      name,
      selfMs: self.get(name) ?? 0,
      totalMs: total.get(name) ?? 0,
      selfShare: (self.get(name) ?? 0) / all,
      totalShare: (total.get(name) ?? 0) / all,
    }))
    .sort((a, b) => b.selfMs - a.selfMs);
}

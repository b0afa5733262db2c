import type { LabLimits, TimelineInput } from './lab-types.js';
import type { RecordedStart, ReplayRequest } from './replay-input.js';
import type { ReplayTarget } from './replay-types.js';

const dayMs = 86_400_000;
/** A recording that starts earlier is moved: the rate limiter takes time 0 for "never" (not banned, no window yet). */
const earliestAsRecordedMs = dayMs;
const movedToMs = Date.UTC(2000, 0, 1);

/** 0, or the whole days that move a recording starting at `firstAtMs` to 2000-01-01 (see `ReplayResult.timeShiftMs`). */
export function replayTimeShift(firstAtMs: number): number {
  return firstAtMs >= earliestAsRecordedMs ? 0 : Math.ceil((movedToMs - firstAtMs) / dayMs) * dayMs;
}

type SpentBefore = NonNullable<TimelineInput['clients'][number]['spentBefore']>;

/**
 * What a replay gives its fresh mock before the requests: the recording's keys, each with the plan it
 * was recorded (or mapped) with, and the recording's starting state, applied before the request it
 * precedes (`index`).
 */
export class ReplayStart {
  /** The keys to register; the latest mapping of a key wins. */
  private readonly keys = new Map<string, { plan: string; limits: LabLimits }>();
  /**
   * Before which request the state goes: the first, or the first at or after its time (a scenario
   * applied mid-recording); the number of requests when it comes after the last; -1 when there is
   * no state to apply or the target cannot apply one.
   */
  readonly index: number = -1;

  constructor(
    private readonly target: ReplayTarget,
    /** The recording's starting state, or null (none recorded, or the recording was moved in time). */
    readonly start: RecordedStart | null,
    requests: readonly ReplayRequest[],
  ) {
    for (const request of requests) {
      if (request.kind === 'key' && request.key !== null && request.limits !== null)
        this.keys.set(request.key, { plan: request.plan, limits: request.limits });
    }
    if (start !== null && target.applyScenario !== undefined) {
      const index = start.atMs === null ? 0 : requests.findIndex((request) => request.atMs >= start.atMs!);
      this.index = index === -1 ? requests.length : index;
    }
  }

  async registerKeys(): Promise<void> {
    for (const [key, { plan, limits }] of this.keys) await this.target.addKey({ key, plan, limits });
  }

  /** Applies the starting state, then the keys again: a plan given with --key wins over the recorded one. */
  async apply(): Promise<void> {
    if (this.start === null || this.target.applyScenario === undefined) return;
    try {
      await this.target.applyScenario(this.start.scenario);
    } catch (error) {
      throw new Error(`Failed to replay: the recording's starting state: ${(error as Error).message}`);
    }
    await this.registerKeys();
  }

  /**
   * What each client of the starting state had spent of its minute (its exact `windows`), by the name
   * its lane has (a key's pseudonym, an anonymous client's), at the time the state was applied; empty
   * when none was applied before a request.
   */
  spentBefore(requests: readonly ReplayRequest[], fromMs: number): Map<string, SpentBefore> {
    const spent = new Map<string, SpentBefore>();
    if (this.start === null || this.index === -1 || this.index === requests.length) return spent;
    const atMs = Math.min(this.start.atMs ?? fromMs, requests[this.index]!.atMs);
    const { scenario } = this.start;
    const clients = [
      ...(scenario.keys ?? []).map((entry) => ({ name: entry.key, windows: entry.windows })),
      ...(scenario.anonymous ?? []).map((entry) => ({ name: entry.address, windows: entry.windows })),
    ];
    for (const { name, windows } of clients)
      if (windows !== undefined && windows.minute > 0)
        spent.set(name, { atMs, minuteStartMs: Date.parse(windows.minuteStart), count: windows.minute });
    return spent;
  }
}

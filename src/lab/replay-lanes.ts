import type { LabLimits, LabObservation, TimelineInput } from './lab-types.js';
import type { ReplayRequest } from './replay-input.js';
import type { ReplayClientSummary, ReplayResult } from './replay-types.js';

type TimelineClient = TimelineInput['clients'][number];

/** One client of a replay: its summary line and its lane of the timeline. */
interface ReplayLane {
  summary: ReplayClientSummary;
  limits: LabLimits;
  requests: TimelineClient['requests'];
  bans: { fromMs: number; toMs: number }[];
  /** When the ban the lane shows last ends: a ban answer before then is the same ban. */
  banUntil: number;
}

/**
 * What a replay tallies of its answers, client by client, in the order clients first came: the
 * summary's counts, the timeline's lanes (each request, each ban) and when each client last came.
 */
export class ReplayLanes {
  private readonly lanes = new Map<string, ReplayLane>();
  /** Every answer counted by status. */
  private readonly statuses: Record<string, number> = {};
  /** When each client's previous request came: one in the same millisecond shares its windows. */
  private readonly lastAt = new Map<string, number>();

  /** When `client`'s previous request came, or undefined for its first. */
  previousAtMs(client: string): number | undefined {
    return this.lastAt.get(client);
  }

  /** Counts one answered request of `request.client`, at `observation.atMs`. */
  record(request: ReplayRequest, observation: LabObservation, limits: LabLimits): void {
    const now = observation.atMs;
    const status = observation.status;
    const statusKey = String(status);
    this.statuses[statusKey] = (this.statuses[statusKey] ?? 0) + 1;
    this.lastAt.set(request.client, now);
    const lane = this.laneOf(request, limits);
    lane.summary.requests += 1;
    lane.summary.byStatus[statusKey] = (lane.summary.byStatus[statusKey] ?? 0) + 1;
    if (status === 429) lane.summary.refused429 += 1;
    lane.requests.push({
      atMs: now,
      status,
      code: observation.outcome === 'banned' ? 'key_banned' : observation.outcome === 'limited' ? 'rate_limited' : null,
      ...(observation.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: observation.retryAfterSeconds }),
      ...(request.fault === undefined ? {} : { fault: request.fault }),
    });
    if (observation.outcome === 'banned' && now >= lane.banUntil) {
      lane.banUntil = now + (observation.retryAfterSeconds ?? 0) * 1000;
      lane.bans.push({ fromMs: now, toMs: lane.banUntil });
      lane.summary.bans += 1;
    }
  }

  /** Every answer counted by status, in the order of the statuses. */
  byStatus(): Record<string, number> {
    return sortByStatus(this.statuses);
  }

  clients(): ReplayResult['clients'] {
    return [...this.lanes.values()].map((lane) => ({ ...lane.summary, byStatus: sortByStatus(lane.summary.byStatus) }));
  }

  /** The timeline's lanes, each with what its client had spent of its minute before the replay (`spent`). */
  timelineClients(spent: ReadonlyMap<string, NonNullable<TimelineClient['spentBefore']>>): TimelineClient[] {
    return [...this.lanes.values()].map((lane) => {
      const spentBefore = spent.get(lane.summary.client);
      return {
        client: lane.summary.client,
        plan: lane.summary.plan,
        limits: lane.limits,
        requests: lane.requests,
        bans: lane.bans,
        ...(spentBefore === undefined ? {} : { spentBefore }),
      };
    });
  }

  /** The client's lane, opened with its first request (a key the mock refused is still shown as the recorded client). */
  private laneOf(request: ReplayRequest, limits: LabLimits): ReplayLane {
    let lane = this.lanes.get(request.client);
    if (!lane) {
      lane = {
        summary: {
          client: request.client,
          kind: request.kind,
          plan: request.plan,
          requests: 0,
          byStatus: {},
          refused429: 0,
          bans: 0,
        },
        limits,
        requests: [],
        bans: [],
        banUntil: 0,
      };
      this.lanes.set(request.client, lane);
    }
    return lane;
  }
}

function sortByStatus(counts: Record<string, number>): Record<string, number> {
  const sorted: Record<string, number> = {};
  for (const status of Object.keys(counts).sort((a, b) => Number(a) - Number(b))) sorted[status] = counts[status]!;
  return sorted;
}

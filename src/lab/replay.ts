import type { Clock, MockRequest, MockResponse } from '../core/types.js';
import { buildLabReport, clockStateAt, createLabSessionState, observeLab } from './lab-report.js';
import type { LabBanPolicy, LabLimits, LabReport, TimelineInput } from './lab-types.js';
import type { ReplayRequest } from './replay-input.js';
import { observeExchange } from './response-observer.js';

/**
 * What the replay needs of a mock: handling a request (synchronously today, asynchronously once the
 * core goes through the state store: both are accepted) and registering a key with its plan.
 * `createMockApp` fits: `{ handle: app.handle, addKey: app.controls.addKey }`.
 */
export interface ReplayTarget {
  handle(request: MockRequest): MockResponse | Promise<MockResponse>;
  addKey(input: { key: string; plan?: string; limits?: LabLimits }): unknown;
}

export interface ReplayOptions {
  /** A fresh mock whose base clock is `clock` (the recorded time). */
  createApp(clock: Clock): ReplayTarget | Promise<ReplayTarget>;
  banPolicy: LabBanPolicy;
  /** The operation a request lands on (for coverage), or null; the mock's router. */
  operationOf?(method: string, path: string): { operationId: string; pathTemplate: string } | null;
  /** The session name in the report. Default "replay". */
  session?: string;
  /** Timeline title. */
  title?: string;
  /** The budget of clients without a key (the config's `anonymous`). Default 60 a minute, 1,000 a day. */
  anonymousLimits?: LabLimits;
}

export interface ReplayClientSummary {
  client: string;
  kind: 'key' | 'anonymous';
  plan: string;
  requests: number;
  byStatus: Record<string, number>;
  refused429: number;
  bans: number;
}

export interface ReplayResult {
  requests: number;
  /** The first and the last request on the replay's clock (the recorded times plus `timeShiftMs`). */
  fromMs: number;
  toMs: number;
  /**
   * How far the recording was moved to be replayed: 0, or for a recording that starts before
   * 1970-01-02 (Go's zero time, a 1969 recording) the whole days that move its first request to
   * 2000-01-01, at the same time of day. Every window and day boundary falls as recorded.
   */
  timeShiftMs: number;
  byStatus: Record<string, number>;
  clients: ReplayClientSummary[];
  /** How the replayed statuses compare with the recorded ones (where the recording has them). */
  recorded: {
    compared: number;
    same: number;
    differences: { index: number; atMs: number; method: string; url: string; recorded: number; replayed: number }[];
  };
  report: LabReport;
  timeline: TimelineInput;
}

const encoder = new TextEncoder();
const maxDifferencesShown = 20;
const dayMs = 86_400_000;
/** A recording that starts earlier is moved: the rate limiter takes time 0 for "never" (not banned, no window yet). */
const earliestAsRecordedMs = dayMs;
const movedToMs = Date.UTC(2000, 0, 1);

/** 0, or the whole days that move a recording starting at `firstAtMs` to 2000-01-01 (see `ReplayResult.timeShiftMs`). */
export function replayTimeShift(firstAtMs: number): number {
  return firstAtMs >= earliestAsRecordedMs ? 0 : Math.ceil((movedToMs - firstAtMs) / dayMs) * dayMs;
}

/**
 * Replays recorded requests against a fresh mock, the virtual clock following the recorded times,
 * as fast as the mock answers. No wall clock and no randomness: the same input gives the same result.
 *
 * @example
 * const result = await replay(parseReplayInput(text, { plans }), {
 *   createApp: (clock) => { const app = createMockApp({ spec, clock }); return { handle: app.handle, addKey: app.controls.addKey }; },
 *   banPolicy: { enabled: true, threshold: 10, durationMs: 900_000 },
 * });
 */
export async function replay(requests: readonly ReplayRequest[], options: ReplayOptions): Promise<ReplayResult> {
  if (requests.length === 0) throw new Error('Failed to replay: no requests');
  const timeShiftMs = replayTimeShift(requests[0]!.atMs);
  let now = requests[0]!.atMs + timeShiftMs;
  const clock: Clock = { now: () => now };
  const target = await options.createApp(clock);
  const handle = target.handle.bind(target);

  // Keys first, with the plan each was recorded (or mapped) with; the latest mapping of a key wins.
  const registered = new Map<string, { plan: string; limits: LabLimits }>();
  for (const request of requests) {
    if (request.kind === 'key' && request.key !== null && request.limits !== null)
      registered.set(request.key, { plan: request.plan, limits: request.limits });
  }
  for (const [key, { plan, limits }] of registered) await target.addKey({ key, plan, limits });

  const lab = createLabSessionState({ maxClients: Number.POSITIVE_INFINITY });
  const byStatus: Record<string, number> = {};
  const lanes = new Map<
    string,
    {
      summary: ReplayClientSummary;
      limits: LabLimits;
      requests: { atMs: number; status: number }[];
      bans: { fromMs: number; toMs: number }[];
      banUntil: number;
    }
  >();
  const seen = new Set<string>();
  const lastAt = new Map<string, number>();
  const differences: ReplayResult['recorded']['differences'] = [];
  let compared = 0;
  let same = 0;
  const anonymousLimits = options.anonymousLimits ?? { perMinute: 60, perDay: 1_000 };

  for (let index = 0; index < requests.length; index += 1) {
    const request = requests[index]!;
    // The clock never goes back (a recording out of order by a few ms is sorted already).
    if (request.atMs + timeShiftMs > now) now = request.atMs + timeShiftMs;
    const mockRequest: MockRequest = {
      method: request.method,
      url: request.url,
      headers: request.headers,
      body: request.body === null ? null : encoder.encode(request.body),
      clientAddress: request.clientAddress,
    };
    const answer = handle(mockRequest);
    const response = isPromise(answer) ? await answer : answer;
    const status = response.status;
    const statusKey = String(status);
    byStatus[statusKey] = (byStatus[statusKey] ?? 0) + 1;

    const questionMark = request.url.indexOf('?');
    const path = questionMark === -1 ? request.url : request.url.slice(0, questionMark);
    const operation = options.operationOf?.(request.method, path) ?? null;
    // A key the mock refused (unknown, or a status before auth) is still shown as the recorded client.
    const limits = request.limits ?? anonymousLimits;
    const observation = observeExchange(mockRequest, response, {
      atMs: now,
      client: request.client,
      kind: request.kind,
      plan: request.plan,
      limits,
      operation,
      seenBefore: seen.has(request.client),
      ...(seen.has(request.client) ? { previousAtMs: lastAt.get(request.client)! } : {}),
    });
    seen.add(request.client);
    lastAt.set(request.client, now);
    observeLab(lab, observation, operation?.pathTemplate);

    let lane = lanes.get(request.client);
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
      lanes.set(request.client, lane);
    }
    lane.summary.requests += 1;
    lane.summary.byStatus[statusKey] = (lane.summary.byStatus[statusKey] ?? 0) + 1;
    if (status === 429) lane.summary.refused429 += 1;
    lane.requests.push({ atMs: now, status });
    if (observation.outcome === 'banned' && now >= lane.banUntil) {
      lane.banUntil = now + (observation.retryAfterSeconds ?? 0) * 1000;
      lane.bans.push({ fromMs: now, toMs: lane.banUntil });
      lane.summary.bans += 1;
    }

    if (request.recordedStatus !== null) {
      compared += 1;
      if (request.recordedStatus === status) same += 1;
      else if (differences.length < maxDifferencesShown)
        differences.push({
          index,
          atMs: now,
          method: request.method,
          url: request.url.slice(0, 200),
          recorded: request.recordedStatus,
          replayed: status,
        });
    }
  }

  const fromMs = requests[0]!.atMs + timeShiftMs;
  const toMs = now;
  const report = buildLabReport(lab, {
    session: options.session ?? 'replay',
    clock: clockStateAt(toMs),
    banPolicy: options.banPolicy,
  });
  const sortedStatuses: Record<string, number> = {};
  for (const status of Object.keys(byStatus).sort((a, b) => Number(a) - Number(b)))
    sortedStatuses[status] = byStatus[status]!;
  const laneList = [...lanes.values()];
  return {
    requests: requests.length,
    fromMs,
    toMs,
    timeShiftMs,
    byStatus: sortedStatuses,
    clients: laneList.map((lane) => ({ ...lane.summary, byStatus: sortByStatus(lane.summary.byStatus) })),
    recorded: { compared, same, differences },
    report,
    timeline: {
      from: fromMs,
      to: Math.max(toMs, fromMs + 1000),
      ...(options.title !== undefined ? { title: options.title } : {}),
      clients: laneList.map((lane) => ({
        client: lane.summary.client,
        plan: lane.summary.plan,
        limits: lane.limits,
        requests: lane.requests,
        bans: lane.bans,
      })),
    },
  };
}

function sortByStatus(counts: Record<string, number>): Record<string, number> {
  const sorted: Record<string, number> = {};
  for (const status of Object.keys(counts).sort((a, b) => Number(a) - Number(b))) sorted[status] = counts[status]!;
  return sorted;
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

import { maskQueryCredentials } from '../../spec/credential-masking.js';
import { targetPath, targetQuery } from '../../spec/url-parts.js';
import type { Clock, MockRequest, MockResponse } from '../core/types.js';
import { buildLabReport, clockStateAt, createLabSessionState, observeLab } from './lab-report.js';
import type { LabBanPolicy, LabLimits, LabReport, TimelineInput } from './lab-types.js';
import { maxExportBodyBytes, type RecordedStart, type Recording, type ReplayRequest } from './replay-input.js';
import { observeExchange } from './response-observer.js';

/**
 * What the replay needs of a mock: handling a request (synchronously today, asynchronously once the
 * core goes through the state store: both are accepted) and registering a key with its plan.
 * `createMockApp` fits: `{ handle: app.handle, addKey: app.controls.addKey }`.
 */
export interface ReplayTarget {
  handle(request: MockRequest): MockResponse | Promise<MockResponse>;
  addKey(input: { key: string; plan?: string; limits?: LabLimits }): unknown;
  /** Applies a scenario (the export's starting state): `app.controls.applyScenario`. */
  applyScenario?(scenario: RecordedStart['scenario']): Promise<unknown>;
}

export interface ReplayOptions {
  /** A fresh mock whose base clock is `clock` (the recorded time). */
  createApp(clock: Clock): ReplayTarget | Promise<ReplayTarget>;
  banPolicy: LabBanPolicy;
  /** The operation a request lands on (for coverage), or null; the mock's router, with the query (a path key may carry one: decision 040). */
  operationOf?(method: string, path: string, query: string): { operationId: string; pathTemplate: string } | null;
  /** The session name in the report. Default "replay". */
  session?: string;
  /** Timeline title. */
  title?: string;
  /** The budget of clients without a key (the config's `anonymous`). Default 60 a minute, 1,000 a day. */
  anonymousLimits?: LabLimits;
  /**
   * What the recording says besides its requests (`parseRecording`): its format and the state it
   * starts from, applied before the first request it holds. Default: an export without a state.
   */
  recording?: Pick<Recording, 'format' | 'start'>;
  /** Clients whose plan the replay was told to change (`--key`): a difference of theirs is put down to it. */
  replannedClients?: ReadonlySet<string>;
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
    /** The first differences (at most 20), each with its likely cause. */
    differences: {
      index: number;
      atMs: number;
      method: string;
      url: string;
      recorded: number;
      replayed: number;
      cause: string;
    }[];
    /** Every difference counted by its likely cause. */
    causes: Record<string, number>;
  };
  /**
   * One line on what the replay could not know, or null: no starting state (a HAR, an older export),
   * a recording that starts mid-window, a log that dropped earlier requests.
   */
  warning: string | null;
  /** Whether the recording's starting state was applied, and before which request (its index). */
  startingState: { applied: boolean; beforeIndex: number } | null;
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
function replayTimeShift(firstAtMs: number): number {
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
  const recording = options.recording ?? { format: 'export' as const, start: null };
  // The state is applied as recorded: never to a recording moved in time (its windows would not be where it says).
  const start = timeShiftMs === 0 ? recording.start : null;
  let now = requests[0]!.atMs + timeShiftMs;
  // A state that holds before the first request is applied at its own time.
  if (start !== null && start.atMs !== null && start.atMs < now) now = start.atMs;
  const clock: Clock = { now: () => now };
  const target = await options.createApp(clock);
  const handle = target.handle.bind(target);

  // Keys first, with the plan each was recorded (or mapped) with; the latest mapping of a key wins.
  const registered = new Map<string, { plan: string; limits: LabLimits }>();
  for (const request of requests) {
    if (request.kind === 'key' && request.key !== null && request.limits !== null)
      registered.set(request.key, { plan: request.plan, limits: request.limits });
  }
  const registerKeys = async () => {
    for (const [key, { plan, limits }] of registered) await target.addKey({ key, plan, limits });
  };
  await registerKeys();
  const applyStart = async () => {
    if (start === null || target.applyScenario === undefined) return;
    try {
      await target.applyScenario(start.scenario);
    } catch (error) {
      throw new Error(`Failed to replay: the recording's starting state: ${(error as Error).message}`);
    }
    // A plan given with --key wins over the recorded one.
    await registerKeys();
  };
  // Before which request the state goes: the first, or the first at or after its time (a scenario applied mid-recording).
  let startIndex = -1;
  if (start !== null && target.applyScenario !== undefined) {
    startIndex = start.atMs === null ? 0 : requests.findIndex((request) => request.atMs >= start.atMs!);
    if (startIndex === -1) startIndex = requests.length;
    if (startIndex === 0) await applyStart();
  }

  const lab = createLabSessionState({ maxClients: Number.POSITIVE_INFINITY });
  const byStatus: Record<string, number> = {};
  const lanes = new Map<
    string,
    {
      summary: ReplayClientSummary;
      limits: LabLimits;
      requests: TimelineInput['clients'][number]['requests'];
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

  const causes: Record<string, number> = {};
  const firstRecorded = new Map<string, number>();
  for (let index = 0; index < requests.length; index += 1) {
    const request = requests[index]!;
    if (index === startIndex && index > 0) {
      if (start!.atMs! > now) now = start!.atMs!;
      await applyStart();
    }
    // The clock never goes back (a recording out of order by a few ms is sorted already).
    if (request.atMs + timeShiftMs > now) now = request.atMs + timeShiftMs;
    if (!firstRecorded.has(request.client) && request.recordedStatus !== null)
      firstRecorded.set(request.client, request.recordedStatus);
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

    const path = targetPath(request.url);
    const operation = options.operationOf?.(request.method, path, targetQuery(request.url)) ?? null;
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

    if (request.recordedStatus !== null) {
      compared += 1;
      if (request.recordedStatus === status) same += 1;
      else {
        const cause = differenceCause(request, status, {
          index,
          startIndex,
          start,
          format: recording.format,
          movedInTime: timeShiftMs !== 0 && recording.start !== null,
          replanned: options.replannedClients?.has(request.client) ?? false,
        });
        causes[cause] = (causes[cause] ?? 0) + 1;
        if (differences.length < maxDifferencesShown)
          differences.push({
            index,
            atMs: now,
            method: request.method,
            // A recording's keys stay in the replayed requests, never in the report.
            url: maskQueryCredentials(request.url).slice(0, 200),
            recorded: request.recordedStatus,
            replayed: status,
            cause,
          });
      }
    }
  }

  const fromMs = requests[0]!.atMs + timeShiftMs;
  const toMs = now;
  const startSpent =
    start === null || startIndex === -1 || startIndex === requests.length
      ? new Map<string, SpentBefore>()
      : spentInStart(start.scenario, Math.min(start.atMs ?? fromMs, requests[startIndex]!.atMs));
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
    recorded: { compared, same, differences, causes },
    warning: replayWarning(recording, start, firstRecorded, requests.length, timeShiftMs),
    startingState: start === null ? null : { applied: startIndex !== -1, beforeIndex: startIndex },
    report,
    timeline: {
      from: fromMs,
      to: Math.max(toMs, fromMs + 1000),
      ...(options.title !== undefined ? { title: options.title } : {}),
      clients: laneList.map((lane) => {
        const spent = startSpent.get(lane.summary.client);
        return {
          client: lane.summary.client,
          plan: lane.summary.plan,
          limits: lane.limits,
          requests: lane.requests,
          bans: lane.bans,
          ...(spent === undefined ? {} : { spentBefore: spent }),
        };
      }),
    },
  };
}

type SpentBefore = NonNullable<TimelineInput['clients'][number]['spentBefore']>;

/**
 * What each client of a recording's starting state had spent of its minute (its exact `windows`), by
 * the name its lane has (a key's pseudonym, an anonymous client's), applied at `atMs`.
 */
function spentInStart(scenario: RecordedStart['scenario'], atMs: number): Map<string, SpentBefore> {
  const spent = new Map<string, SpentBefore>();
  const clients = [
    ...(scenario.keys ?? []).map((entry) => ({ name: entry.key, windows: entry.windows })),
    ...(scenario.anonymous ?? []).map((entry) => ({ name: entry.address, windows: entry.windows })),
  ];
  for (const { name, windows } of clients)
    if (windows !== undefined && windows.minute > 0)
      spent.set(name, { atMs, minuteStartMs: Date.parse(windows.minuteStart), count: windows.minute });
  return spent;
}

/** The default `requestLogSize`: an older export of exactly this many requests may be a truncated log. */
const defaultLogSize = 500;

/** The one line the summary warns with, or null (see `ReplayResult.warning`). */
function replayWarning(
  recording: Pick<Recording, 'format' | 'start'>,
  start: RecordedStart | null,
  firstRecorded: ReadonlyMap<string, number>,
  requests: number,
  timeShiftMs: number,
): string | null {
  if (recording.start !== null && timeShiftMs !== 0)
    return 'Recorded before 1970: the starting state is not applied (its windows would not fall as recorded); every client starts fresh';
  if (start !== null) {
    if (start.dropped === null) return null;
    return `The log was truncated: ${count(start.dropped.count)} earlier requests (${iso(start.dropped.fromMs)} to ${iso(start.dropped.toMs)}) were not recorded; replayed from the state the mock kept after them (logSize ${count(start.logSize)})`;
  }
  const midWindow = [...firstRecorded.values()].filter((status) => status === 429).length;
  const what =
    recording.format === 'har'
      ? 'A HAR has no starting state'
      : 'This export has no starting state (made by an older mock)';
  const parts = [`${what}: budgets spent and bans set before its first request are unknown, every client starts fresh`];
  if (midWindow > 0)
    parts.push(
      `the recording starts mid-window (${count(midWindow)} client${midWindow === 1 ? ' was' : 's were'} refused at their first recorded request)`,
    );
  if (recording.format === 'export' && requests === defaultLogSize)
    parts.push(`it holds exactly ${defaultLogSize} requests, the default log size: earlier ones may have been dropped`);
  return parts.join('; ');
}

/** The likely cause of a status the replay answered differently from the recording. */
function differenceCause(
  request: ReplayRequest,
  replayed: number,
  context: {
    index: number;
    startIndex: number;
    start: RecordedStart | null;
    format: Recording['format'];
    movedInTime: boolean;
    replanned: boolean;
  },
): string {
  if (context.replanned) return 'plan changed with --key';
  if (context.movedInTime) return 'recorded before 1970: starting state not applied';
  if (request.body !== null && request.body.length >= maxExportBodyBytes) return 'request body cut in the export';
  if (context.start === null) {
    if (request.recordedStatus === 429 && replayed !== 429)
      return 'recording starts mid-window: budget spent or ban set before the first recorded request';
    return context.format === 'har' ? 'no starting state in a HAR' : 'no starting state in an older export';
  }
  if (context.index < context.startIndex) return 'before the starting state: a scenario applied mid-recording';
  if (context.start.omittedClients > 0 && request.kind === 'key')
    return 'a client left out of the starting state (its key was unknown at export)';
  if (context.start.dropped !== null) return 'log truncated: a dropped request changed what the state does not hold';
  return 'the mock answers differently from the recording (another config or version?)';
}

function count(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function sortByStatus(counts: Record<string, number>): Record<string, number> {
  const sorted: Record<string, number> = {};
  for (const status of Object.keys(counts).sort((a, b) => Number(a) - Number(b))) sorted[status] = counts[status]!;
  return sorted;
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

import type { Clock, MockRequest, MockResponse } from '../core/types.js';
import { buildLabReport, clockStateAt, createLabSessionState, observeLab } from './lab-report.js';
import type { LabLimits } from './lab-types.js';
import { RecordedComparison, replayWarning } from './replay-comparison.js';
import type { Recording, ReplayRequest } from './replay-input.js';
import { ReplayLanes } from './replay-lanes.js';
import { ReplayStart, replayTimeShift } from './replay-start.js';
import type { ReplayOptions, ReplayResult, ReplayTarget } from './replay-types.js';
import { observeExchange } from './response-observer.js';

export type { ReplayClientSummary, ReplayOptions, ReplayResult, ReplayTarget } from './replay-types.js';

const encoder = new TextEncoder();

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
  const run = await ReplayRun.begin(requests, options);
  for (let index = 0; index < requests.length; index += 1) await run.replayRequest(index);
  return run.result();
}

/** The replay's virtual clock: the mock reads it; it follows the recorded times and never goes back. */
class ReplayClock implements Clock {
  constructor(private ms: number) {}

  readonly now = (): number => this.ms;

  /** Moves to `ms` when it is later (a recording out of order by a few ms is sorted already). */
  advanceTo(ms: number): void {
    if (ms > this.ms) this.ms = ms;
  }
}

/** What a replay starts with: its clock, the fresh mock, the keys and starting state it gets. */
interface ReplaySetup {
  clock: ReplayClock;
  target: ReplayTarget;
  starting: ReplayStart;
  /** See `ReplayResult.timeShiftMs`. */
  timeShiftMs: number;
  recording: Pick<Recording, 'format' | 'start'>;
}

/** One replay under way: the mock, its clock, and what is tallied from the answers. */
class ReplayRun {
  private readonly lab = createLabSessionState({ maxClients: Number.POSITIVE_INFINITY });
  private readonly lanes = new ReplayLanes();
  private readonly comparison: RecordedComparison;
  private readonly anonymousLimits: LabLimits;
  private readonly handle: ReplayTarget['handle'];

  /** Creates the mock at the recording's first time, registers its keys and applies a starting state that comes first. */
  static async begin(requests: readonly ReplayRequest[], options: ReplayOptions): Promise<ReplayRun> {
    const timeShiftMs = replayTimeShift(requests[0]!.atMs);
    const recording = options.recording ?? { format: 'export' as const, start: null };
    // The state is applied as recorded: never to a recording moved in time (its windows would not be where it says).
    const start = timeShiftMs === 0 ? recording.start : null;
    // A state that holds before the first request is applied at its own time.
    const firstAtMs = requests[0]!.atMs + timeShiftMs;
    const clock = new ReplayClock(
      start !== null && start.atMs !== null && start.atMs < firstAtMs ? start.atMs : firstAtMs,
    );
    const target = await options.createApp(clock);
    const starting = new ReplayStart(target, start, requests);
    await starting.registerKeys();
    if (starting.index === 0) await starting.apply();
    return new ReplayRun(requests, options, { clock, target, starting, timeShiftMs, recording });
  }

  private constructor(
    private readonly requests: readonly ReplayRequest[],
    private readonly options: ReplayOptions,
    private readonly setup: ReplaySetup,
  ) {
    this.handle = setup.target.handle.bind(setup.target);
    this.anonymousLimits = options.anonymousLimits ?? { perMinute: 60, perDay: 1_000 };
    this.comparison = new RecordedComparison({
      startIndex: setup.starting.index,
      start: setup.starting.start,
      format: setup.recording.format,
      movedInTime: setup.timeShiftMs !== 0 && setup.recording.start !== null,
      replannedClients: options.replannedClients,
    });
  }

  /** Sends request number `index` at its recorded time (the starting state first when it goes before it), and tallies the answer. */
  async replayRequest(index: number): Promise<void> {
    const { clock, starting } = this.setup;
    const request = this.requests[index]!;
    if (index === starting.index && index > 0) {
      clock.advanceTo(starting.start!.atMs!);
      await starting.apply();
    }
    clock.advanceTo(request.atMs + this.setup.timeShiftMs);
    this.comparison.noteRecorded(request);
    const mockRequest: MockRequest = {
      method: request.method,
      url: request.url,
      headers: request.headers,
      body: request.body === null ? null : encoder.encode(request.body),
      clientAddress: request.clientAddress,
    };
    const answer = this.handle(mockRequest);
    const response = isPromise(answer) ? await answer : answer;
    this.observe(request, mockRequest, response);
    this.comparison.compare(request, index, response.status, clock.now());
  }

  /** What the lab and the lanes make of one answer. */
  private observe(request: ReplayRequest, mockRequest: MockRequest, response: MockResponse): void {
    const operation = this.options.operationOf?.(request.method, request.url) ?? null;
    // A key the mock refused (unknown, or a status before auth) is still shown as the recorded client.
    const limits = request.limits ?? this.anonymousLimits;
    const previousAtMs = this.lanes.previousAtMs(request.client);
    const observation = observeExchange(mockRequest, response, {
      atMs: this.setup.clock.now(),
      client: request.client,
      kind: request.kind,
      plan: request.plan,
      limits,
      operation,
      seenBefore: previousAtMs !== undefined,
      ...(previousAtMs !== undefined ? { previousAtMs } : {}),
    });
    observeLab(this.lab, observation, operation ?? undefined);
    this.lanes.record(request, observation, limits);
  }

  result(): ReplayResult {
    const { clock, starting, timeShiftMs, recording } = this.setup;
    const requests = this.requests;
    const fromMs = requests[0]!.atMs + timeShiftMs;
    const toMs = clock.now();
    const report = buildLabReport(this.lab, {
      session: this.options.session ?? 'replay',
      clock: clockStateAt(toMs),
      banPolicy: this.options.banPolicy,
    });
    const start = starting.start;
    return {
      requests: requests.length,
      fromMs,
      toMs,
      timeShiftMs,
      byStatus: this.lanes.byStatus(),
      clients: this.lanes.clients(),
      recorded: this.comparison.recorded(),
      warning: replayWarning({
        recording,
        start,
        firstRecorded: this.comparison.firstRecorded,
        requests: requests.length,
        timeShiftMs,
      }),
      startingState: start === null ? null : { applied: starting.index !== -1, beforeIndex: starting.index },
      report,
      timeline: {
        from: fromMs,
        to: Math.max(toMs, fromMs + 1000),
        ...(this.options.title !== undefined ? { title: this.options.title } : {}),
        clients: this.lanes.timelineClients(starting.spentBefore(requests, fromMs)),
      },
    };
  }
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

import { maskQueryCredentials } from '../../spec/credential-masking.js';
import { maxExportBodyBytes, type RecordedStart, type Recording, type ReplayRequest } from './replay-input.js';
import type { ReplayResult } from './replay-types.js';

const maxDifferencesShown = 20;

/** What a replay knows of its recording when it puts a difference down to a likely cause. */
export interface DifferenceContext {
  /** Before which request the starting state was applied (-1: never). */
  startIndex: number;
  start: RecordedStart | null;
  format: Recording['format'];
  /** Recorded before 1970 with a starting state: moved in time, the state not applied. */
  movedInTime: boolean;
  /** Clients whose plan the replay was told to change (`--key`). */
  replannedClients: ReadonlySet<string> | undefined;
}

/**
 * How the replayed statuses compare with the recorded ones: how many were compared and the same,
 * every difference counted by its likely cause, the first ones shown, and each client's first
 * recorded status (a 429 there says the recording starts mid-window).
 */
export class RecordedComparison {
  private compared = 0;
  private same = 0;
  private readonly differences: ReplayResult['recorded']['differences'] = [];
  private readonly causes: Record<string, number> = {};
  /** Each client's first recorded status. */
  readonly firstRecorded = new Map<string, number>();

  constructor(private readonly context: DifferenceContext) {}

  /** Notes the recorded status of a request about to be replayed. */
  noteRecorded(request: ReplayRequest): void {
    if (!this.firstRecorded.has(request.client) && request.recordedStatus !== null)
      this.firstRecorded.set(request.client, request.recordedStatus);
  }

  /** Compares the replayed status of request number `index`, answered at `atMs`, with the recorded one. */
  compare(request: ReplayRequest, index: number, replayed: number, atMs: number): void {
    if (request.recordedStatus === null) return;
    this.compared += 1;
    if (request.recordedStatus === replayed) {
      this.same += 1;
      return;
    }
    const cause = differenceCause(request, replayed, index, this.context);
    this.causes[cause] = (this.causes[cause] ?? 0) + 1;
    if (this.differences.length < maxDifferencesShown)
      this.differences.push({
        index,
        atMs,
        method: request.method,
        // A recording's keys stay in the replayed requests, never in the report.
        url: maskQueryCredentials(request.url).slice(0, 200),
        recorded: request.recordedStatus,
        replayed,
        cause,
      });
  }

  recorded(): ReplayResult['recorded'] {
    return { compared: this.compared, same: this.same, differences: this.differences, causes: this.causes };
  }
}

/** The likely cause of a status the replay answered differently from the recording. */
function differenceCause(request: ReplayRequest, replayed: number, index: number, context: DifferenceContext): string {
  if (context.replannedClients?.has(request.client) ?? false) return 'plan changed with --key';
  if (context.movedInTime) return 'recorded before 1970: starting state not applied';
  if (request.body !== null && request.body.length >= maxExportBodyBytes) return 'request body cut in the export';
  if (context.start === null) {
    if (request.recordedStatus === 429 && replayed !== 429)
      return 'recording starts mid-window: budget spent or ban set before the first recorded request';
    return context.format === 'har' ? 'no starting state in a HAR' : 'no starting state in an older export';
  }
  if (index < context.startIndex) return 'before the starting state: a scenario applied mid-recording';
  if (context.start.omittedClients > 0 && request.kind === 'key')
    return 'a client left out of the starting state (its key was unknown at export)';
  if (context.start.dropped !== null) return 'log truncated: a dropped request changed what the state does not hold';
  return 'the mock answers differently from the recording (another config or version?)';
}

/** The default `requestLogSize`: an older export of exactly this many requests may be a truncated log. */
const defaultLogSize = 500;

/** What the replay's one warning line is made from. */
export interface ReplayWarningContext {
  recording: Pick<Recording, 'format' | 'start'>;
  /** The starting state the replay applies (null: none, or the recording was moved in time). */
  start: RecordedStart | null;
  firstRecorded: ReadonlyMap<string, number>;
  requests: number;
  timeShiftMs: number;
}

/** The one line the summary warns with, or null (see `ReplayResult.warning`). */
export function replayWarning(context: ReplayWarningContext): string | null {
  const { recording, start } = context;
  if (recording.start !== null && context.timeShiftMs !== 0)
    return 'Recorded before 1970: the starting state is not applied (its windows would not fall as recorded); every client starts fresh';
  if (start !== null) {
    if (start.dropped === null) return null;
    return `The log was truncated: ${count(start.dropped.count)} earlier requests (${iso(start.dropped.fromMs)} to ${iso(start.dropped.toMs)}) were not recorded; replayed from the state the mock kept after them (logSize ${count(start.logSize)})`;
  }
  const midWindow = [...context.firstRecorded.values()].filter((status) => status === 429).length;
  const what =
    recording.format === 'har'
      ? 'A HAR has no starting state'
      : 'This export has no starting state (made by an older mock)';
  const parts = [`${what}: budgets spent and bans set before its first request are unknown, every client starts fresh`];
  if (midWindow > 0)
    parts.push(
      `the recording starts mid-window (${count(midWindow)} client${midWindow === 1 ? ' was' : 's were'} refused at their first recorded request)`,
    );
  if (recording.format === 'export' && context.requests === defaultLogSize)
    parts.push(`it holds exactly ${defaultLogSize} requests, the default log size: earlier ones may have been dropped`);
  return parts.join('; ');
}

function count(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

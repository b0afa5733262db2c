import type { Clock, MockRequest, MockResponse } from '../core/types.js';
import type { LabBanPolicy, LabLimits, LabReport, TimelineInput } from './lab-types.js';
import type { RecordedStart, Recording } from './replay-input.js';

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
  /** The operation a request target (path and query: a key's `?query` is a condition) lands on (for coverage), or null; the mock's router. */
  operationOf?(method: string, target: string): { operationId: string; pathTemplate: string; method: string } | null;
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

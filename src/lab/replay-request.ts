import { maskSecret } from '../../spec/credential-masking.js';
import type { FaultKind } from '../core/config/fault-config.js';
import type { Scenario } from '../core/config/scenario-file.js';
import type { LabLimits } from './lab-types.js';

// What both readers of a recording (the export's lines, a HAR) make: the requests to replay, and
// what they share (the refusal, the --key mapping, how a key is shown).

/** One request to replay. */
export interface ReplayRequest {
  /** Recorded time, ms since the epoch: the replay's virtual clock. */
  atMs: number;
  method: string;
  /** Path and query. */
  url: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string | null;
  /** How the client is shown in the summary and the report. */
  client: string;
  kind: 'key' | 'anonymous';
  /** The client's plan and limits (keys only): the replay registers the key with them first. */
  plan: string;
  limits: LabLimits | null;
  /** The bearer token the replay sends (a real key from a HAR, the pseudonym from an export), when any. */
  key: string | null;
  /** The address the anonymous budget is counted against. */
  clientAddress: string;
  /** The status the recording says was served, when it says. */
  recordedStatus: number | null;
  /** The fault the recording says the request met (an export's `fault`), asked for again with `Prefer`. */
  fault?: FaultKind;
}

/** What a recording says of the state before its first request: the export's state line, read. */
export interface RecordedStart {
  atMs: number | null;
  logSize: number;
  dropped: { count: number; fromMs: number; toMs: number } | null;
  omittedClients: number;
  scenario: Scenario;
}

/** A recording, read: its requests, its format, and the state it starts from when it says. */
export interface Recording {
  format: 'export' | 'har';
  requests: ReplayRequest[];
  /** Null for a HAR and for an export made before the state line existed. */
  start: RecordedStart | null;
}

export interface ReplayInputOptions {
  /** The plans known to the mock (config plans merged over the interface's). */
  plans: Record<string, LabLimits>;
  /** `--key KEY=plan`: a real key (HAR) or a pseudonym (export) to its plan or `perMinute/perDay` limits. */
  keyPlans?: ReadonlyMap<string, string>;
  /** `--default-plan PLAN`: the plan of every HAR key not mapped with --key and not a demo key. */
  defaultPlan?: string;
  /** Demo keys the mock accepts, by key: their plan. */
  demoKeys?: Readonly<Record<string, string>>;
}

export class ReplayInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReplayInputError';
  }
}

/** The refusal of a recording: one line, `Failed to read the recording: ...`. */
export function recordingRefused(problem: string): ReplayInputError {
  return new ReplayInputError(`Failed to read the recording: ${problem}`);
}

/**
 * Parses a `--key` value, `KEY=plan` or `KEY=perMinute/perDay`. Throws one line when malformed.
 *
 * @example parseKeyMapping('demo-free=pro') // ['demo-free', 'pro']
 */
export function parseKeyMapping(text: string): [string, string] {
  const equals = text.lastIndexOf('=');
  if (equals <= 0 || equals === text.length - 1)
    throw new ReplayInputError(
      `Invalid --key ${JSON.stringify(text.slice(0, 60))}: expected KEY=plan or KEY=perMinute/perDay`,
    );
  return [text.slice(0, equals), text.slice(equals + 1)];
}

/** A plan name or `perMinute/perDay`, to its plan and limits; `where` names the option in the refusal. */
export function limitsOfPlan(
  plan: string,
  plans: Record<string, LabLimits>,
  where: string,
): { plan: string; limits: LabLimits } {
  const custom = /^(\d{1,12})\/(\d{1,12})$/.exec(plan);
  if (custom) {
    const perMinute = Number(custom[1]);
    const perDay = Number(custom[2]);
    if (perMinute < 1 || perDay < 1) throw new ReplayInputError(`${where}: limits must be positive, got ${plan}`);
    return { plan: 'custom', limits: { perMinute, perDay } };
  }
  if (!Object.hasOwn(plans, plan))
    throw new ReplayInputError(
      `${where}: unknown plan ${JSON.stringify(plan.slice(0, 40))} (known: ${Object.keys(plans).join(', ')}, or perMinute/perDay)`,
    );
  return { plan, limits: { ...plans[plan]! } };
}

/** Demo keys in full (they are public), every other key masked like the mock's log. */
export function displayKey(key: string, demoKeys: Readonly<Record<string, string>>): string {
  return Object.hasOwn(demoKeys, key) ? key : maskSecret(key);
}

import type { PlainRequest, PlainResponse } from '../reference/reference-petstore.js';
import { createReferenceHandler, referenceKeyPlans, referenceKeys } from '../reference/reference-server.js';
import { createVirtualClock } from '../reference/virtual-clock.js';
import type { BugServer } from './bug-server.js';

/**
 * A witness: a few requests on which the bug server answers differently from the reference, proving that the
 * bug's line is live (a bug server that behaves like the reference would measure nothing). Run in-process on
 * the handler both servers share, on a virtual clock.
 */
export interface WitnessStep {
  /** Default GET. */
  method?: string;
  /** Path and query. Default `/v1/categories`. */
  target?: string;
  /** Who sends it: a reference key, nobody, or an Authorization header as written. Default the main key. */
  as?: 'main' | 'limited' | 'anonymous' | { authorization: string };
  headers?: Record<string, string>;
  /** A JSON body (sent with Content-Type: application/json unless `headers` says otherwise). */
  json?: unknown;
  /** A body sent as written (with Content-Type: application/json unless `headers` says otherwise). */
  text?: string;
  /** Sent this many times in a row. Default 1. */
  times?: number;
  /** Sent this many times at once (each answer computed while the others are in flight). Default 1. */
  parallel?: number;
  /** Milliseconds the clock moves before the step. */
  afterMs?: number;
}

/** A POST /v1/categories step. */
export function post(json: unknown, step: WitnessStep = {}): WitnessStep {
  return { method: 'POST', json, ...step };
}

/** The same step `count` minutes in a row, the clock moving a minute before each but the first. */
export function everyMinute(count: number, step: WitnessStep): WitnessStep[] {
  return Array.from({ length: count }, (_, index) => ({ ...step, afterMs: index === 0 ? 0 : 60_000 }));
}

/** When the witnesses start: the default reference run's start (reference-runs.ts). */
const startsAt = Date.parse('2026-03-02T10:00:20.000Z');

function requestOf(step: WitnessStep): PlainRequest {
  const as = step.as ?? 'main';
  const authorization =
    as === 'anonymous' ? undefined : typeof as === 'object' ? as.authorization : `Bearer ${referenceKeys[as]}`;
  const text = step.text ?? (step.json === undefined ? undefined : JSON.stringify(step.json));
  const headers: Record<string, string | undefined> = { authorization };
  if (text !== undefined) headers['content-type'] = 'application/json';
  return {
    method: step.method ?? 'GET',
    target: step.target ?? '/v1/categories',
    headers: { ...headers, ...step.headers },
    body: new TextEncoder().encode(text ?? ''),
    client: '127.0.0.1',
  };
}

/** The answer as a client reads it off the wire: names in lower case, the Content-Length node would add, no Date. */
function wireView(response: PlainResponse): string {
  const headers = Object.fromEntries(
    Object.entries(response.headers)
      .map(([name, value]) => [name.toLowerCase(), value] as const)
      .filter(([name]) => name !== 'date'),
  );
  headers['content-length'] ??= String(Buffer.byteLength(response.body));
  const sorted = Object.keys(headers)
    .sort()
    .map((name) => `${name}: ${headers[name]}`);
  return `${response.status}\n${sorted.join('\n')}\n\n${response.body}`;
}

/** The answers to a witness's steps, one wire view each. */
export async function replayWitness(bug: BugServer | undefined, steps: readonly WitnessStep[]): Promise<string[]> {
  const clock = createVirtualClock({ startMs: startsAt });
  const hooks = bug?.hooks({ clock, keys: referenceKeyPlans });
  const handle = createReferenceHandler({ clock, hooks });
  const answers: string[] = [];
  for (const step of steps) {
    clock.advance(step.afterMs ?? 0);
    for (let round = 0; round < (step.times ?? 1); round += 1) {
      const request = requestOf(step);
      const batch = await Promise.all(Array.from({ length: step.parallel ?? 1 }, () => handle(request)));
      answers.push(...batch.map(wireView));
    }
  }
  return answers;
}

/** The first answer where the bug server differs from the reference, or undefined when it never does. */
export async function firstDifference(bug: BugServer): Promise<{ reference: string; bug: string } | undefined> {
  const [reference, buggy] = await Promise.all([
    replayWitness(undefined, bug.witness),
    replayWitness(bug, bug.witness),
  ]);
  const index = reference.findIndex((answer, position) => answer !== buggy[position]);
  return index === -1 ? undefined : { reference: reference[index]!, bug: buggy[index]! };
}

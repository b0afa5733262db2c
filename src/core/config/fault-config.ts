import type * as z from 'zod';
import { onFirstUse } from '../../../spec/zod-module.js';

/**
 * The fault model (decision 042): a latency and faults of the kinds networks and servers show, set
 * in the config (`faults:`), a scenario (`faults:`), the controls (`POST /__mock/faults`) and `Prefer`.
 * The core decides what happens to a request (pipeline/fault-plan.ts); each transport carries it out.
 */
export const faultKinds = ['reset', 'close', 'timeout', 'slow-body', 'status', 'malformed', 'empty'] as const;
export type FaultKind = (typeof faultKinds)[number];

/** The longest latency, and the longest hold of a `timeout`: a mock never holds a connection for ever. */
export const maxLatencyMs = 120_000;
const maxTimeoutMs = 600_000;

/** What a fault without its own settings does: WireMock's dribble is chunks over a duration too. */
export const faultDefaults = Object.freeze({
  timeoutMs: 30_000,
  slowBody: Object.freeze({ chunks: 10, durationMs: 2_000 }),
});

/** The `flaky-network` preset's settings (scenario-file.ts): a frontend's bad day. */
export const flakyNetworkFaults: FaultSettings = {
  latency: { minMs: 50, maxMs: 300 },
  timeoutMs: 10_000,
  // Each rule draws on what the rules before it left: 5 % of all requests, then 5/95, 3/90 and 2/87.
  rules: [
    { fault: 'reset', rate: 0.05 },
    { fault: 'status', rate: 0.0527 },
    { fault: 'slow-body', rate: 0.0334 },
    { fault: 'timeout', rate: 0.023 },
  ],
};

/** A latency, decoded: every answer waits a whole number of ms drawn evenly from [minMs, maxMs]. */
export interface LatencyRange {
  minMs: number;
  maxMs: number;
}

const latencyPattern = /^\s*(\d+(?:\.\d+)?)\s*(?:-\s*(\d+(?:\.\d+)?)\s*)?(ms|s)?\s*$/i;

/**
 * Reads a latency as the config, a scenario and `--latency` write it: `200`, `200ms`, `1.5s`, or a
 * range `50-300ms` (the unit, ms by default, applies to both ends). Throws one line when it cannot.
 *
 * @example parseLatency('50-300ms') // { minMs: 50, maxMs: 300 }
 */
export function parseLatency(text: string): LatencyRange {
  const match = latencyPattern.exec(text);
  if (match === null)
    throw new Error(`latency "${text.slice(0, 40)}" is not a duration: write 200, 200ms, 1.5s or a range 50-300ms`);
  const scale = match[3]?.toLowerCase() === 's' ? 1000 : 1;
  const minMs = Math.round(Number(match[1]) * scale);
  const maxMs = match[2] === undefined ? minMs : Math.round(Number(match[2]) * scale);
  if (maxMs < minMs) throw new Error(`latency "${text.slice(0, 40)}": the range's first end is above its second`);
  if (maxMs > maxLatencyMs) throw new Error(`latency "${text.slice(0, 40)}": at most ${maxLatencyMs} ms`);
  return { minMs, maxMs };
}

/**
 * The settings in one line, for the start banner.
 *
 * @example describeFaults({ latency: { minMs: 50, maxMs: 300 }, rules: [{ fault: 'reset', rate: 0.05 }] }) // 'latency 50-300 ms; reset 5 % of requests'
 */
export function describeFaults(settings: FaultSettings): string {
  const latency = settings.latency;
  const parts =
    latency === undefined
      ? []
      : [`latency ${latency.minMs === latency.maxMs ? latency.minMs : `${latency.minMs}-${latency.maxMs}`} ms`];
  for (const rule of settings.rules ?? []) {
    const what = rule.fault ?? 'latency';
    const where = [...(rule.operations ?? []), ...(rule.keys === undefined ? [] : [`${rule.keys.length} key(s)`])];
    parts.push(
      `${what} ${Math.round(rule.rate * 1000) / 10} % of ${where.length === 0 ? 'requests' : where.join(', ')}`,
    );
  }
  return parts.length === 0 ? 'none set' : parts.join('; ');
}

/** The fault settings' schemas, made with zod when settings are first read. */
const faultSchemas = onFirstUse((zod) => {
  const latency = zod
    .union(
      [
        zod.int().min(0).max(maxLatencyMs),
        zod.string().max(60),
        zod.strictObject({ minMs: zod.int().min(0).max(maxLatencyMs), maxMs: zod.int().min(0).max(maxLatencyMs) }),
      ],
      { error: 'must be a duration in ms (200), a text (200ms, 1.5s) or a range (50-300ms)' },
    )
    .transform((value, context): LatencyRange => {
      if (typeof value === 'number') return { minMs: value, maxMs: value };
      if (typeof value === 'object') {
        if (value.maxMs < value.minMs) context.addIssue({ code: 'custom', message: 'maxMs is below minMs' });
        return value;
      }
      try {
        return parseLatency(value);
      } catch (error) {
        context.addIssue({ code: 'custom', message: (error as Error).message });
        return { minMs: 0, maxMs: 0 };
      }
    });
  const rule = zod
    .strictObject({
      /** The fault this rule injects; absent: only its latency. */
      fault: zod.enum(faultKinds, { error: `must be a fault kind: ${faultKinds.join(', ')}` }).optional(),
      /** The share of matching requests it applies to (0 to 1), drawn from the session's seed. */
      rate: zod.number().min(0).max(1).default(1),
      /** The operations (operationId) it applies to; absent: all. */
      operations: zod.array(zod.string().min(1).max(200)).min(1).max(1_000).optional(),
      /** The keys (as clients send them) it applies to; absent: every client, with a key or not. */
      keys: zod.array(zod.string().min(1).max(512)).min(1).max(1_000).optional(),
      /** A latency of its own, instead of the settings' one. */
      latency: latency.optional(),
      /** For `fault: status`: the status answered (a 5xx or 429); absent: one the operation declares. */
      status: zod
        .int()
        .refine((status) => status === 429 || (status >= 500 && status <= 599), 'must be a 5xx status or 429')
        .optional(),
    })
    .refine((entry) => entry.fault !== undefined || entry.latency !== undefined, {
      message: 'give a fault, a latency, or both',
    });
  const settings = zod.strictObject({
    /** Every answer's latency, unless a rule gives its own. */
    latency: latency.optional(),
    /** How long a `timeout` holds the request before the connection is closed unanswered. */
    timeoutMs: zod.int().min(1).max(maxTimeoutMs).optional(),
    /** How `slow-body` drips the body: in `chunks` pieces, spread over `durationMs`. */
    slowBody: zod
      .strictObject({
        chunks: zod.int().min(2).max(1_000).default(faultDefaults.slowBody.chunks),
        durationMs: zod.int().min(1).max(maxLatencyMs).default(faultDefaults.slowBody.durationMs),
      })
      .optional(),
    /** Tried in order for each request: the first that matches and is drawn applies. */
    rules: zod.array(rule).max(1_000).optional(),
  });
  return { settings };
});

/** The `faults` field of the config and of a scenario, and the body of `POST /__mock/faults`. */
export const faultSettingsSchema = (): ReturnType<typeof faultSchemas>['settings'] => faultSchemas().settings;
export type FaultSettings = z.output<ReturnType<typeof faultSettingsSchema>>;
export type FaultSettingsInput = z.input<ReturnType<typeof faultSettingsSchema>>;
export type FaultRule = NonNullable<FaultSettings['rules']>[number];

import type * as z from 'zod';
import { onFirstUse } from '../../spec/zod-module.js';
import { faultKinds } from '../core/config/fault-config.js';
import { describeScenarioIssues, scenarioSchema } from '../core/config/scenario-file.js';

// The export (`GET /__mock/requests?format=jsonl`), written once: the writers (the controls, the proxy)
// are typed by these schemas and do not run them (an export of 100,000 lines pays nothing for zod);
// the replay parses every line with them; `schemas/` holds their JSON Schema for other readers
// (export-line-schema.test.ts keeps it equal: `npx vitest run <it> --update` rewrites it). A change to a line's meaning is a new `v`.

/** The version every line carries as `v`; a reader refuses any other. */
export const exportVersion = 1;

/** Recorded times the replay takes: the years 0001 to 9999 of ISO 8601 (before 1970 they are replayed moved, see replay.ts). */
// (Date.UTC maps the years 0 to 99 to 1900 to 1999: the bounds are parsed instead.)
const earliestTimeMs = Date.parse('0001-01-01T00:00:00.000Z');
const latestTimeMs = Date.parse('9999-12-31T23:59:59.999Z');

export function isReplayableTime(text: string): boolean {
  const ms = Date.parse(text);
  return ms >= earliestTimeMs && ms <= latestTimeMs;
}

/** The longest url a line holds (node:http's head is 16 KiB). */
const maxUrlLength = 8192;

/** What each field of a request line must be: the refusal's words (`line 3: url: expected a path starting with /`). */
const requestLineExpects = {
  '(line)': 'a JSON object (one request per line)',
  v: `version ${exportVersion}`,
  time: 'an ISO date-time in the years 0001 to 9999',
  method: 'an HTTP method in capitals',
  url: `a path starting with /, at most ${maxUrlLength} characters`,
  client: 'a pseudonym (client-<12 hex> or anonymous-<12 hex>)',
  kind: '"key" or "anonymous"',
  auth: '"key", "invalid" or "none"',
  plan: 'a plan name',
  limits: '{ perMinute, perDay } positive integers',
  status: 'an HTTP status',
  code: 'a string or null',
  operationId: 'a string or null',
  prefer: 'a string or null',
  contentType: 'a string or null',
  body: 'a string or null',
  fault: `one of ${faultKinds.join(', ')}`,
  delayMs: 'a whole number of ms',
} as const;

/** The same for the state line (the export's first line). */
const stateLineExpects = {
  '(line)': 'a JSON object',
  v: `version ${exportVersion}`,
  type: '"state"',
  time: 'an ISO date-time in the years 0001 to 9999, or null',
  logSize: 'a positive integer',
  dropped: '{ count, from, to } or null',
  omittedClients: 'a whole number',
  scenario: 'a scenario',
} as const;

/**
 * One line of the export per request (version 1). No key: a key client is `client-` and the first 12 hex
 * digits of the SHA-256 of the key, an anonymous one `anonymous-` and those of its address, so the same
 * client has the same pseudonym in every export. Fields a later version-1 writer adds are ignored.
 *
 * @example
 * {"v":1,"time":"2026-01-01T00:00:00.000Z","method":"GET","url":"/v1/categories","client":"client-5e3f0c2a9b1d",
 *  "kind":"key","auth":"key","plan":"free","limits":{"perMinute":60,"perDay":1000},"status":200,"code":null,
 *  "operationId":"listCategories","prefer":null,"contentType":null,"body":null}
 */
export const exportLineSchema = onFirstUse((z) => {
  const time = z.string().refine(isReplayableTime);
  const textOrNull = () => z.string().nullable().default(null);
  return z
    .object({
      v: z.literal(exportVersion),
      time,
      method: z.string().regex(/^[A-Z]{1,20}$/),
      // A pattern, not startsWith: zod emits that as a format no validator knows (ajv's strict mode refuses it).
      url: z.string().regex(/^\//).max(maxUrlLength),
      client: z.string().regex(/^(client|anonymous)-[0-9a-f]{12}$/),
      kind: z.enum(['key', 'anonymous']),
      /** `key`: a valid key; `invalid`: a bearer token the mock did not know (counted as anonymous); `none`. */
      auth: z.enum(['key', 'invalid', 'none']),
      plan: z.string().max(64),
      limits: z.object({ perMinute: z.int().positive(), perDay: z.int().positive() }),
      status: z.int().min(100).max(599),
      code: textOrNull(),
      operationId: textOrNull(),
      prefer: textOrNull(),
      contentType: textOrNull(),
      /** The request body as text (at most `maxExportBodyBytes` characters, longer ones are cut), or null. */
      body: textOrNull(),
      /** The fault the request met (decision 042); absent when none. The replay asks for it again with `Prefer`. */
      fault: z.enum(faultKinds).optional(),
      /** The latency its answer waited, in ms; absent when none. */
      delayMs: z.int().min(0).optional(),
    })
    .refine((line) => (line.auth === 'key') === (line.kind === 'key'), {
      path: ['auth'],
      message: '"key" exactly when kind is "key"',
      params: { acrossFields: true },
    });
});

/**
 * The export's first line: the state the log starts from (docs/decisions/026-faithful-export.md), as a
 * scenario whose clients are named by their pseudonyms, so that the replay applies it before the
 * first request.
 *
 * @example
 * {"v":1,"type":"state","time":"2026-01-01T00:00:00.000Z","logSize":500,"dropped":{"count":100,"from":"…","to":"…"},
 *  "omittedClients":0,"scenario":{"keys":[{"key":"client-5e3f0c2a9b1d","plan":"free","limits":{…},"windows":{…}}]}}
 */
export const stateLineSchema = onFirstUse((z) => {
  const time = z.string().refine(isReplayableTime);
  return z.object({
    v: z.literal(exportVersion),
    type: z.literal('state'),
    /** When the state holds (virtual time); null: since the session was created, before its first request. */
    time: time.nullable(),
    /** The log's size (`requestLogSize`) when exported. */
    logSize: z.int().positive(),
    /** API requests the log dropped before its first line (folded into this state), oldest and newest. */
    dropped: z.object({ count: z.int().positive(), from: time, to: time }).nullable(),
    /** Clients with spent budget whose key the mock no longer knew (not in the scenario). */
    omittedClients: z.int().min(0).default(0),
    scenario: scenarioSchema(),
  });
});

/** One request line, as written and as read (absent texts read as null). */
export type ExportLine = z.output<ReturnType<typeof exportLineSchema>>;
/** The state line, as written and as read. */
export type StateLine = z.output<ReturnType<typeof stateLineSchema>>;

/** A line, parsed by its schema; or the one line that says which field is wrong and what it must be. */
export type LineReading<T> = { line: T } | { problem: string };

export function readExportLine(value: unknown): LineReading<ExportLine> {
  const result = exportLineSchema().safeParse(value);
  if (result.success) return { line: result.data };
  return { problem: describeFirstIssue(result.error.issues, requestLineExpects) };
}

export function readStateLine(value: unknown): LineReading<StateLine> {
  const result = stateLineSchema().safeParse(value);
  if (result.success) return { line: result.data };
  const issues = result.error.issues;
  const first = issues[0]!;
  if (first.path[0] !== 'scenario') return { problem: describeFirstIssue(issues, stateLineExpects) };
  // The scenario's own words, as a scenario file is refused, its paths inside the scenario.
  const inside = issues.filter((issue) => issue.path[0] === 'scenario').map((i) => ({ ...i, path: i.path.slice(1) }));
  return { problem: `scenario: expected a scenario (${describeScenarioIssues(inside)})` };
}

/** `field: expected WHAT` for the first problem: the field's own words, or a rule across fields' message. */
function describeFirstIssue(issues: readonly z.core.$ZodIssue[], expects: Record<string, string>): string {
  const first = issues[0]!;
  const field = first.path.length === 0 ? '(line)' : String(first.path[0]);
  const acrossFields = first.code === 'custom' && first.params?.acrossFields === true;
  const expected = acrossFields ? first.message : (expects[field] ?? first.message);
  return `${field}: expected ${expected}`;
}

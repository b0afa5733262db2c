import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { maskSecret } from '../../spec/credential-masking.js';
import { keyDigestHex } from '../../spec/interface/key-id.js';
import { type FaultKind, faultKinds, maxLatencyMs } from '../core/config/fault-config.js';
import { type Scenario, validateScenario } from '../core/config/scenario-file.js';
import { maxExportBodyBytes } from '../core/state/request-log.js';
import type { LabLimits } from './lab-types.js';

// The bound the request log keeps a body to, for the export.
export { maxExportBodyBytes };

/**
 * What `petstore-mock replay FILE` reads: HAR 1.2 (a browser's or a proxy's recording, real keys) or
 * the mock's own request log exported as JSON lines (`GET /__mock/requests?format=jsonl`, keys
 * replaced by pseudonyms), turned into one time-ordered list of requests to replay.
 *
 * Browser-safe: takes text, not files (the Node-only reader is replay-file.ts).
 */

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

/**
 * One line of `GET /__mock/requests?format=jsonl` (version 1). No key: a key client is `client-` and
 * the first 12 hex digits of the SHA-256 of the key, an anonymous one `anonymous-` and those of its
 * address, so the same client has the same pseudonym in every export.
 *
 * @example
 * {"v":1,"time":"2026-01-01T00:00:00.000Z","method":"GET","url":"/v1/categories","client":"client-5e3f0c2a9b1d",
 *  "kind":"key","auth":"key","plan":"free","limits":{"perMinute":60,"perDay":1000},"status":200,"code":null,
 *  "operationId":"listCategories","prefer":null,"contentType":null,"body":null}
 */
export interface ExportLine {
  v: 1;
  time: string;
  method: string;
  url: string;
  client: string;
  kind: 'key' | 'anonymous';
  /** `key`: a valid key; `invalid`: a bearer token the mock did not know (counted as anonymous); `none`. */
  auth: 'key' | 'invalid' | 'none';
  plan: string;
  limits: LabLimits;
  status: number;
  code: string | null;
  operationId: string | null;
  prefer: string | null;
  contentType: string | null;
  /** The request body as text (at most `maxExportBodyBytes` characters, longer ones are cut), or null. */
  body: string | null;
  /** The fault the request met (decision 042); absent when none. The replay asks for it again with `Prefer`. */
  fault?: FaultKind;
  /** The latency its answer waited, in ms; absent when none. */
  delayMs?: number;
}

/**
 * The export's first line: the state the log starts from (docs/decisions/026-faithful-export.md), as a
 * scenario whose clients are named by their pseudonyms, so that the replay applies it before the
 * first request.
 *
 * @example
 * {"v":1,"type":"state","time":"2026-01-01T00:00:00.000Z","logSize":500,"dropped":{"count":100,"from":"…","to":"…"},
 *  "omittedClients":0,"scenario":{"keys":[{"key":"client-5e3f0c2a9b1d","plan":"free","limits":{…},"windows":{…}}]}}
 */
export interface StateLine {
  v: 1;
  type: 'state';
  /** When the state holds (virtual time); null: since the session was created, before its first request. */
  time: string | null;
  /** The log's size (`requestLogSize`) when exported. */
  logSize: number;
  /** API requests the log dropped before its first line (folded into this state), oldest and newest. */
  dropped: { count: number; from: string; to: string } | null;
  /** Clients with spent budget whose key the mock no longer knew (not in the scenario). */
  omittedClients: number;
  scenario: Scenario;
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

/** The export's state line (see `StateLine`). */
export function toStateLine(start: {
  atMs: number | null;
  logSize: number;
  dropped: { count: number; firstAtMs: number; lastAtMs: number } | null;
  omittedClients: number;
  scenario: Scenario;
}): string {
  const line: StateLine = {
    v: 1,
    type: 'state',
    time: start.atMs === null ? null : new Date(start.atMs).toISOString(),
    logSize: start.logSize,
    dropped:
      start.dropped === null
        ? null
        : {
            count: start.dropped.count,
            from: new Date(start.dropped.firstAtMs).toISOString(),
            to: new Date(start.dropped.lastAtMs).toISOString(),
          },
    omittedClients: start.omittedClients,
    scenario: start.scenario,
  };
  return JSON.stringify(line);
}

const encoder = new TextEncoder();

/** `client-` + the first 12 hex digits of SHA-256(key): stable, and says nothing of the key. */
export function keyPseudonym(key: string): string {
  return keyPseudonymFromDigest(keyDigestHex(key));
}

/** The same from a digest the core already has (`HitInput.keyDigest`, SHA-256 hex of the key). */
export function keyPseudonymFromDigest(digestHex: string): string {
  return `client-${digestHex.slice(0, 12).toLowerCase()}`;
}

export function anonymousPseudonym(address: string): string {
  return `anonymous-${bytesToHex(sha256(encoder.encode(address))).slice(0, 12)}`;
}

/**
 * One export line for a request the core served: the integration calls it for each log entry when
 * `GET /__mock/requests?format=jsonl` is asked for.
 *
 * @example toExportLine({ timeMs, method: 'GET', url: '/v1/categories', keyDigest, clientAddress: '127.0.0.1', auth: 'key', plan: 'free', limits, status: 200, code: null, operationId: 'listCategories' })
 */
export function toExportLine(entry: {
  timeMs: number;
  method: string;
  url: string;
  /** SHA-256 hex of the valid key (auth `key`). */
  keyDigest?: string | null;
  clientAddress?: string | null;
  auth: ExportLine['auth'];
  plan: string;
  limits: LabLimits;
  status: number;
  code: string | null;
  operationId: string | null;
  prefer?: string | null;
  contentType?: string | null;
  body?: string | null;
  fault?: FaultKind | undefined;
  delayMs?: number | undefined;
}): string {
  const isKey = entry.auth === 'key' && typeof entry.keyDigest === 'string';
  const line: ExportLine = {
    v: 1,
    time: new Date(entry.timeMs).toISOString(),
    method: entry.method,
    url: entry.url,
    client: isKey ? keyPseudonymFromDigest(entry.keyDigest!) : anonymousPseudonym(entry.clientAddress ?? 'local'),
    kind: isKey ? 'key' : 'anonymous',
    auth: isKey ? 'key' : entry.auth === 'invalid' ? 'invalid' : 'none',
    plan: isKey ? entry.plan : 'anonymous',
    limits: { perMinute: entry.limits.perMinute, perDay: entry.limits.perDay },
    status: entry.status,
    code: entry.code,
    operationId: entry.operationId,
    prefer: entry.prefer ?? null,
    contentType: entry.contentType ?? null,
    body: entry.body === undefined || entry.body === null ? null : entry.body.slice(0, maxExportBodyBytes),
  };
  if (entry.fault !== undefined) line.fault = entry.fault;
  if (entry.delayMs !== undefined && entry.delayMs > 0) line.delayMs = entry.delayMs;
  return JSON.stringify(line);
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

/**
 * The largest recording read, a bound per format so that each is parsed in under a second on the
 * 2-core CI machine (`npm run bench:parsing` gives the figures): 32 MiB of JSON lines (about 110,000
 * requests), 16 MiB of HAR (JSON.parse builds a dozen objects per HAR entry, and the collector's
 * work on them costs more than the reading; at 64 MiB a HAR took 2.7 s of CPU). A HAR of a browser
 * session with its response bodies can be larger: export the API's requests alone, or split it.
 */
export const maxReplayFileBytes = 32 * 1024 * 1024;
/** The largest HAR read (in characters, checked once the format is known). */
export const maxHarTextLength = 16 * 1024 * 1024;
/** A HAR nests 6 levels deep, an export line 2: anything deeper is refused before it is parsed. */
const maxJsonDepth = 64;
/** Values (objects, arrays, items) in a recording: JSON.parse makes an object of each, 20 times the bytes of `[{},{},...]`. */
const maxJsonValues = 8 * 1024 * 1024;
/** Recorded times the replay takes: the years 0001 to 9999 of ISO 8601 (before 1970 they are replayed moved, see replay.ts). */
// (Date.UTC maps the years 0 to 99 to 1900 to 1999: the bounds are parsed instead.)
const earliestTimeMs = Date.parse('0001-01-01T00:00:00.000Z');
const latestTimeMs = Date.parse('9999-12-31T23:59:59.999Z');

export class ReplayInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReplayInputError';
  }
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

function limitsOfPlan(
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

/**
 * Parses a recording, HAR 1.2 or the mock's JSON-lines export (told apart by their first line), into
 * requests ordered by time (a stable sort: equal times keep the file's order). Throws a
 * ReplayInputError naming the line or entry at the first malformed one.
 */
export function parseReplayInput(text: string, options: ReplayInputOptions): ReplayRequest[] {
  return parseRecording(text, options).requests;
}

/**
 * `parseReplayInput`, with the format and the state the recording starts from (the export's state
 * line; null for a HAR or an older export).
 */
export function parseRecording(text: string, options: ReplayInputOptions): Recording {
  const start = text.search(/\S/);
  if (start === -1) throw new ReplayInputError('Failed to read the recording: it is empty');
  // A HAR over its bound is refused on its size alone, before any pass over it.
  if (text[start] === '{' && looksLikeHar(text, start)) refuseLargeHar(text);
  const shapeProblem = jsonShapeProblem(text);
  if (shapeProblem !== undefined)
    throw new ReplayInputError(
      `Failed to read the recording: ${shapeProblem}; expected a HAR file or the JSON lines of GET /__mock/requests?format=jsonl`,
    );
  const recording = text[start] === '{' ? parseHarOrLines(text, start, options) : parseExportLines(text, options);
  const requests = recording.requests;
  // Stable: Array.prototype.sort is stable, and recordings are nearly always in order already.
  let ordered = true;
  for (let index = 1; index < requests.length; index += 1) {
    if (requests[index]!.atMs < requests[index - 1]!.atMs) {
      ordered = false;
      break;
    }
  }
  if (!ordered) requests.sort((a, b) => a.atMs - b.atMs);
  return recording;
}

/** Told apart by the first line: a whole JSON object with `log` (a HAR on one line), or not whole (a HAR over many lines), or an export line. */
function parseHarOrLines(text: string, start: number, options: ReplayInputOptions): Recording {
  const firstLineEnd = text.indexOf('\n', start);
  const firstLine = firstLineEnd === -1 ? text.slice(start) : text.slice(start, firstLineEnd);
  let first: unknown;
  try {
    first = JSON.parse(firstLine);
  } catch {
    refuseLargeHar(text);
    return { format: 'har', requests: parseHar(text, options), start: null };
  }
  if (typeof (first as { log?: unknown } | null)?.log !== 'object') return parseExportLines(text, options);
  refuseLargeHar(text);
  // A HAR on one line (what most tools write) is parsed once.
  return {
    format: 'har',
    requests: parseHar(firstLineEnd === -1 || text.slice(firstLineEnd).trim() === '' ? first : text, options),
    start: null,
  };
}

/**
 * A HAR, judged from its first line alone: one that opens with `{"log":`, or one that is not a whole
 * JSON object (a HAR over many lines). An export line is a whole object on its line.
 */
function looksLikeHar(text: string, start: number): boolean {
  const end = text.indexOf('\n', start);
  if (/^\{\s*"log"\s*:/.test(text.slice(start, start + 64))) return true;
  return end !== -1 && !text.slice(start, end).trimEnd().endsWith('}');
}

function refuseLargeHar(text: string): void {
  if (text.length <= maxHarTextLength) return;
  throw new ReplayInputError(
    `Failed to read the recording: a HAR file is read up to ${maxHarTextLength / 1024 / 1024} MiB, this one is ${(text.length / 1024 / 1024).toFixed(1)} MiB; export the API's requests alone (GET /__mock/requests?format=jsonl), or split the HAR`,
  );
}

/**
 * Why a JSON text is refused before JSON.parse builds it, or nothing: nested deeper than a recording
 * is, or more values than a recording of its size holds. One pass, strings skipped.
 */
function jsonShapeProblem(text: string): string | undefined {
  let depth = 0;
  let values = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === 0x22) {
      // Past the string: the next quote that no backslash escapes.
      for (index += 1; index < text.length && text.charCodeAt(index) !== 0x22; index += 1)
        if (text.charCodeAt(index) === 0x5c) index += 1;
    } else if (code === 0x5b || code === 0x7b) {
      values += 1;
      if (++depth > maxJsonDepth) return `nested more than ${maxJsonDepth} levels deep (at character ${index + 1})`;
    } else if (code === 0x5d || code === 0x7d) {
      if (depth > 0) depth -= 1;
    } else if (code === 0x2c && ++values > maxJsonValues) {
      return `more than ${maxJsonValues} JSON values (at character ${index + 1})`;
    }
  }
  return undefined;
}

const methodPattern = /^[A-Z]{1,20}$/;

function parseExportLines(text: string, options: ReplayInputOptions): Recording {
  const requests: ReplayRequest[] = [];
  let recordedStart: RecordedStart | null = null;
  const overrides = new Map<string, { plan: string; limits: LabLimits }>();
  for (const [key, plan] of options.keyPlans ?? [])
    overrides.set(key, limitsOfPlan(plan, options.plans, `--key ${key.slice(0, 40)}`));
  let lineNumber = 0;
  let position = 0;
  while (position < text.length) {
    let end = text.indexOf('\n', position);
    if (end === -1) end = text.length;
    lineNumber += 1;
    const line = text.slice(position, end).trim();
    position = end + 1;
    if (line === '') continue;
    const where = `line ${lineNumber}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new ReplayInputError(
        `Failed to read the recording: ${where}: not JSON (${(error as Error).message.slice(0, 100)}); expected a HAR file or the JSON lines of GET /__mock/requests?format=jsonl`,
      );
    }
    if ((value as { type?: unknown } | null)?.type === 'state') {
      if (requests.length > 0 || recordedStart !== null)
        throw new ReplayInputError(
          `Failed to read the recording: ${where}: a state line is only read as the first line of an export`,
        );
      recordedStart = checkStateLine(value as Record<string, unknown>, where);
      continue;
    }
    const entry = checkExportLine(value, where);
    const atMs = Date.parse(entry.time);
    const override = overrides.get(entry.client);
    const headers: Record<string, string> = {};
    let key: string | null = null;
    if (entry.auth === 'key') {
      key = entry.client;
      headers.authorization = `Bearer ${key}`;
    } else if (entry.auth === 'invalid') {
      headers.authorization = 'Bearer not-a-key-of-this-mock';
    }
    const prefer = replayedPrefer(entry);
    if (prefer !== null) headers.prefer = prefer;
    if (entry.contentType !== null) headers['content-type'] = entry.contentType;
    requests.push({
      atMs,
      method: entry.method,
      url: entry.url,
      headers,
      body: entry.body,
      client: entry.client,
      kind: entry.kind,
      plan: override?.plan ?? entry.plan,
      limits: entry.kind === 'key' ? (override?.limits ?? { ...entry.limits }) : null,
      key,
      clientAddress: entry.kind === 'anonymous' ? entry.client : 'replay',
      recordedStatus: entry.status,
      ...(entry.fault === undefined ? {} : { fault: entry.fault }),
    });
  }
  if (requests.length === 0) throw new ReplayInputError('Failed to read the recording: no requests in it');
  return { format: 'export', requests, start: recordedStart };
}

function checkStateLine(line: Record<string, unknown>, where: string): RecordedStart {
  const fail = (field: string, expected: string): never => {
    throw new ReplayInputError(
      `Failed to read the recording: ${where} (the starting state): ${field}: expected ${expected}`,
    );
  };
  if (line.v !== 1) fail('v', 'version 1');
  if (line.time !== null && (typeof line.time !== 'string' || !isReplayableTime(line.time)))
    fail('time', 'an ISO date-time in the years 0001 to 9999, or null');
  if (!isPositiveInteger(line.logSize)) fail('logSize', 'a positive integer');
  const dropped = line.dropped as Record<string, unknown> | null | undefined;
  if (
    dropped !== null &&
    (typeof dropped !== 'object' ||
      !isPositiveInteger(dropped.count) ||
      typeof dropped.from !== 'string' ||
      !isReplayableTime(dropped.from) ||
      typeof dropped.to !== 'string' ||
      !isReplayableTime(dropped.to))
  )
    fail('dropped', '{ count, from, to } or null');
  if (
    line.omittedClients !== undefined &&
    !(Number.isSafeInteger(line.omittedClients) && (line.omittedClients as number) >= 0)
  )
    fail('omittedClients', 'a whole number');
  let scenario: Scenario;
  try {
    scenario = validateScenario(line.scenario, 'scenario');
  } catch (error) {
    return fail('scenario', `a scenario (${(error as Error).message.replace(/^Failed to load scenario: /, '')})`);
  }
  return {
    atMs: line.time === null ? null : Date.parse(line.time as string),
    logSize: line.logSize as number,
    dropped:
      dropped === null
        ? null
        : {
            count: dropped!.count as number,
            fromMs: Date.parse(dropped!.from as string),
            toMs: Date.parse(dropped!.to as string),
          },
    omittedClients: (line.omittedClients as number | undefined) ?? 0,
    scenario,
  };
}

function checkExportLine(value: unknown, where: string): ExportLine {
  const fail = (field: string, expected: string): never => {
    throw new ReplayInputError(`Failed to read the recording: ${where}: ${field}: expected ${expected}`);
  };
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    fail('(line)', 'a JSON object (one request per line)');
  const line = value as Record<string, unknown>;
  if (line.v !== 1) fail('v', 'version 1');
  if (typeof line.time !== 'string' || !isReplayableTime(line.time))
    fail('time', 'an ISO date-time in the years 0001 to 9999');
  if (typeof line.method !== 'string' || !methodPattern.test(line.method)) fail('method', 'an HTTP method in capitals');
  if (typeof line.url !== 'string' || !line.url.startsWith('/') || line.url.length > 8192)
    fail('url', 'a path starting with /');
  if (typeof line.client !== 'string' || !/^(client|anonymous)-[0-9a-f]{12}$/.test(line.client))
    fail('client', 'a pseudonym (client-<12 hex> or anonymous-<12 hex>)');
  if (line.kind !== 'key' && line.kind !== 'anonymous') fail('kind', '"key" or "anonymous"');
  if (line.auth !== 'key' && line.auth !== 'invalid' && line.auth !== 'none')
    fail('auth', '"key", "invalid" or "none"');
  if ((line.auth === 'key') !== (line.kind === 'key')) fail('auth', `"key" exactly when kind is "key"`);
  if (typeof line.plan !== 'string' || line.plan.length > 64) fail('plan', 'a plan name');
  const limits = line.limits as Record<string, unknown> | null;
  if (
    limits === null ||
    typeof limits !== 'object' ||
    !isPositiveInteger(limits.perMinute) ||
    !isPositiveInteger(limits.perDay)
  )
    fail('limits', '{ perMinute, perDay } positive integers');
  if (!Number.isInteger(line.status) || (line.status as number) < 100 || (line.status as number) > 599)
    fail('status', 'an HTTP status');
  for (const field of ['code', 'operationId', 'prefer', 'contentType', 'body'] as const) {
    if (line[field] !== undefined && line[field] !== null && typeof line[field] !== 'string')
      fail(field, 'a string or null');
  }
  if (line.fault !== undefined && !(faultKinds as readonly unknown[]).includes(line.fault))
    fail('fault', `one of ${faultKinds.join(', ')}`);
  if (line.delayMs !== undefined && (!Number.isSafeInteger(line.delayMs) || (line.delayMs as number) < 0))
    fail('delayMs', 'a whole number of ms');
  return {
    ...(line as unknown as ExportLine),
    code: (line.code as string | undefined) ?? null,
    operationId: (line.operationId as string | undefined) ?? null,
    prefer: (line.prefer as string | undefined) ?? null,
    contentType: (line.contentType as string | undefined) ?? null,
    body: (line.body as string | undefined) ?? null,
  };
}

/**
 * The recorded Prefer, with the recorded fault and latency asked for again (`fault=KIND`, `delay=MS`; a
 * status fault with its status), so the replay meets what the recording met rather than new draws.
 */
function replayedPrefer(entry: ExportLine): string | null {
  const parts = entry.prefer === null ? [] : [entry.prefer];
  if (entry.fault !== undefined) parts.push(`fault=${entry.fault}`);
  if (entry.fault === 'status') parts.push(`code=${entry.status}`);
  if (entry.delayMs !== undefined) parts.push(`delay=${Math.min(entry.delayMs, maxLatencyMs)}`);
  return parts.length === 0 ? null : parts.join(', ');
}

function isReplayableTime(text: string): boolean {
  const ms = Date.parse(text);
  return ms >= earliestTimeMs && ms <= latestTimeMs;
}

function isPositiveInteger(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) > 0;
}

interface HarEntry {
  startedDateTime?: unknown;
  request?: { method?: unknown; url?: unknown; headers?: unknown; postData?: { text?: unknown; mimeType?: unknown } };
  response?: { status?: unknown };
}

function parseHar(textOrDocument: unknown, options: ReplayInputOptions): ReplayRequest[] {
  let document = textOrDocument;
  if (typeof textOrDocument === 'string') {
    try {
      document = JSON.parse(textOrDocument);
    } catch (error) {
      throw new ReplayInputError(
        `Failed to read the recording: not valid JSON (${(error as Error).message.slice(0, 120)}); expected a HAR 1.2 file or the JSON lines of GET /__mock/requests?format=jsonl`,
      );
    }
  }
  const entries = (document as { log?: { entries?: unknown } } | null)?.log?.entries;
  if (!Array.isArray(entries))
    throw new ReplayInputError('Failed to read the recording: log.entries: expected the array of a HAR 1.2 file');
  if (entries.length === 0) throw new ReplayInputError('Failed to read the recording: log.entries is empty');
  const demoKeys = options.demoKeys ?? {};
  const resolved = new Map<string, { plan: string; limits: LabLimits }>();
  for (const [key, plan] of options.keyPlans ?? [])
    resolved.set(key, limitsOfPlan(plan, options.plans, `--key ${displayKey(key, demoKeys)}`));
  const defaultPlan =
    options.defaultPlan === undefined ? undefined : limitsOfPlan(options.defaultPlan, options.plans, '--default-plan');
  const unmapped = new Set<string>();
  const requests: ReplayRequest[] = [];
  for (const [index, raw] of entries.entries()) {
    const where = `log.entries[${index}]`;
    const entry = raw as HarEntry;
    const fail = (field: string, expected: string): never => {
      throw new ReplayInputError(`Failed to read the recording: ${where}.${field}: expected ${expected}`);
    };
    if (entry === null || typeof entry !== 'object') fail('', 'an entry object');
    if (typeof entry.startedDateTime !== 'string' || !isReplayableTime(entry.startedDateTime))
      fail('startedDateTime', 'an ISO date-time in the years 0001 to 9999');
    const request = entry.request;
    if (request === null || typeof request !== 'object') fail('request', 'an object');
    if (typeof request!.method !== 'string' || !methodPattern.test(request!.method.toUpperCase()))
      fail('request.method', 'an HTTP method');
    if (typeof request!.url !== 'string') fail('request.url', 'a URL');
    let url: URL;
    try {
      url = new URL(request!.url as string, 'http://replay.invalid');
    } catch {
      return fail('request.url', 'a URL');
    }
    const headers: Record<string, string> = {};
    if (request!.headers !== undefined) {
      if (!Array.isArray(request!.headers)) fail('request.headers', 'an array of { name, value }');
      for (const header of request!.headers as unknown[]) {
        const { name, value } = (header ?? {}) as { name?: unknown; value?: unknown };
        if (typeof name !== 'string' || typeof value !== 'string')
          fail('request.headers', 'an array of { name, value } strings');
        const lower = (name as string).toLowerCase();
        // HTTP/2 pseudo-headers and hop-by-hop fields are the recording tool's, not the client's.
        if (lower.startsWith(':') || lower === 'connection' || lower === 'content-length' || lower === 'host') continue;
        headers[lower] = headers[lower] === undefined ? (value as string) : `${headers[lower]}, ${value as string}`;
      }
    }
    const postData = request!.postData;
    let body: string | null = null;
    if (postData !== undefined && postData !== null) {
      if (postData.text !== undefined && typeof postData.text !== 'string') fail('request.postData.text', 'a string');
      body = (postData.text as string | undefined) ?? null;
      if (typeof postData.mimeType === 'string' && postData.mimeType !== '' && headers['content-type'] === undefined)
        headers['content-type'] = postData.mimeType;
    }
    const status = entry.response?.status;
    const match = /^Bearer +(\S+) *$/i.exec(headers.authorization ?? '');
    const key = match ? match[1]! : null;
    if (key !== null && !/^[\x21-\x7e]{1,512}$/.test(key))
      fail(
        'request.headers',
        `a bearer key of at most 512 printable ASCII characters, as the mock's keys are; got ${displayKey(key, demoKeys)}`,
      );
    let client: string;
    let kind: 'key' | 'anonymous' = 'anonymous';
    let plan = 'anonymous';
    let limits: LabLimits | null = null;
    if (key !== null && (resolved.has(key) || Object.hasOwn(demoKeys, key) || defaultPlan !== undefined)) {
      const mapping =
        resolved.get(key) ??
        (Object.hasOwn(demoKeys, key) ? limitsOfPlan(demoKeys[key]!, options.plans, `demo key ${key}`) : defaultPlan!);
      kind = 'key';
      plan = mapping.plan;
      limits = mapping.limits;
      client = displayKey(key, demoKeys);
    } else {
      if (key !== null) unmapped.add(key);
      client = 'anonymous recorded-client';
    }
    requests.push({
      atMs: Date.parse(entry.startedDateTime as string),
      method: (request!.method as string).toUpperCase(),
      url: `${url.pathname}${url.search}`,
      headers,
      body,
      client,
      kind,
      plan,
      limits,
      key: kind === 'key' ? key : null,
      clientAddress: kind === 'key' ? 'replay' : 'recorded-client',
      recordedStatus: Number.isInteger(status) && (status as number) >= 100 ? (status as number) : null,
    });
  }
  if (unmapped.size > 0) {
    const shown = [...unmapped].slice(0, 5).map((key) => displayKey(key, demoKeys));
    throw new ReplayInputError(
      `The recording uses ${unmapped.size} key${unmapped.size === 1 ? '' : 's'} this mock does not know (${shown.join(', ')}${unmapped.size > 5 ? ', …' : ''}): map ${unmapped.size === 1 ? 'it' : 'them'} to a plan with --key KEY=plan or --default-plan PLAN`,
    );
  }
  return requests;
}

/** Demo keys in full (they are public), every other key masked like the mock's log. */
export function displayKey(key: string, demoKeys: Readonly<Record<string, string>>): string {
  return Object.hasOwn(demoKeys, key) ? key : maskSecret(key);
}

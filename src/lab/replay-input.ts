import { maxLatencyMs } from '../core/config/fault-config.js';
import type { ExportLine, StateLine } from './export-line-schema.js';
import { readExportLine, readStateLine } from './export-line-schema.js';
import { parseHar } from './har-input.js';
import type { LabLimits } from './lab-types.js';
import {
  limitsOfPlan,
  type RecordedStart,
  type Recording,
  type ReplayInputOptions,
  type ReplayRequest,
  recordingRefused,
} from './replay-request.js';

/**
 * What `petstore-mock replay FILE` reads: HAR 1.2 (a browser's or a proxy's recording, real keys) or
 * the mock's own request log exported as JSON lines (`GET /__mock/requests?format=jsonl`, keys
 * replaced by pseudonyms, each line read through its schema: export-line-schema.ts), turned into one
 * time-ordered list of requests to replay.
 *
 * Browser-safe: takes text, not files (the Node-only reader is replay-file.ts).
 */

// The bound the request log keeps a body to, for the export.
export { maxExportBodyBytes } from '../core/state/request-log.js';
// What the readers and writers of a recording are, for the importers that know this file.
export type { ExportLine, StateLine } from './export-line-schema.js';
export { anonymousPseudonym, keyPseudonym, keyPseudonymFromDigest, toExportLine, toStateLine } from './export-lines.js';
export {
  displayKey,
  parseKeyMapping,
  type RecordedStart,
  type Recording,
  ReplayInputError,
  type ReplayInputOptions,
  type ReplayRequest,
} from './replay-request.js';

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
  if (start === -1) throw recordingRefused('it is empty');
  // A HAR over its bound is refused on its size alone, before any pass over it.
  if (text[start] === '{' && looksLikeHar(text, start)) refuseLargeHar(text);
  const shapeProblem = jsonShapeProblem(text);
  if (shapeProblem !== undefined)
    throw recordingRefused(
      `${shapeProblem}; expected a HAR file or the JSON lines of GET /__mock/requests?format=jsonl`,
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
  throw recordingRefused(
    `a HAR file is read up to ${maxHarTextLength / 1024 / 1024} MiB, this one is ${(text.length / 1024 / 1024).toFixed(1)} MiB; export the API's requests alone (GET /__mock/requests?format=jsonl), or split the HAR`,
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

/** The line's state or request, or the refusal naming the line. */
function readLine(text: string, lineNumber: number): { state: StateLine } | { request: ExportLine } {
  const where = `line ${lineNumber}`;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw recordingRefused(
      `${where}: not JSON (${(error as Error).message.slice(0, 100)}); expected a HAR file or the JSON lines of GET /__mock/requests?format=jsonl`,
    );
  }
  if ((value as { type?: unknown } | null)?.type === 'state') {
    const reading = readStateLine(value);
    if ('problem' in reading) throw recordingRefused(`${where} (the starting state): ${reading.problem}`);
    return { state: reading.line };
  }
  const reading = readExportLine(value);
  if ('problem' in reading) throw recordingRefused(`${where}: ${reading.problem}`);
  return { request: reading.line };
}

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
    const read = readLine(line, lineNumber);
    if ('request' in read) {
      requests.push(replayRequestOf(read.request, overrides.get(read.request.client)));
    } else if (requests.length > 0 || recordedStart !== null) {
      throw recordingRefused(`line ${lineNumber}: a state line is only read as the first line of an export`);
    } else {
      recordedStart = recordedStartOf(read.state);
    }
  }
  if (requests.length === 0) throw recordingRefused('no requests in it');
  return { format: 'export', requests, start: recordedStart };
}

function recordedStartOf(line: StateLine): RecordedStart {
  const dropped = line.dropped;
  return {
    atMs: line.time === null ? null : Date.parse(line.time),
    logSize: line.logSize,
    dropped:
      dropped === null
        ? null
        : { count: dropped.count, fromMs: Date.parse(dropped.from), toMs: Date.parse(dropped.to) },
    omittedClients: line.omittedClients,
    scenario: line.scenario,
  };
}

/** The request an export line recorded, sent as its client sent it (`--key` may give it another plan). */
function replayRequestOf(entry: ExportLine, override: { plan: string; limits: LabLimits } | undefined): ReplayRequest {
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
  return {
    atMs: Date.parse(entry.time),
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

import { createRedactor, maskedRunLength, maskQueryCredentials } from '../../../spec/credential-masking.js';
import { maxExportBodyBytes, type RecordedRequest, type ReplayFields } from '../state/request-log.js';
import { defaultSessionName } from '../state/sessions.js';
import { withoutContentForHead } from './head-answer.js';
import type { RequestEvent, RequestRecord } from './request-record.js';

const textDecoder = new TextDecoder();

/**
 * The last stage of every answered request (the controls' too): a HEAD answer's content dropped,
 * the session echoed, the request log written, and, for an API request, the rate-limit lab and the
 * observers fed. Nothing else here changes the answer, and nothing that fails here fails the request.
 */
export function recordAnswer(record: RequestRecord): undefined {
  record.response = withoutContentForHead(record.request.method, record.response);
  const { runtime, response } = record;
  if (record.namedSession !== undefined) response.headers['X-Mock-Session'] = record.session;
  const entry: RecordedRequest = {
    timeMs: record.nowMs,
    method: record.request.method.slice(0, 20),
    path: record.path.slice(0, 300),
    operationId: record.operation === undefined ? null : record.operation.operationId,
    plan: record.plan,
    key: record.key,
    status: response.status,
    code: record.errorCode,
  };
  if (record.fault !== undefined) entry.fault = record.fault;
  if (record.delayMs > 0) entry.delayMs = record.delayMs;
  if (record.hit !== null) entry.replay = replayFieldsOf(record);
  appendToLog(record, entry);
  if (runtime.logger.verbose) {
    runtime.logger.debug(
      `${entry.method} ${entry.path} -> ${entry.status}${entry.code ? ` ${entry.code}` : ''}${entry.fault ? ` fault ${entry.fault}` : ''}${entry.delayMs ? ` after ${entry.delayMs} ms` : ''} (${record.session === defaultSessionName ? '' : `session ${record.session}, `}${entry.plan}${entry.key ? ` ${entry.key}` : ''})`,
    );
  }
  if (record.plan === 'control') return undefined;
  if (record.hit !== null) {
    try {
      runtime.observeLab(record, entry);
    } catch (error) {
      runtime.logger.error(
        `The rate-limit lab failed to observe a request: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  if (runtime.observers.length > 0) notifyObservers(record);
  return undefined;
}

/**
 * The log is written after the answer is decided and never delays it; a store that fails here has
 * already failed (or will fail) the requests that matter, which answer 503.
 */
function appendToLog(record: RequestRecord, entry: RecordedRequest): void {
  const { store } = record.runtime;
  const immediate = store.immediate;
  if (immediate === undefined) {
    store.appendRequest(record.session, entry, record.baseTimeMs).catch(() => {});
    return;
  }
  try {
    immediate.appendRequest(record.session, entry, record.baseTimeMs, record.hit?.key?.id);
  } catch {
    // As above: the answer stands.
  }
}

function notifyObservers(record: RequestRecord): void {
  const event: RequestEvent = {
    session: record.session,
    nowMs: record.nowMs,
    request: record.request,
    response: record.response,
    operationId: record.operation === undefined ? null : record.operation.operationId,
    forced: record.forcedAnswer,
    hit: record.hit,
  };
  for (const observer of record.runtime.observers) {
    try {
      observer(event);
    } catch (error) {
      record.runtime.logger.error(
        `A request observer failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}

/**
 * What the export needs to replay a request the store counted: who sent it (the key's digest, never
 * the key; the kind of auth; the limits counted against) and the body, cut to the export's bound.
 */
function replayFieldsOf(record: RequestRecord): ReplayFields {
  const { request, credentials } = record;
  const key = record.hit!.key;
  let body: string | null = null;
  if (request.body !== null && !request.bodyUnread && !request.bodyTooLarge) {
    // The text the core decoded is the same UTF-8 decoding; usable whole when it surely fits the bound (at most 3 bytes a UTF-16 unit).
    const text = record.bodyText;
    body =
      text !== undefined && text.length * 3 <= maxExportBodyBytes
        ? text
        : textDecoder.decode(request.body.subarray(0, maxExportBodyBytes));
  }
  const token = credentials?.kind === 'token' ? credentials.token : undefined;
  return {
    url: request.url.includes('?')
      ? withoutKey(maskQueryCredentials(request.url.slice(0, 2_000), record.served.credentialPlaces), token)
      : request.url.slice(0, 2_000),
    keyDigest: key !== null && credentials?.kind === 'token' ? credentials.digestHex : null,
    auth: key !== null ? 'key' : request.headers.authorization !== undefined ? 'invalid' : 'none',
    limits: key !== null ? key.limits : record.runtime.config.anonymous,
    clientAddress: request.clientAddress ?? null,
    prefer: request.headers.prefer?.slice(0, 200) ?? null,
    contentType: request.headers['content-type']?.slice(0, 200) ?? null,
    body: body === null ? null : withoutKey(body, token),
  };
}

/**
 * The client's own text (its target, its body) with its key masked, also when the export's bound
 * cut it: the key as the client sent it, so its first characters are there whenever any run of it
 * is. Looked for by comparing characters in place: the request path pays it on every recorded
 * request, and a slice of the key to search with cost more than the search (measured on POST).
 */
function withoutKey(text: string, token: string | undefined): string {
  if (token === undefined || token.length < 4) return text;
  const head = Math.min(token.length, maskedRunLength);
  const first = token[0]!;
  for (let at = text.indexOf(first); at !== -1 && at + head <= text.length; at = text.indexOf(first, at + 1)) {
    let same = 1;
    while (same < head && text.charCodeAt(at + same) === token.charCodeAt(same)) same += 1;
    if (same === head) return createRedactor([token])(text);
  }
  return text;
}

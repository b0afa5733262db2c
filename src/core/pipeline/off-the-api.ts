import { HttpError } from '../errors.js';
import { defaultSessionName, invalidSessionMessage } from '../state/sessions.js';
import type { MockResponse } from '../types.js';
import { errorCodeOf, type ResponseShaper } from '../wire/response-shaping.js';
import { withoutContentForHead } from './head-answer.js';
import { recordAnswer } from './recording.js';
import type { ControlAnswer, PipelineRuntime, RequestRecord } from './request-record.js';

// The answers given off the counted path (pipeline.ts): the controls, a CORS preflight, an invalid
// session, and an error no stage turned into an answer. None is counted against a budget.

/** `/__mock/*`: served by the controls, with no CORS (other websites must not drive them through the developer's browser). */
export async function serveControl(record: RequestRecord): Promise<MockResponse> {
  try {
    const answer = await record.runtime.serveControl(record);
    record.nowMs = await sessionNow(record);
    record.response = controlResponse(record.runtime.shaper.withoutCors, answer, record.nowMs);
    record.plan = 'control';
  } catch (error) {
    return answerFailure(record, error);
  }
  recordAnswer(record);
  return record.response;
}

/** A control's answer as a response: JSON, or text already encoded (the JUnit report, the export, the dashboard and its page) sent as it is. */
function controlResponse(shaper: ResponseShaper, answer: ControlAnswer, nowMs: number): MockResponse {
  if (answer.contentType === undefined) return shaper.finish(answer.status, answer.body, { ...answer.headers }, nowMs);
  const response = shaper.finish(
    answer.status,
    undefined,
    { ...answer.headers, 'Content-Type': answer.contentType },
    nowMs,
  );
  const empty = answer.status === 304 || answer.body === null;
  if (empty) delete response.headers['Content-Type'];
  response.body = empty ? null : String(answer.body);
  return response;
}

/**
 * CORS preflight: browsers send it without credentials, so it is neither authenticated nor counted
 * (nor logged); it still reports the caller's anonymous budget, like every response under the API.
 */
export async function answerPreflight(record: RequestRecord): Promise<MockResponse> {
  const { runtime, request } = record;
  return {
    status: 204,
    headers: {
      ...(await anonymousHead(runtime, record.session, request.clientAddress, record.baseTimeMs)),
      ...runtime.shaper.cors,
      'Access-Control-Allow-Methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
      'Access-Control-Allow-Headers': request.headers['access-control-request-headers'] ?? '*',
      'Access-Control-Max-Age': '600',
    },
    body: null,
  };
}

/** `X-Mock-Session` that is no session name: refused before any session is touched (not counted, not logged). */
export function refuseSession(record: RequestRecord): MockResponse | Promise<MockResponse> {
  const shaper = record.isControl ? record.runtime.shaper.withoutCors : record.runtime.shaper;
  const refusal = shaper.errorResponse(
    new HttpError('invalid_session', invalidSessionMessage(record.session)),
    {},
    record.baseTimeMs,
  );
  const answer = withoutContentForHead(record.request.method, refusal);
  return record.isControl ? answer : withBudgetHeaders(record, answer);
}

/** An error no stage turned into an answer: the API's Error shape (a logged 500 for one that is no HttpError), and logged. */
export async function answerFailure(record: RequestRecord, error: unknown): Promise<MockResponse> {
  record.nowMs = await sessionNow(record);
  const shaper = record.isControl ? record.runtime.shaper.withoutCors : record.runtime.shaper;
  record.response = shaper.errorResponse(error, {}, record.nowMs);
  record.errorCode = errorCodeOf(error);
  // What the request was is unknown past this point: it is logged as refused before routing.
  record.operation = undefined;
  record.hit = null;
  record.forcedAnswer = false;
  record.plan = record.isControl ? 'control' : 'anonymous';
  record.key = null;
  recordAnswer(record);
  return record.response;
}

/** Date of the session's virtual clock; the base time when the store cannot say. */
async function sessionNow(record: RequestRecord): Promise<number> {
  try {
    return record.baseTimeMs + (await record.runtime.store.clockOffset(record.session, record.baseTimeMs));
  } catch {
    return record.baseTimeMs;
  }
}

/**
 * An answer given before any session's budget is counted (an invalid or refused session): every
 * response carries X-RateLimit-* (interface section 8), so it reports the caller's anonymous budget
 * in the default session, without counting the request.
 */
export async function withBudgetHeaders(record: RequestRecord, response: MockResponse): Promise<MockResponse> {
  const { Date: _date, ...budget } = await anonymousHead(
    record.runtime,
    defaultSessionName,
    record.request.clientAddress,
    record.baseTimeMs,
  );
  return { ...response, headers: { ...budget, ...response.headers } };
}

/** Date and the X-RateLimit-* headers of a client's anonymous budget, counting nothing; Date alone without the store. */
export async function anonymousHead(
  runtime: PipelineRuntime,
  session: string,
  clientAddress: string | undefined,
  baseTimeMs: number,
): Promise<Record<string, string>> {
  try {
    const [decision, offset] = await Promise.all([
      runtime.store.peekAnonymous(session, clientAddress ?? 'local', baseTimeMs),
      runtime.store.clockOffset(session, baseTimeMs),
    ]);
    return {
      Date: runtime.shaper.httpDate(baseTimeMs + offset),
      ...runtime.shaper.rateLimitHeaders(decision, baseTimeMs + offset, runtime.served.anonymousLimits.fields),
    };
  } catch {
    return { Date: runtime.shaper.httpDate(baseTimeMs) };
  }
}

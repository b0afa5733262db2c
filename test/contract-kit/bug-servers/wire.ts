import type { PlainRequest, PlainResponse } from '../reference/reference-petstore.js';

/** Small readers and writers of the reference's request and response records, shared by the bug servers. */

export type JsonObject = Record<string, unknown>;

/** The path of a request, without its query. */
export function pathOf(request: PlainRequest): string {
  return request.target.split('?')[0]!;
}

export function isCategoriesPath(request: PlainRequest): boolean {
  return pathOf(request) === '/v1/categories';
}

/** The request body's JSON value, or undefined when it is not JSON. */
export function requestJson(request: PlainRequest): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(request.body));
  } catch {
    return undefined;
  }
}

/** The request body's JSON object, or undefined when it is not one. */
export function requestObject(request: PlainRequest): JsonObject | undefined {
  const value = requestJson(request);
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined;
}

/** A backend's own check that a body is a NewCategory (the bugs' validators, not the reference's). */
export function validNewCategory(request: PlainRequest): boolean {
  const body = requestObject(request);
  return (
    /^application\/json\b/i.test(String(request.headers['content-type'])) &&
    typeof body?.name === 'string' &&
    (body.description === undefined || typeof body.description === 'string')
  );
}

export function withRequestBody(request: PlainRequest, value: unknown): PlainRequest {
  return { ...request, body: new TextEncoder().encode(JSON.stringify(value)) };
}

export function withRequestHeader(request: PlainRequest, name: string, value: string | undefined): PlainRequest {
  return { ...request, headers: { ...request.headers, [name]: value } };
}

/** The token after `Bearer ` as the reference reads it (any letter case of the scheme, one space). */
export function bearerOf(request: PlainRequest): string | undefined {
  return /^bearer (.*)$/i.exec(String(request.headers.authorization))?.[1];
}

/**
 * The answer with each category of a 200 list or a 201 of `/v1/categories` passed through `change` (a
 * serializer on the way out); other answers unchanged.
 */
export function mapCategories(
  response: PlainResponse,
  request: PlainRequest,
  change: (category: JsonObject) => JsonObject,
): PlainResponse {
  if (!isCategoriesPath(request) || (response.status !== 200 && response.status !== 201)) return response;
  const value = JSON.parse(response.body) as JsonObject | JsonObject[];
  const changed = Array.isArray(value) ? value.map(change) : change(value);
  return { ...response, body: JSON.stringify(changed) };
}

const rateHeaderNames = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

/** The answer without the X-RateLimit-* headers (a limiter that did not run for it). */
export function withoutRateHeaders(response: PlainResponse): PlainResponse {
  const headers = { ...response.headers };
  for (const name of rateHeaderNames) delete headers[name];
  return { ...response, headers };
}

/** The answer with one header changed (undefined: removed). */
export function withHeader(response: PlainResponse, name: string, value: string | undefined): PlainResponse {
  const headers = { ...response.headers };
  if (value === undefined) delete headers[name];
  else headers[name] = value;
  return { ...response, headers };
}

/** The answer with its Error body's `status` or other fields changed. */
export function withErrorBody(
  response: PlainResponse,
  status: number,
  change: (error: JsonObject) => unknown,
): PlainResponse {
  return { ...response, status, body: JSON.stringify(change(JSON.parse(response.body) as JsonObject)) };
}

/** A framework's own HTML page (a default error handler's, a redirect's). */
export function htmlAnswer(status: number, text: string, headers: Record<string, string> = {}): PlainResponse {
  return {
    status,
    headers: { 'Content-Type': 'text/html; charset=utf-8', ...headers },
    body: `<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8"><title>Error</title></head>\n<body><pre>${text}</pre></body>\n</html>\n`,
  };
}

/** Resolves after `ms` of real time: a store's round trip, during which other requests run. */
export function roundTrip(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

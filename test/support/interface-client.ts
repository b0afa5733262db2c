import { expect } from 'vitest';
import type { MockRequest, MockResponse } from '../../src/core/types.js';

/**
 * The one way tests build requests to the mock and read its answers, whichever transport carries
 * them (the core's `handle`, node:http through fetch, MSW's `getResponse`). Interface-rule cases,
 * adapter tests and the parity test all use it, so a request means the same thing everywhere and
 * an answer is compared in one shape (lower-case header names, the body parsed once).
 *
 * @example
 * const answer = await fromFetchResponse(await fetch(url, requestInit('POST', { key: 'demo-free', json: { name: 'dog' } })));
 * expectError(answer, 401, 'unauthorized');
 */
export interface Sent {
  /** Sent as `Authorization: Bearer <key>`. */
  key?: string;
  headers?: Record<string, string>;
  /** Serialized, with `Content-Type: application/json` unless the headers name another type. */
  json?: unknown;
  /** Raw bytes: a string is sent as UTF-8; bytes are sent as they are, with no Content-Type added. */
  body?: string | Uint8Array;
}

export interface Received {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** The body as text ('' when there is none). */
  text: string;
  /** The body parsed as JSON, or null when there is none. */
  json: any;
}

const encoder = new TextEncoder();

/** The headers and body of a request, before a transport carries it. */
export function requestParts(sent: Sent = {}): {
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
} {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(sent.headers ?? {})) headers[name.toLowerCase()] = value;
  if (sent.key !== undefined) headers.authorization = `Bearer ${sent.key}`;
  let body = sent.body;
  if (sent.json !== undefined) {
    body = JSON.stringify(sent.json);
    headers['content-type'] ??= 'application/json';
  }
  return { headers, body };
}

/** A fetch `RequestInit` (also what `new Request(url, init)` takes for MSW's getResponse). */
export function requestInit(method: string, sent: Sent = {}): RequestInit {
  const { headers, body } = requestParts(sent);
  return { method, headers, body: body as BodyInit | undefined };
}

/**
 * A request record for the core's `handle`, as a transport would build it. `clientAddress`
 * undefined is what MSW gives: a caller in the same process or page.
 */
export function mockRequest(method: string, url: string, sent: Sent = {}, clientAddress?: string): MockRequest {
  const { headers, body } = requestParts(sent);
  return {
    method,
    url,
    headers,
    body: body === undefined ? null : typeof body === 'string' ? encoder.encode(body) : body,
    clientAddress,
  };
}

function parsed(text: string): any {
  return text === '' ? null : JSON.parse(text);
}

/** What `fromFetchResponse` reads: a WHATWG Response (global fetch, MSW) or undici's own. */
export interface FetchedResponse {
  status: number;
  headers: { forEach(callback: (value: string, name: string) => void): void };
  text(): Promise<string>;
}

export async function fromFetchResponse(response: FetchedResponse): Promise<Received> {
  const text = await response.text();
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { status: response.status, headers, text, json: parsed(text) };
}

export function fromMockResponse(response: MockResponse): Received {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) headers[name.toLowerCase()] = value;
  const text = response.body ?? '';
  return { status: response.status, headers, text, json: parsed(text) };
}

/** The interface's Error shape `{code, message, status}` with the status repeated, as JSON. */
export function expectError(response: Received, status: number, code: string, message?: string | RegExp): void {
  expect(response.status, `${response.status} ${response.text.slice(0, 200)}`).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(response.json).toEqual({ code, message: expect.any(String), status });
  if (typeof message === 'string') expect(response.json.message).toBe(message);
  else if (message !== undefined) expect(response.json.message).toMatch(message);
}

/** Interface §8: X-RateLimit-Limit, -Remaining and -Reset, each a non-negative integer. */
export function expectRateLimitHeaders(response: Received): void {
  for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    expect(response.headers[name], `${name} on ${response.status} ${response.text.slice(0, 120)}`).toEqual(
      expect.stringMatching(/^\d+$/),
    );
  }
}

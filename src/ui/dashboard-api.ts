import { truncate } from '../../spec/interface/observed.js';
import type { ApiError } from './dashboard-types.js';

/**
 * The page's only way to the network: relative URLs under the mock's own `/__mock/` path, with the
 * session and the control token as headers. No credentials mode, no other origin (the CSP's
 * connect-src 'self' would refuse one anyway).
 */
export interface DashboardApiContext {
  /** The `/__mock/` folder the page was served from, e.g. `/__mock/` (kept relative: no origin). */
  base: string;
  session(): string | null;
  token(): string | null;
}

/** A failed call, with the mock's Error body when it sent one. */
export class DashboardCallError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | null,
  ) {
    super(message);
  }
}

/** `/__mock/ui` or `/__mock/ui/` -> `/__mock/`; any other page path -> its folder. */
export function controlBase(pathname: string): string {
  const trimmed = pathname.replace(/\/ui\/?$/, '/');
  return trimmed.endsWith('/') ? trimmed : trimmed.slice(0, trimmed.lastIndexOf('/') + 1);
}

function requestHeaders(context: DashboardApiContext, extra: Record<string, string> = {}): Headers {
  const headers = new Headers(extra);
  const session = context.session();
  if (session !== null) headers.set('X-Mock-Session', session);
  const token = context.token();
  if (token !== null) headers.set('X-Mock-Control-Token', token);
  return headers;
}

/** Turns a non-2xx answer into one line, from the mock's `{code,message,status}` when present. */
async function callError(response: Response): Promise<DashboardCallError> {
  let body: Partial<ApiError> | undefined;
  try {
    const text = await response.text();
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null) body = parsed as Partial<ApiError>;
  } catch {
    body = undefined;
  }
  const code = typeof body?.code === 'string' ? body.code : null;
  const message = typeof body?.message === 'string' ? body.message : response.statusText || 'no error body';
  // Shown on the page's error line: a broken server's megabyte of message is cut there.
  return new DashboardCallError(
    `The mock answered ${response.status}${code === null ? '' : ` ${truncate(code, 60)}`}: ${truncate(message, 300)}`,
    response.status,
    code,
  );
}

/** One call to a control under the page's base, with its headers; a network failure or a non-2xx is a DashboardCallError. */
async function callControl(context: DashboardApiContext, path: string, init: RequestInit = {}): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(`${context.base}${path}`, {
      ...init,
      headers: requestHeaders(context, Object.fromEntries(new Headers(init.headers))),
      cache: 'no-store',
      credentials: 'same-origin',
    });
  } catch (error) {
    throw new DashboardCallError(
      `Cannot reach the mock: ${error instanceof Error ? error.message : String(error)}`,
      0,
      null,
    );
  }
  if (!response.ok) throw await callError(response);
  return response;
}

/** POSTs one control (`clock`, `reset`) with an optional JSON body; resolves to the decoded answer. */
export async function postControl(context: DashboardApiContext, name: string, body?: unknown): Promise<unknown> {
  const response = await callControl(context, name, {
    method: 'POST',
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });
  try {
    return await response.json();
  } catch {
    return null;
  }
}

/**
 * GETs a control's answer as bytes (an export, a report) with the session and the token, for a
 * download: the page cannot link to it, since a link sends neither header.
 */
export async function getControlBlob(context: DashboardApiContext, path: string): Promise<Blob> {
  return (await callControl(context, path)).blob();
}

/**
 * GETs the dashboard (`limit` recent requests), with `If-None-Match` when the page holds an answer
 * (`etag`): a 304 means it is unchanged. A network failure or another non-2xx is a DashboardCallError.
 */
export async function getDashboard(
  context: DashboardApiContext,
  limit: number,
  etag: string | null,
): Promise<Response> {
  const headers = requestHeaders(context);
  if (etag !== null) headers.set('If-None-Match', etag);
  let response: Response;
  try {
    response = await fetch(`${context.base}dashboard?limit=${limit}`, {
      headers,
      cache: 'no-store',
      credentials: 'same-origin',
    });
  } catch (error) {
    throw new DashboardCallError(
      `Cannot reach the mock (${error instanceof Error ? error.message : String(error)})`,
      0,
      null,
    );
  }
  if (response.status !== 304 && !response.ok) throw await callError(response);
  return response;
}

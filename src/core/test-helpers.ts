import { readSpecFile } from '../../spec/load-spec.js';
import { createFixedClock, type VirtualClock } from './clock.js';
import { createMockApp, type MockAppOptions } from './mock-app.js';
import type { MockRequest } from './types.js';

/** 2026-01-01T00:00:00Z: tests start on a minute and a day boundary, far from any real time. */
export const testEpochMs = Date.UTC(2026, 0, 1);

export const specDocument = await readSpecFile();

/** An app on a clock that stands still until the test moves it. */
export function createTestApp(options: Partial<MockAppOptions> = {}) {
  // `clock` is the base clock the test moves (every session's virtual time follows it).
  const clock = (options.clock as VirtualClock | undefined) ?? createFixedClock(testEpochMs);
  return Object.assign(createMockApp({ spec: specDocument, seed: 1, ...options, clock }), { clock });
}

const encoder = new TextEncoder();

/**
 * Builds a MockRequest the way a transport would.
 *
 * @example call(app, 'POST', '/v1/categories', { key: 'demo-free', json: { name: 'dog' } })
 */
export function request(method: string, url: string, options: { key?: string; headers?: Record<string, string>; json?: unknown; body?: string | Uint8Array; clientAddress?: string } = {}): MockRequest {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  let body: Uint8Array | null = null;
  if (options.json !== undefined) {
    body = encoder.encode(JSON.stringify(options.json));
    headers['content-type'] ??= 'application/json';
  } else if (options.body !== undefined) {
    body = typeof options.body === 'string' ? encoder.encode(options.body) : options.body;
  }
  return { method, url, headers, body, clientAddress: options.clientAddress };
}

export async function call(app: ReturnType<typeof createTestApp>, ...args: Parameters<typeof request>) {
  const response = await app.handle(request(...args));
  return { ...response, json: response.body === null ? null : (JSON.parse(response.body) as any) };
}

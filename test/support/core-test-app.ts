import { readSpecFile } from '../../spec/load-spec.js';
import { createFixedClock, type VirtualClock } from '../../src/core/clock.js';
import { createMockApp, type MockAppOptions } from '../../src/core/mock-app.js';
import type { MockRequest } from '../../src/core/types.js';
import { fromMockResponse, mockRequest, type Received, type Sent } from './interface-client.js';

/** 2026-01-01T00:00:00Z: tests start on a minute and a day boundary, far from any real time. */
export const testEpochMs = Date.UTC(2026, 0, 1);

export const specDocument = await readSpecFile();

/** An app on a clock that stands still until the test moves it. */
export function createTestApp(options: Partial<MockAppOptions> = {}) {
  // `clock` is the base clock the test moves (every session's virtual time follows it).
  const clock = (options.clock as VirtualClock | undefined) ?? createFixedClock(testEpochMs);
  return Object.assign(createMockApp({ spec: specDocument, seed: 1, ...options, clock }), { clock });
}

type RequestOptions = Sent & { clientAddress?: string };

/**
 * Builds a MockRequest the way a transport would (the shared builder of test/support); no
 * `clientAddress` is a caller in the same process, as under MSW.
 *
 * @example request('POST', '/v1/categories', { key: 'demo-free', json: { name: 'dog' } })
 */
export function request(method: string, url: string, options: RequestOptions = {}): MockRequest {
  return mockRequest(method, url, options, options.clientAddress);
}

/** The core's answer as it is (header names as the core writes them), with the body parsed. */
export async function call(app: ReturnType<typeof createTestApp>, ...args: Parameters<typeof request>) {
  const response = await app.handle(request(...args));
  return { ...response, json: response.body === null ? null : (JSON.parse(response.body) as any) };
}

/**
 * One request to the core, read in the shape every transport's answer is read in (lower-case
 * header names), so the shared assertions (`expectError`, `expectRateLimitHeaders`) apply.
 *
 * @example expectError(await exchange(app, 'GET', '/v1/categories'), 401, 'unauthorized')
 */
export async function exchange(
  app: ReturnType<typeof createTestApp>,
  method: string,
  url: string,
  options: RequestOptions = {},
): Promise<Received> {
  return fromMockResponse(await app.handle(request(method, url, options)));
}

import { readSpecFile } from '../../../spec/load-spec.js';
import type { MockConfigInput } from '../../../src/core/config/mock-config.js';
import { createMockApp, type MockApp } from '../../../src/core/mock-app.js';
import type { MockRequest } from '../../../src/core/types.js';

/** The kit's spec, parsed once per test file. */
export const specDocument = await readSpecFile();

/**
 * The behaviour core with no transport: for tests that need 100,000 requests in seconds, or a
 * client address a loopback socket cannot have.
 *
 * @example const app = createCoreApp({ maxTrackedClients: 1_000 });
 */
export function createCoreApp(config: MockConfigInput = {}): MockApp {
  return createMockApp({ spec: specDocument, config });
}

/** A GET of the category list as a transport would hand it to the core. */
export function listRequest(
  options: { key?: string; clientAddress?: string; headers?: Record<string, string> } = {},
): MockRequest {
  return {
    method: 'GET',
    url: '/v1/categories',
    headers: { ...(options.key === undefined ? {} : { authorization: `Bearer ${options.key}` }), ...options.headers },
    body: null,
    clientAddress: options.clientAddress ?? '127.0.0.1',
  };
}

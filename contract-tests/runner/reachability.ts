import { request } from 'undici';
import { apiUrl } from '../lib/api-url.js';
import { ContractRunError } from './contract-run-error.js';
import { type PreflightResult, transportReason } from './preflight.js';

/**
 * The preflight of a run on a document that is not the Petstore interface: the kit knows no key
 * check or "answers like the API" rule for it, so it only stops a run against a server it cannot
 * reach at all (one line, exit 2). Any HTTP answer goes on to the checks, which judge it.
 *
 * @example await reachability({ baseUrl: 'http://127.0.0.1:4010/api/v3', path: '/pet/findByStatus', timeoutMs: 10_000, extraHeaders: {} })
 */
export async function reachability(options: {
  baseUrl: string;
  path: string;
  timeoutMs: number;
  extraHeaders: Record<string, string>;
}): Promise<PreflightResult> {
  const url = apiUrl(options.baseUrl, options.path);
  try {
    const response = await request(url, {
      method: 'GET',
      headers: { ...options.extraHeaders, accept: '*/*', 'user-agent': 'petstore-contract (preflight)' },
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    await response.body.dump();
    const header = (name: string) => {
      const value = response.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    return {
      status: response.statusCode,
      remaining: header('x-ratelimit-remaining'),
      reset: header('x-ratelimit-reset'),
      receivedAtMs: Date.now(),
      retryAfter: response.statusCode === 429 ? header('retry-after') : undefined,
      url,
    };
  } catch (error) {
    throw new ContractRunError(
      'unreachable',
      `Failed to reach ${options.baseUrl}: ${transportReason(error, options.timeoutMs)}`,
    );
  }
}

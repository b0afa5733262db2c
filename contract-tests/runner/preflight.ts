import { Agent, request } from 'undici';
import { apiUrl } from '../lib/api-url.js';
import type { ObservedBudget } from '../lib/contract-target.js';
import { ContractRunError } from './contract-run-error.js';

/**
 * Makes sure the server answers at all before the suite starts, so an unreachable server is a
 * clear exit 2 ("Failed to reach ...") instead of fifty failed checks. One authenticated GET
 * /categories; its rate-limit headers seed the pacing of the main key.
 *
 * @example const budget = await probeServer('http://127.0.0.1:4010/v1', 'demo-pro', 10_000);
 */
export async function probeServer(baseUrl: string, apiKey: string, timeoutMs: number, extraHeaders: Record<string, string> = {}): Promise<ObservedBudget & { status: number }> {
  const agent = new Agent({ connect: { timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const url = apiUrl(baseUrl, '/categories');
  try {
    const response = await request(url, {
      method: 'GET',
      headers: { ...extraHeaders, authorization: `Bearer ${apiKey}`, accept: 'application/json', 'user-agent': 'petstore-contract (reachability probe)' },
      dispatcher: agent,
      signal: AbortSignal.timeout(timeoutMs),
    });
    // Headers are all the probe needs: at most 64 KiB of the body is read, the rest dropped.
    await response.body.dump({ limit: 65_536 }).catch(() => undefined);
    const header = (name: string) => {
      const value = response.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    return { status: response.statusCode, remaining: header('x-ratelimit-remaining'), reset: header('x-ratelimit-reset'), receivedAtMs: Date.now() };
  } catch (error) {
    throw new ContractRunError('unreachable', `Failed to reach ${baseUrl}: ${reason(error, timeoutMs)}`);
  } finally {
    await agent.close();
  }
}

function reason(error: unknown, timeoutMs: number): string {
  const cause = (error as { cause?: NodeJS.ErrnoException }).cause;
  const code = cause?.code ?? (error as NodeJS.ErrnoException).code;
  const name = (error as Error).name;
  if (name === 'TimeoutError' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT') return `no answer within ${timeoutMs / 1000} s`;
  if (code === 'ECONNREFUSED') return 'connection refused (is the server running, and is the port right?)';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the host name does not resolve';
  return `${code ?? name}: ${(cause ?? (error as Error)).message}`;
}

import type { CheckRun } from '../lib/check.js';
import type { Exchange } from '../lib/exchange.js';
import type { ApiRequest } from '../lib/http-client.js';
import { callOf, type SuiteOperation } from './operations.js';

/** A request without its credentials: the main key's are added by the helpers below. */
export type RequestWithoutKey = Omit<ApiRequest, 'authorization' | 'identity'>;

/**
 * Sends a request with the main key (`Bearer <--api-key>`, on the main key's budget): what most
 * checks send, written once so that a check shows only what it varies.
 *
 * @example await sendWithMainKey(run, { operationId: 'headCategories', method: 'HEAD', path: '/categories' })
 */
export function sendWithMainKey(run: CheckRun, request: RequestWithoutKey): Promise<Exchange> {
  return run.send({ ...request, authorization: run.bearer(), identity: 'main' });
}

/**
 * Sends an operation of the interface with the main key; `extra` adds a body, another path (a query
 * string) or a flag of the request.
 *
 * @example await sendOperation(run, createCategory, { json: { name: run.categoryName('full') } })
 */
export function sendOperation(
  run: CheckRun,
  operation: SuiteOperation,
  extra: Partial<RequestWithoutKey> = {},
): Promise<Exchange> {
  return sendWithMainKey(run, { ...callOf(operation), ...extra });
}

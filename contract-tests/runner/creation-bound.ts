import type { CheckArea, CheckSpec } from '../lib/check.js';
import type { ContractTarget } from '../lib/contract-target.js';
import type { ApiRequest } from '../lib/http-client.js';

/**
 * Could this request create a category on a server that accepts it? Every POST (a broken server
 * may create from an invalid body or an invalid key) and any request that carries a body.
 *
 * @example createsData({ operationId: 'createCategory', method: 'POST', path: '/categories', identity: 'main', json: {} }) // true
 */
export function createsData(request: Pick<ApiRequest, 'method' | 'json' | 'rawBody'>): boolean {
  return request.method.toUpperCase() === 'POST' || request.json !== undefined || request.rawBody !== undefined;
}

/**
 * Most requests that could create data one check may send in this run: what it declares
 * (`maxCreates`), nothing under --read-only, nothing when it declares nothing.
 */
export async function checkCreationBound(check: CheckSpec, target: ContractTarget): Promise<number> {
  if (target.readOnly || check.maxCreates === undefined) return 0;
  return Math.max(0, Math.ceil(await check.maxCreates(target)));
}

/**
 * The run's upper bound on the categories it may create: the sum of every check's bound. The
 * runner prints it before the first request that could create anything, and refuses any request
 * past a check's own bound, so the number printed is a promise kept.
 *
 * @example await creationBound(suiteAreas, target) // 143 with the defaults
 */
export async function creationBound(areas: readonly CheckArea[], target: ContractTarget): Promise<number> {
  const bounds = await Promise.all(
    areas.flatMap((area) => area.checks.map((check) => checkCreationBound(check, target))),
  );
  return bounds.reduce((total, bound) => total + bound, 0);
}

/**
 * The line printed before the first request that could create data: how many categories the run
 * may create, how they are named, and how to create none.
 *
 * @example creationLine({ bound: 143, baseUrl: 'https://staging.example.com/v1', namePrefix: 'contract-test-1a2b', createBudget: 60, readOnly: false })
 * // 'petstore-contract: this run may create up to 143 categories on https://staging.example.com/v1, named contract-test-1a2b-* (the interface has no delete; up to 60 of them cross list page sizes: --create-budget); --read-only creates none'
 */
export function creationLine(options: {
  bound: number;
  baseUrl: string;
  namePrefix: string;
  createBudget: number;
  readOnly: boolean;
}): string {
  if (options.readOnly) return 'petstore-contract: read-only run: no request that could create data is sent';
  return `petstore-contract: this run may create up to ${options.bound} categories on ${options.baseUrl}, named ${options.namePrefix}-* (the interface has no delete; up to ${Math.min(options.createBudget, options.bound)} of them cross list page sizes: --create-budget); --read-only creates none`;
}

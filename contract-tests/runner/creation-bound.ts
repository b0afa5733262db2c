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

/** What one check may create in this run: what it declares, and its share of --create-budget. */
export interface CreationShare {
  declared: number;
  share: number;
}

/**
 * Shares --create-budget (the most categories a run may create) out among the checks: each in run
 * order gets what it declares while the budget lasts, and the bulk creators (`bulkCreates`:
 * list.all) share what is left after the others. A check whose share is less than it declares is
 * stopped at its share, INCONCLUSIVE naming --create-budget (run-checks.ts).
 *
 * @example (await creationShares(suiteAreas, target)).get('list.all') // { declared: 51, share: 38 }
 */
export async function creationShares(
  areas: readonly CheckArea[],
  target: ContractTarget,
): Promise<Map<string, CreationShare>> {
  const checks = areas.flatMap((area) => area.checks);
  const ordered = [
    ...checks.filter((check) => check.bulkCreates !== true),
    ...checks.filter((check) => check.bulkCreates === true),
  ];
  const shares = new Map<string, CreationShare>();
  let left = target.readOnly ? 0 : target.createBudget;
  for (const check of ordered) {
    const declared = await checkCreationBound(check, target);
    const share = Math.min(declared, left);
    left -= share;
    shares.set(check.id, { declared, share });
  }
  return shares;
}

/**
 * The run's upper bound on the categories it may create: the sum of every check's share of
 * --create-budget. The runner prints it before the first request that could create anything, and
 * refuses any request past a check's own share, so the number printed is a promise kept.
 *
 * @example creationBound(await creationShares(suiteAreas, target)) // 200 with the defaults
 */
export function creationBound(shares: ReadonlyMap<string, CreationShare>): number {
  return [...shares.values()].reduce((total, { share }) => total + share, 0);
}

/** What the run's checks would declare with no --create-budget at all: what a higher budget buys. */
export function creationWanted(shares: ReadonlyMap<string, CreationShare>): number {
  return [...shares.values()].reduce((total, { declared }) => total + declared, 0);
}

/**
 * The line printed before the first request that could create data: how many categories the run
 * may create, how they are named, and how to create none.
 *
 * @example creationLine({ bound: 200, wanted: 258, baseUrl: 'https://staging.example.com/v1', namePrefix: 'contract-test-1a2b', createBudget: 200, readOnly: false })
 * // 'petstore-contract: this run may create up to 200 categories on https://staging.example.com/v1, named contract-test-1a2b-* (the interface has no delete; --create-budget 200; its checks would use 258: --create-budget 258 affords them all); --read-only creates none'
 */
export function creationLine(options: {
  bound: number;
  /** What the checks would declare without a budget. */
  wanted: number;
  baseUrl: string;
  namePrefix: string;
  createBudget: number;
  readOnly: boolean;
}): string {
  if (options.readOnly) return 'petstore-contract: read-only run: no request that could create data is sent';
  const more =
    options.wanted > options.bound
      ? `its checks would use ${options.wanted}: --create-budget ${options.wanted} affords them all`
      : 'enough for every check';
  return `petstore-contract: this run may create up to ${options.bound} categories on ${options.baseUrl}, named ${options.namePrefix}-* (the interface has no delete; --create-budget ${options.createBudget}, ${more}); --read-only creates none`;
}

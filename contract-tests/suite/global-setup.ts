import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import type { ContractTarget } from '../lib/contract-target.js';

/**
 * Resolves the target once for the whole suite and hands it to every check with `provide`: the
 * URL the checks call (Prism's proxy when the run goes through it), the run id and the prefix of
 * created data. Checks never build a host or port themselves.
 */
export default function setup(project: TestProject): void {
  const input = project.getProvidedContext().contractSuiteInput;
  if (input === undefined) {
    throw new Error('Failed to resolve the contract target: no options were provided; run the suite through petstore-contract (npm run contract -- --base-url URL --api-key KEY)');
  }
  const runId = input.runId ?? randomBytes(4).toString('hex');
  const { prismBaseUrl, ...rest } = input;
  const target: ContractTarget = {
    ...rest,
    runId,
    baseUrl: prismBaseUrl ?? input.directBaseUrl,
    namePrefix: `contract-test-${runId}`,
  };
  project.provide('contractTarget', target);
}

import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { defaultSpecPath } from '../../spec/load-spec.js';
import type { ContractTarget } from '../lib/contract-target.js';
import { suiteAreas } from '../suite/index.js';
import { defaults } from './contract-options.js';
import { createsData, creationBound, creationLine } from './creation-bound.js';

const target = (overrides: Partial<ContractTarget> = {}) =>
  ({
    readOnly: false,
    propertyRuns: defaults.propertyRuns,
    createBudget: defaults.createBudget,
    specPath: defaultSpecPath,
    rateLimitKey: 'spare-key',
    ...overrides,
  }) as ContractTarget;

describe('the creation bound', () => {
  it('counts every POST and every request with a body as a possible creation', () => {
    expect(createsData({ method: 'POST' })).toBe(true);
    expect(createsData({ method: 'post' })).toBe(true);
    expect(createsData({ method: 'PATCH', json: { name: 'x' } })).toBe(true);
    expect(createsData({ method: 'PUT', rawBody: new Uint8Array([1]) })).toBe(true);
    expect(createsData({ method: 'PATCH' })).toBe(false);
    expect(createsData({ method: 'GET' })).toBe(false);
  });

  it('follows the options: --create-budget, property runs, the rate-limit key; nothing under --read-only', async () => {
    const full = await creationBound(suiteAreas, target());
    expect(await creationBound(suiteAreas, target({ createBudget: 0 }))).toBe(full - defaults.createBudget);
    expect(await creationBound(suiteAreas, target({ propertyRuns: defaults.propertyRuns + 3 }))).toBeGreaterThan(full);
    expect(await creationBound(suiteAreas, target({ rateLimitKey: undefined }))).toBeLessThanOrEqual(full);
    expect(await creationBound(suiteAreas, target({ readOnly: true }))).toBe(0);
  });

  it('is the number the CI documentation states as the default, with and without --rate-limit-key', async () => {
    const text = await readFile(new URL('../../docs/contract-kit-ci.md', import.meta.url), 'utf8');
    const stated = /\*\*The default is (\d+)\*\* \((\d+) without `--rate-limit-key`\)/.exec(text);
    expect(stated, 'docs/contract-kit-ci.md states the default bound').not.toBeNull();
    expect([Number(stated![1]), Number(stated![2])]).toEqual([
      await creationBound(suiteAreas, target()),
      await creationBound(suiteAreas, target({ rateLimitKey: undefined })),
    ]);
    expect(text).toContain(`may create up to ${stated![1]} categories`);
  });

  it('says it in one line, the --create-budget share never above the bound', () => {
    expect(
      creationLine({
        bound: 3,
        baseUrl: 'http://h/v1',
        namePrefix: 'contract-test-ab',
        createBudget: 60,
        readOnly: false,
      }),
    ).toBe(
      'petstore-contract: this run may create up to 3 categories on http://h/v1, named contract-test-ab-* (the interface has no delete; up to 3 of them cross list page sizes: --create-budget); --read-only creates none',
    );
    expect(creationLine({ bound: 0, baseUrl: 'http://h/v1', namePrefix: 'p', createBudget: 60, readOnly: true })).toBe(
      'petstore-contract: read-only run: no request that could create data is sent',
    );
  });
});

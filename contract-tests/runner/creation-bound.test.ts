import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { defaultSpecPath } from '../../spec/load-spec.js';
import type { ContractTarget } from '../lib/contract-target.js';
import { suiteAreas } from '../suite/index.js';
import { defaults } from './contract-options.js';
import { createsData, creationBound, creationLine, creationShares, creationWanted } from './creation-bound.js';

const target = (overrides: Partial<ContractTarget> = {}) =>
  ({
    readOnly: false,
    propertyRuns: defaults.propertyRuns,
    createBudget: defaults.createBudget,
    thorough: false,
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

  const bound = async (overrides: Partial<ContractTarget> = {}) =>
    creationBound(await creationShares(suiteAreas, target(overrides)));

  it('follows the options: --create-budget caps it, property runs, the rate-limit key; nothing under --read-only', async () => {
    const full = await bound();
    expect(full).toBeLessThanOrEqual(defaults.createBudget);
    const unbounded = creationWanted(await creationShares(suiteAreas, target({ createBudget: 10_000 })));
    expect(await bound({ createBudget: 10_000 })).toBe(unbounded);
    expect(unbounded).toBeGreaterThan(full);
    expect(await bound({ createBudget: 5 })).toBe(5);
    expect(await bound({ createBudget: 0 })).toBe(0);
    expect(await bound({ propertyRuns: defaults.propertyRuns + 3, createBudget: 10_000 })).toBeGreaterThan(unbounded);
    expect(await bound({ rateLimitKey: undefined })).toBeLessThanOrEqual(full);
    expect(await bound({ readOnly: true })).toBe(0);
  });

  it('gives every check its own share first, and list.all (the bulk) what is left', async () => {
    const shares = await creationShares(suiteAreas, target());
    const others = [...shares.entries()].filter(([id]) => id !== 'list.all');
    expect(others.every(([, share]) => share.share === share.declared)).toBe(true);
    const listAll = shares.get('list.all')!;
    expect(listAll.share).toBe(defaults.createBudget - others.reduce((sum, [, share]) => sum + share.share, 0));
    expect(listAll.share).toBeLessThan(listAll.declared);
    const tight = await creationShares(suiteAreas, target({ createBudget: 20 }));
    expect(tight.get('list.all')!.share).toBe(0);
    expect(creationBound(tight)).toBe(20);
  });

  it('is the number the CI documentation states as the default, with and without --rate-limit-key', async () => {
    const text = await readFile(new URL('../../docs/contract-kit-ci.md', import.meta.url), 'utf8');
    const stated = /\*\*The default is (\d+)\*\* \((\d+) without `--rate-limit-key`\)/.exec(text);
    expect(stated, 'docs/contract-kit-ci.md states the default bound').not.toBeNull();
    expect([Number(stated![1]), Number(stated![2])]).toEqual([await bound(), await bound({ rateLimitKey: undefined })]);
    expect(text).toContain(`may create up to ${stated![1]} categories`);
  });

  it('says it in one line, with what a higher --create-budget would afford', () => {
    expect(
      creationLine({
        bound: 200,
        wanted: 258,
        baseUrl: 'http://h/v1',
        namePrefix: 'contract-test-ab',
        createBudget: 200,
        readOnly: false,
      }),
    ).toBe(
      'petstore-contract: this run may create up to 200 categories on http://h/v1, named contract-test-ab-* (the interface has no delete; --create-budget 200, its checks would use 258: --create-budget 258 affords them all); --read-only creates none',
    );
    expect(
      creationLine({ bound: 0, wanted: 0, baseUrl: 'http://h/v1', namePrefix: 'p', createBudget: 60, readOnly: true }),
    ).toBe('petstore-contract: read-only run: no request that could create data is sent');
  });
});

import { describe, expect, it } from 'vitest';
import type { ObservedExchange } from './observed.js';
import { ResourceSequences } from './resource-sequences.js';

const answer = (operationId: string, method: string, status: number, json: unknown): ObservedExchange => ({
  operationId,
  request: { method },
  receivedAtMs: 0,
  response: { status, headers: {}, bodyText: JSON.stringify(json), hasJson: true, json },
});
const created = (id: number, name: string) => answer('createCategory', 'POST', 201, { id, name });
const list = (items: unknown[]) => answer('listCategories', 'GET', 200, items);

describe('data.round-trip as a rule of the resource', () => {
  it('requires every category created before a list left in it, once, as its 201 returned it', () => {
    const resources = new ResourceSequences();
    resources.answered(resources.sent(), created(1, 'dog'), true);
    resources.answered(resources.sent(), created(2, 'cat'), true);
    const [verdict] = resources.answered(resources.sent(), list([{ id: 1, name: 'Dog' }]), true).verdicts;
    expect(verdict!.comparisons).toBe(2);
    expect(verdict!.violations.map((violation) => violation.detail)).toEqual([
      'category 1, created as {"name":"dog"}, is listed as {"name":"Dog"} in a list fetched after its 201 (1 items)',
      'category 2, created as {"name":"cat"}, is missing in a list fetched after its 201 (1 items)',
    ]);
    expect(
      resources.answered(
        resources.sent(),
        list([
          { id: 1, name: 'dog' },
          { id: 2, name: 'cat' },
        ]),
        true,
      ).verdicts[0]!.violations,
    ).toEqual([]);
    expect(
      resources.answered(
        resources.sent(),
        list([
          { id: 1, name: 'dog' },
          { id: 2, name: 'cat' },
          { id: 2, name: 'cat' },
        ]),
        true,
      ).verdicts[0]!.violations[0]!.detail,
    ).toContain('is listed 2 times');
  });

  it('judges a list only against creations answered before it left, and only lists fetched with a key', () => {
    const resources = new ResourceSequences();
    const early = resources.sent();
    resources.answered(resources.sent(), created(1, 'dog'), true);
    expect(resources.answered(early, list([]), true).verdicts).toEqual([]);
    expect(resources.answered(resources.sent(), list([]), false).verdicts).toEqual([]);
    expect(resources.answered(resources.sent(), answer('listCategories', 'GET', 401, {}), true).verdicts).toEqual([]);
    resources.answered(resources.sent(), answer('createCategory', 'POST', 400, { id: 9 }), true);
    expect(resources.createdFollowed).toBe(1);
  });

  it('follows a bounded number of creations', () => {
    const resources = new ResourceSequences(1);
    resources.answered(resources.sent(), created(1, 'dog'), true);
    resources.answered(resources.sent(), created(2, 'cat'), true);
    expect([resources.createdFollowed, resources.createdNotFollowed]).toEqual([1, 1]);
  });
});

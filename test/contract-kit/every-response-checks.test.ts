import { describe, expect, it } from 'vitest';
import everyResponse from '../../contract-tests/suite/99-every-response.contract.js';
import { responseRules } from '../../spec/interface/response-rules.js';
import { sequenceRules } from '../../spec/interface/sequence-rules.js';

describe('the kit reports every rule of the catalogue under its id', () => {
  it('has a check per response rule, in the catalogue order, then one per sequence rule: a new rule needs no kit edit', () => {
    const ids = everyResponse.checks.map((check) => check.id);
    expect(ids.slice(0, responseRules.length)).toEqual(responseRules.map((rule) => rule.id));
    for (const rule of sequenceRules) expect(ids).toContain(rule.id);
  });
});

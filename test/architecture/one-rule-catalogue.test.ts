import { describe, expect, it } from 'vitest';
import { suiteAreas } from '../../contract-tests/suite/index.js';
import { ruleCatalogue } from '../../spec/interface/catalogue.js';
import { buildSpecModel } from '../../spec/interface/spec-model.js';
import { readSpecFile } from '../../spec/load-spec.js';
import { createProxyJudge } from '../../src/server/proxy-judge.js';

/**
 * One rule catalogue, one id family (decision 033): the judging proxy reports every rule of
 * spec/interface/catalogue.ts under its id and nothing else, and the kit has a check of that id for
 * each, so a server failed by the one is failed under the same name by the other.
 */
describe('the rule catalogue is the one list of rules the kit and the proxy report', () => {
  const ids = ruleCatalogue.map((rule) => rule.id);

  it('gives each rule one id', () => {
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("is exactly the proxy's list of server rules", async () => {
    const judge = createProxyJudge({
      spec: buildSpecModel(await readSpecFile()),
      banPolicy: { enabled: true, threshold: 10, durationMs: 900_000 },
    });
    expect(judge.report('http://upstream.test/v1').server.rules.map((rule) => rule.id)).toEqual(ids);
  });

  it('has a check of the same id and the same title in the kit', () => {
    const checks = new Map(suiteAreas.flatMap((area) => area.checks).map((check) => [check.id, check]));
    for (const rule of ruleCatalogue)
      expect({ id: rule.id, title: checks.get(rule.id)?.title }).toEqual({ id: rule.id, title: rule.title });
  });
});

import { createRedactor } from '../../spec/credential-masking.js';
import type { ObservedExchange, RuleViolation } from '../../spec/interface/observed.js';
import type { ProxyEvidence, ServerRuleResult } from '../ui/proxy-types.js';

/** An answer as the proxy reports it: its number in the traffic, its client's pseudonym and a label without the key. */
export interface JudgedAnswer extends ObservedExchange {
  seq: number;
  client: string;
  /** `GET /v1/categories (client-5e3f0c2a9b1d)` */
  label: string;
}

/**
 * What each server rule found over the traffic: how many answers it judged and failed, and the first
 * `maxEvidence` failing answers as evidence (the rest counted), so memory stays flat however long
 * the proxy runs.
 *
 * @example
 * const tallies = new RuleTallies(responseRules, 10);
 * tallies.record('every.error-status', answer, [{ detail: 'HTTP 401 but body status 400', field: 'status' }], null);
 * tallies.results()[0].outcome; // 'fail'
 */
export class RuleTallies {
  readonly #results = new Map<string, ServerRuleResult>();

  constructor(
    rules: readonly { id: string; rule: string; title: string }[],
    private readonly maxEvidence: number,
  ) {
    for (const { id, rule, title } of rules)
      this.#results.set(id, {
        id,
        rule,
        title,
        outcome: 'not-exercised',
        judged: 0,
        failed: 0,
        evidence: [],
        moreFailures: 0,
      });
  }

  /**
   * Counts one judged answer; its violations, if any, become evidence. `secrets` are the credentials
   * the request carried (held only while it is judged): an upstream that echoed one, whole or cut,
   * is shown masked (the bearer key whole as the client's pseudonym).
   */
  record(id: string, answer: JudgedAnswer, violations: readonly RuleViolation[], secrets: RequestSecrets): void {
    const result = this.#results.get(id)!;
    result.judged += 1;
    if (violations.length === 0) return;
    result.failed += 1;
    if (result.evidence.length >= this.maxEvidence) {
      result.moreFailures += 1;
      return;
    }
    for (const violation of violations.slice(0, 2)) result.evidence.push(evidenceOf(answer, violation, secrets));
  }

  results(): ServerRuleResult[] {
    return [...this.#results.values()].map((result) => ({
      ...result,
      outcome: result.failed > 0 ? 'fail' : result.judged === 0 ? 'not-exercised' : 'pass',
      evidence: [...result.evidence],
    }));
  }

  anyFailed(): boolean {
    for (const result of this.#results.values()) if (result.failed > 0) return true;
    return false;
  }
}

/** The credentials of one request while it is judged: its bearer key and every secret it carried. */
export interface RequestSecrets {
  key: string | null;
  all: readonly string[];
}

function evidenceOf(answer: JudgedAnswer, violation: RuleViolation, secrets: RequestSecrets): ProxyEvidence {
  const { key, all } = secrets;
  const named = key === null ? violation.detail : violation.detail.split(key).join(answer.client);
  return {
    seq: answer.seq,
    time: new Date(answer.receivedAtMs).toISOString(),
    request: answer.label,
    status: answer.response.status,
    detail: all.length === 0 ? named : createRedactor(all)(named),
    ...(violation.header !== undefined ? { header: violation.header } : {}),
    ...(violation.field !== undefined ? { field: violation.field } : {}),
  };
}

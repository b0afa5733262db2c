import type { ObservedExchange, RuleViolation } from './observed.js';
import { resourceRules } from './resource-sequences.js';
import { type ResponseRule, type ResponseRuleContext, responseRules } from './response-rules.js';
import { type SequenceRule, sequenceRules } from './sequence-rules.js';

/**
 * The rule catalogue of the interface: every rule with one id, shared by the kit and the judging
 * proxy, whose reports name the same ids. Response rules judge one exchange
 * (response-rules.ts); sequence rules judge the exchanges of a key in order (sequence-rules.ts,
 * fed through key-sequences.ts), and the exchanges of a resource (resource-sequences.ts: the round
 * trip of every created category in every later list). All are pure functions of what the server sent.
 */
export type CatalogueRule = Pick<ResponseRule, 'id' | 'rule' | 'title' | 'what'> & { kind: 'response' | 'sequence' };

export const ruleCatalogue: readonly CatalogueRule[] = [
  ...responseRules.map(({ id, rule, title, what }) => ({ id, rule, title, what, kind: 'response' as const })),
  ...(sequenceRules as readonly SequenceRule[]).map((entry) => ({ ...entry, kind: 'sequence' as const })),
  ...(resourceRules as readonly SequenceRule[]).map((entry) => ({ ...entry, kind: 'sequence' as const })),
];

/** What one response rule found on one exchange it applies to. */
export interface ResponseVerdict {
  id: string;
  violations: RuleViolation[];
  /** What the rule found open on this exchange (also given to `context.note`). */
  notes: string[];
}

/**
 * Judges one exchange by every response rule that applies to it. A rule that throws on a value
 * from the server (a number or date past what its parser expected) fails the exchange with that as
 * evidence: a malformed value is judged, never a crash of the kit or the proxy.
 *
 * @example judgeResponse(observed, { spec, anonymous: false }).filter((verdict) => verdict.violations.length > 0)
 */
export function judgeResponse(observed: ObservedExchange, context: ResponseRuleContext): ResponseVerdict[] {
  const verdicts: ResponseVerdict[] = [];
  for (const rule of responseRules) {
    const notes: string[] = [];
    const ruleContext: ResponseRuleContext = {
      ...context,
      note: (text) => {
        notes.push(text);
        context.note?.(text);
      },
    };
    try {
      if (rule.applies(observed, ruleContext))
        verdicts.push({ id: rule.id, violations: rule.judge(observed, ruleContext), notes });
    } catch (error) {
      verdicts.push({
        id: rule.id,
        violations: [{ detail: `a value of this answer could not be read: ${(error as Error).message}` }],
        notes,
      });
    }
  }
  return verdicts;
}

import { minuteLimits } from '../../spec/interface/plans.js';
import {
  isLabelledJson,
  jsonBodyParses,
  resetWithinWindow,
  responseRules,
  retryAfterOn429,
  schema,
} from '../../spec/interface/response-rules.js';
import { type SequenceRuleId, sequenceRules } from '../../spec/interface/sequence-rules.js';
import { type CheckRun, defineArea, isSoft, OverBudget } from '../lib/check.js';
import { CheckFailure } from '../lib/check-errors.js';
import { type Evidence, type Exchange, evidenceOf, truncate } from '../lib/exchange.js';
import { retryAtOf } from '../lib/rate-limit-key.js';
import type { RegisterCheck } from '../lib/register-check.js';
import type { JudgedViolation } from '../lib/run-judge.js';

/**
 * The rule catalogue (spec/interface/catalogue.ts) over every exchange of the run, reported last:
 * each answer was judged as it came (contract-tests/lib/run-judge.ts), whatever check sent it, by
 * every response rule (the rate-limit headers of section 8, the Error body of section 7, JSON bodies
 * of section 1, the spec's schema) and by the sequence rules of its key (Remaining, Reset, 429 and
 * Retry-After across the answers of one key). Here each rule becomes a check under its id, with the
 * offending exchanges as evidence. Responses of experimental or beta operations only warn, unless
 * --strict. The judging proxy reads the same catalogue.
 */
const maxEvidence = 6;

/** Why a sequence rule judged nothing in a run. */
const nothingToJudge: Record<SequenceRuleId, string> = {
  'rate.remaining-exact': 'no two answers of one key, sent one after the other in one window, to compare',
  'rate.reset-steady':
    'no two answers of one key, sent one after the other in one window with a readable Reset, to compare',
  'rate.reset-moves-at-rollover':
    "no key's budget came back between two of its answers sent one after the other (no window rolled over under the run's traffic)",
  'rate.429-only-when-exhausted': "no 429 was its key's first or came after a served answer of the key",
  'rate.retry-after-matches-reset':
    'no 429 after a served answer of its key carried a readable Retry-After and X-RateLimit-Reset',
  'rate.retry-after-future': 'no 429 of a key was judged',
  'rate.first-429-no-ban':
    "no 429 came within the window announced by its key's served answer before it, with no other request around it that could have been refused first",
  'rate.ban-announced':
    'no key kept sending after a 429 (the default run never does; --thorough watches what keeping on sending gets)',
  'rate.ban-temporary':
    "no key sent a request once its last 429's Retry-After had passed (a default run does not wait)",
};

/** The sequence rules that judge 429s only: with none in the run, that is the reason they judged nothing. */
const judgesA429: ReadonlySet<SequenceRuleId> = new Set([
  'rate.first-429-no-ban',
  'rate.ban-announced',
  'rate.ban-temporary',
  'rate.429-only-when-exhausted',
  'rate.retry-after-matches-reset',
  'rate.retry-after-future',
]);

/** What a check of one response rule judges, of the answers the rule applied to; undefined when it reported already. */
type Population = (run: CheckRun, population: Exchange[]) => Exchange[] | undefined;

/** The response rules whose population needs a word of its own: why nothing was judged, or what was not. */
const populations: Readonly<Record<string, Population>> = {
  [resetWithinWindow.id]: (run, population) =>
    population.length > 0
      ? population
      : run.skip(
          `no answer to a key reported a plan's per-minute limit (${[...minuteLimits].join(' or ')}): nothing to judge`,
        ),
  [retryAfterOn429.id]: (run, population) =>
    population.length > 0 ? population : run.skip('no response of the run was a 429'),
  [jsonBodyParses.id]: (run, whole) => {
    const labelled = answered(run).filter((exchange) => isLabelledJson({ ...exchange, response: exchange.response! }));
    if (labelled.length === 0) return run.skip('no response of the run was labelled JSON: nothing to judge');
    // A body cut at --max-body-bytes was never parsed: not judged, and said so.
    if (whole.length === 0)
      return run.skip(
        `all ${labelled.length} responses labelled JSON were longer than --max-body-bytes: none read whole, none judged`,
      );
    if (whole.length < labelled.length) {
      judge(run, jsonBodyParses.what, run.state.judge.recordOf(jsonBodyParses.id).violations, whole.length);
      run.note(`${labelled.length - whole.length} bodies longer than --max-body-bytes not judged`);
      return undefined;
    }
    return whole;
  },
  [schema.id]: (run, whole) => {
    const record = run.state.judge.recordOf(schema.id);
    judge(run, schema.what, record.violations, whole.length);
    if (record.notes.length > 0) run.note(`information: ${record.notes.slice(0, 3).join('; ')}`);
    return undefined;
  },
};

export default defineArea('Every response (§1, §7, §8, spec)', 'sequential', (check) => {
  responseRuleChecks(check);
  sequenceRuleChecks(check);
  prismCheck(check);
});

/**
 * A check per response rule, in the catalogue's order (spec/interface/response-rules.ts), over the answers of
 * the run each applied to: a new rule there is a check here with nothing to add. Only a rule whose empty or
 * partial population needs its own words is named in `populations`.
 */
function responseRuleChecks(check: RegisterCheck): void {
  for (const rule of responseRules) {
    const before: Population = populations[rule.id] ?? ((_run, population) => population);
    check({ id: rule.id, rule: rule.rule, title: rule.title }, async (run) => {
      const record = run.state.judge.recordOf(rule.id);
      const population = before(run, record.judged);
      if (population === undefined) return;
      judge(run, rule.what, record.violations, population.length);
    });
  }
}

/** A check per sequence rule: what it judged over the answers of each key, or why it judged nothing. */
function sequenceRuleChecks(check: RegisterCheck): void {
  for (const rule of sequenceRules)
    check({ id: rule.id, rule: rule.rule, title: rule.title }, async (run) => {
      const record = run.state.judge.recordOf(rule.id);
      if (rule.id === 'rate.ban-temporary' && record.violations.length === 0) unendedBan(run);
      if (record.judged.length === 0)
        return run.skip(
          judgesA429.has(rule.id) && !answered(run).some((exchange) => exchange.response?.status === 429)
            ? 'no response of the run was a 429'
            : nothingToJudge[rule.id],
        );
      judge(run, rule.what, record.violations, record.judged.length);
      // What the interface leaves open, as this server chose it (a sliding window, an early Retry-After).
      if (record.notes.length > 0)
        run.info(record.notes.slice(0, 3).join('; '), [
          { request: `${record.judged.length} answers judged`, detail: 'none broke the rule' },
        ]);
    });
}

/** What Prism's validating proxy found in the responses it forwarded (--via-prism). */
function prismCheck(check: RegisterCheck): void {
  check(
    {
      id: 'every.prism',
      rule: 'spec (Prism)',
      title: "Prism's validating proxy finds no violation in the server's responses",
    },
    async (run) => {
      if (!run.target.viaPrism) return run.skip('only with --via-prism');
      const forwarded = run.state.exchanges.filter(
        (exchange) => exchange.response !== undefined && !exchange.bypassedPrism,
      );
      const violations: JudgedViolation[] = [];
      const notes: string[] = [];
      let requestSide = 0;
      for (const exchange of forwarded) {
        for (const violation of exchange.prismViolations) {
          if (violation.location[0] !== 'response') {
            requestSide += 1;
            continue;
          }
          const place = violation.location.slice(1).join('.');
          violations.push({ exchange, detail: `Prism: ${place === '' ? 'response' : place}: ${violation.message}` });
        }
      }
      if (requestSide > 0)
        notes.push(
          `Prism also flagged ${requestSide} request-side violations, expected for the kit's deliberately invalid requests`,
        );
      const answeredByPrism = run.state.exchanges.filter((exchange) => exchange.answeredByPrism).length;
      if (answeredByPrism > 0)
        notes.push(`Prism answered ${answeredByPrism} requests itself instead of forwarding them`);
      judge(run, 'responses violate the spec according to Prism', violations, forwarded.length);
      if (notes.length > 0) run.note([...new Set(notes)].join('; '));
    },
  );
}

/**
 * A key that kept sending after a 429 and whose last answer is still a 429: the end of that ban (or
 * refusal) was not seen, so rate.ban-temporary is INCONCLUSIVE, naming the wait that would see it,
 * whatever it judged on other waits.
 */
function unendedBan(run: CheckRun): void {
  const [unended] = run.state.judge.unendedRefusals();
  if (unended === undefined) return;
  const retryAt = retryAtOf(unended.last);
  const seconds = retryAt === undefined ? undefined : Math.ceil((retryAt - unended.last.receivedAtMs) / 1000);
  throw new OverBudget(
    `after ${unended.refusedInRow} requests refused in a row, the key's last 429 said to come back in ${seconds ?? 'an unreadable number of'} s, past what this run may wait: whether the ban ends then is not seen (--window-wait ${Math.max(3_600, (seconds ?? 0) + 120)} and a --deadline as long would check it)`,
  );
}

/** Exchanges that got a response from the server itself (not from Prism in its place). */
function answered(run: CheckRun): Exchange[] {
  return run.state.exchanges.filter((exchange) => exchange.response !== undefined && !exchange.answeredByPrism);
}

/** The evidence of one violation: the exchange that shows it, and for a pair rule the key's answer before it. */
function evidenceOfViolation(violation: JudgedViolation): Evidence[] {
  const where = {
    ...(violation.header ? { header: violation.header } : {}),
    ...(violation.field ? { field: violation.field } : {}),
  };
  if (violation.before === undefined) return [evidenceOf(violation.exchange, violation.detail, where)];
  const shows = violation.which === 'before' ? violation.before : violation.exchange;
  const other = violation.which === 'before' ? violation.exchange : violation.before;
  return [
    evidenceOf(shows, violation.detail, where),
    evidenceOf(other, violation.which === 'before' ? 'the answer after it' : "the key's answer before it"),
  ];
}

/**
 * Fails with the first few offenders as evidence; violations that all come from experimental or
 * beta operations only warn (unless --strict).
 */
function judge(run: CheckRun, what: string, violations: readonly JudgedViolation[], total: number): void {
  run.judged(total);
  const hard = violations.filter((violation) => !isSoft(run, violation.exchange.operationId));
  const shown = (list: readonly JudgedViolation[]): Evidence[] =>
    list.slice(0, maxEvidence).flatMap(evidenceOfViolation);
  const summary = (list: readonly JudgedViolation[]) => {
    // One example per kind: details that differ only in their numbers (times, ids) are one kind.
    const kinds = new Map<string, string>();
    for (const violation of list) {
      const text = truncate(violation.summary ?? violation.detail, 200);
      const kind = text.replace(/\d+/g, '#');
      if (!kinds.has(kind)) kinds.set(kind, text);
    }
    const distinct = [...kinds.values()];
    return `${list.length} of ${total} ${what}: ${distinct.slice(0, 3).join('; ')}${distinct.length > 3 ? `; and ${distinct.length - 3} more kinds` : ''}`;
  };
  if (hard.length > 0) {
    const evidence = shown(hard);
    if (hard.length > maxEvidence)
      evidence.push({ request: `(and ${hard.length - maxEvidence} more responses)`, detail: '' });
    throw new CheckFailure(summary(hard), evidence);
  }
  if (violations.length > 0) {
    run.warn(`only experimental/beta operations (x-stability): ${summary(violations)}`, shown(violations));
    return;
  }
  run.note(`${total} responses checked`);
}

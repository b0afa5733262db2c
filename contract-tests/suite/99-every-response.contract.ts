import type { RuleViolation } from '../../spec/interface/observed.js';
import { minuteLimits } from '../../spec/interface/plans.js';
import {
  dateHeader,
  errorShape,
  errorStatus,
  isLabelledJson,
  jsonBodyParses,
  jsonContentType,
  notDeprecated,
  type ResponseRule,
  type ResponseRuleContext,
  rateHeadersIntegers,
  rateHeadersPresent,
  rateResetSeconds,
  resetWithinWindow,
  retryAfterOn429,
  schema,
} from '../../spec/interface/response-rules.js';
import { type CheckRun, defineArea, isSoft } from '../lib/check.js';
import { CheckFailure } from '../lib/check-errors.js';
import { type Evidence, type Exchange, type ExchangeResponse, evidenceOf, truncate } from '../lib/exchange.js';

/**
 * The rules that hold for every response, judged over every exchange of the run (this file runs
 * last): the rate-limit headers of section 8, the Error body of section 7, JSON bodies (section 1:
 * labelled JSON, and a body that parses when labelled so) and the spec's schema for each operation
 * and status. Responses of experimental or beta operations only warn, unless --strict. The rules
 * themselves live in spec/interface/response-rules.ts, which the judging proxy reads too.
 */
interface Violation extends RuleViolation {
  exchange: Exchange;
}

const maxEvidence = 6;

export default defineArea('Every response (§1, §7, §8, spec)', 'sequential', (check) => {
  /** A check of one response rule over the answers of the run it applies to. */
  const everyResponse = (
    rule: ResponseRule,
    before: (run: CheckRun, population: Answered[]) => Answered[] | undefined = (_run, population) => population,
  ) =>
    check({ id: rule.id, rule: rule.rule, title: rule.title }, async (run) => {
      const population = before(
        run,
        answered(run).filter(({ exchange }) => rule.applies(observedOf(exchange), contextOf(run, exchange))),
      );
      if (population === undefined) return;
      judge(run, rule.what, violationsOf(run, rule, population), population.length);
    });

  everyResponse(rateHeadersPresent);
  everyResponse(rateHeadersIntegers);
  everyResponse(rateResetSeconds);
  everyResponse(resetWithinWindow, (run, population) =>
    population.length > 0
      ? population
      : run.skip(
          `no answer to a key reported a plan's per-minute limit (${[...minuteLimits].join(' or ')}): nothing to judge`,
        ),
  );
  everyResponse(retryAfterOn429, (run, population) =>
    population.length > 0 ? population : run.skip('no response of the run was a 429'),
  );
  everyResponse(dateHeader);
  everyResponse(notDeprecated);
  everyResponse(errorShape);
  everyResponse(errorStatus);
  everyResponse(jsonContentType);
  everyResponse(jsonBodyParses, (run, whole) => {
    const labelled = answered(run).filter(({ exchange }) => isLabelledJson(observedOf(exchange)));
    if (labelled.length === 0) return run.skip('no response of the run was labelled JSON: nothing to judge');
    // A body cut at --max-body-bytes was never parsed: not judged, and said so.
    if (whole.length === 0)
      return run.skip(
        `all ${labelled.length} responses labelled JSON were longer than --max-body-bytes: none read whole, none judged`,
      );
    if (whole.length < labelled.length) {
      judge(run, jsonBodyParses.what, violationsOf(run, jsonBodyParses, whole), whole.length);
      run.note(`${labelled.length - whole.length} bodies longer than --max-body-bytes not judged`);
      return undefined;
    }
    return whole;
  });
  everyResponse(schema, (run, whole) => {
    const notes: string[] = [];
    judge(
      run,
      schema.what,
      violationsOf(run, schema, whole, (note) => notes.push(note)),
      whole.length,
    );
    if (notes.length > 0) run.note(`information: ${[...new Set(notes)].slice(0, 3).join('; ')}`);
    return undefined;
  });

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
      const violations: Violation[] = [];
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
});

type Answered = { exchange: Exchange; response: ExchangeResponse };

/** Exchanges that got a response from the server itself (not from Prism in its place). */
function answered(run: CheckRun): Answered[] {
  return run.state.exchanges.flatMap((exchange) =>
    exchange.response !== undefined && !exchange.answeredByPrism ? [{ exchange, response: exchange.response }] : [],
  );
}

/** An exchange with its response, as the shared rules read it. */
function observedOf(exchange: Exchange) {
  return { ...exchange, response: exchange.response! };
}

function contextOf(run: CheckRun, exchange: Exchange, note?: (text: string) => void): ResponseRuleContext {
  return { spec: run.spec, anonymous: exchange.identity === 'anonymous', ...(note ? { note } : {}) };
}

function violationsOf(
  run: CheckRun,
  rule: ResponseRule,
  population: Answered[],
  note?: (text: string) => void,
): Violation[] {
  return population.flatMap(({ exchange }) =>
    rule.judge(observedOf(exchange), contextOf(run, exchange, note)).map((violation) => ({ exchange, ...violation })),
  );
}

/**
 * Fails with the first few offenders as evidence; violations that all come from experimental or
 * beta operations only warn (unless --strict).
 */
function judge(run: CheckRun, what: string, violations: Violation[], total = answered(run).length): void {
  run.judged(total);
  const hard = violations.filter((violation) => !isSoft(run, violation.exchange.operationId));
  const shown = (list: Violation[]): Evidence[] =>
    list.slice(0, maxEvidence).map((violation) =>
      evidenceOf(violation.exchange, violation.detail, {
        ...(violation.header ? { header: violation.header } : {}),
        ...(violation.field ? { field: violation.field } : {}),
      }),
    );
  const summary = (list: Violation[]) => {
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

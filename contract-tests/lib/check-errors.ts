import type { Evidence } from './exchange.js';

/**
 * A check found that the server breaks its rule. Carries the evidence the report prints.
 *
 * @example throw new CheckFailure('expected 401, got 200', [evidenceOf(exchange, 'status 200')])
 */
export class CheckFailure extends Error {
  readonly evidence: Evidence[];

  constructor(message: string, evidence: Evidence[] = []) {
    super(message);
    this.name = 'CheckFailure';
    this.evidence = evidence;
  }
}

/**
 * A check could not reach a verdict for reasons outside its rule: an unprovoked 429, a rate
 * budget that would need a longer wait than --max-wait allows, or Prism answering in the
 * server's place. Reported as SKIP with the reason, never as a failure.
 *
 * @example throw new InconclusiveError('rate-limited (429 on GET /categories), inconclusive')
 */
export class InconclusiveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InconclusiveError';
  }
}

/** Thrown by `run.skip()` and `run.inconclusive()`. */
export class SkipCheck extends Error {
  constructor(
    message: string,
    readonly inconclusive: boolean,
  ) {
    super(message);
    this.name = 'SkipCheck';
  }
}

/** How every over-budget message starts, so reports can show those cells as INCONCLUSIVE. */
const overBudgetPrefix = 'INCONCLUSIVE for this cell (over budget)';

/**
 * A check needs more waiting or more requests than the run's budgets allow (--window-wait,
 * --max-requests, --deadline). It ends as SKIP, never PASS, and only its own cell of the matrix
 * is INCONCLUSIVE: the run's verdict is not, because the user chose those budgets.
 *
 * @example throw new OverBudget('watching the window reset needs 47 s of waiting; --window-wait allows 0 s more');
 */
export class OverBudget extends SkipCheck {
  constructor(need: string) {
    super(`${overBudgetPrefix}: ${need}`, false);
    this.name = 'OverBudget';
  }
}

/** Is this message (a SKIP's) one of an over-budget cell? */
export function isOverBudget(message: string | undefined): boolean {
  return message?.startsWith(overBudgetPrefix) === true;
}

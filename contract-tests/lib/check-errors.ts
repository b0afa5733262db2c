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

import { randomInt } from 'node:crypto';
import { dimensionMatrix } from '../report/coverage-matrix.js';
import type { CheckResult } from '../report/report-model.js';

/**
 * The two profiles of a run (issue 39, item 4). The default run is what a pull request affords:
 * under 30 s against our mock, no waiting on purpose, one variant per generated class. `--thorough`
 * (a nightly job, at most 10 minutes against a correct server) also spends time and budget: it
 * waits windows out (--window-wait), sends every variant of every class and more property runs,
 * and may exhaust the main key's minute with --exhaust-main-key. An option given explicitly wins
 * over its profile's value, so `--window-wait N` keeps working as before.
 */
export const profiles = {
  // 260 categories at most on a shared staging server (there is no delete): every check's own share, and list.all
  // what is left; --create-budget N raises it (decision 038).
  default: { windowWaitSeconds: 0, maxWaitSeconds: 120, deadlineSeconds: 300, propertyRuns: 15, createBudget: 260 },
  // 8 minutes of waiting on purpose, and as much for windows the pacing must wait out (requests without a key
  // spend the address's small budget), inside the 10 minutes the nightly job allows (--deadline); enough
  // categories for every variant of every class and for the list to cross a page of 100.
  thorough: { windowWaitSeconds: 480, maxWaitSeconds: 480, deadlineSeconds: 600, propertyRuns: 45, createBudget: 440 },
} as const;

export type ProfileName = keyof typeof profiles;

/** The options a profile sets, for the options left unset. */
export function profileDefaults(thorough: boolean): (typeof profiles)[ProfileName] {
  return thorough ? profiles.thorough : profiles.default;
}

/**
 * The run's seed: the one given (`--seed N` repeats a run), else a fresh one, printed at the
 * start, so that each run explores other picks within each class and any run can be repeated.
 *
 * @example runSeed(undefined) // 1838203 (any 31-bit integer)
 */
export function runSeed(given: number | undefined): number {
  return given ?? randomInt(0, 2 ** 31 - 1);
}

/**
 * The line printed before the first request: profile, seed, and the run's budget in requests,
 * categories and time.
 *
 * @example budgetLine({ thorough: false, seed: 7, mayCreate: 260, createBudget: 260, maxRequests: 1100, rateLimitKey: true, deadlineSeconds: 300, windowWaitSeconds: 0, exhaustMainKey: false })
 */
export function budgetLine(run: {
  thorough: boolean;
  seed: number;
  mayCreate: number;
  createBudget: number;
  maxRequests: number;
  rateLimitKey: boolean;
  deadlineSeconds: number;
  windowWaitSeconds: number;
  exhaustMainKey: boolean;
}): string {
  const requests = [
    'the main key and requests without a key as their X-RateLimit-Remaining allows',
    run.exhaustMainKey ? 'the main key up to its 429 (--exhaust-main-key)' : 'the main key never into a 429',
    run.rateLimitKey ? `the rate-limit key at most ${run.maxRequests} (--max-requests)` : 'no rate-limit key',
  ].join('; ');
  return `petstore-contract: profile ${run.thorough ? 'thorough' : 'default (--thorough spends time and budget)'}, seed ${run.seed} (--seed ${run.seed} repeats this run's picks); budget: requests: ${requests}; categories: at most ${run.mayCreate} (--create-budget ${run.createBudget}; the ${run.thorough ? 'thorough' : 'default'} profile's is ${profileDefaults(run.thorough).createBudget}); time: at most ${run.deadlineSeconds} s (--deadline), of it ${run.windowWaitSeconds} s waiting on purpose (--window-wait)`;
}

/** The option that would let a check that could not afford its cell run it. */
function remedyOf(message: string, thorough: boolean): string {
  if (/--rate-limit-key/.test(message)) return '--rate-limit-key';
  if (/--read-only|read-only/.test(message)) return 'a run without --read-only';
  if (/--max-requests/.test(message)) return '--max-requests (higher)';
  if (/--create-budget/.test(message)) return '--create-budget (higher)';
  if (/--max-body-bytes/.test(message)) return '--max-body-bytes (higher)';
  if (/--max-wait|rate budget exhausted/.test(message)) return '--max-wait (higher)';
  if (/--exhaust-main-key/.test(message)) return '--thorough --exhaust-main-key';
  if (/--window-wait|--deadline|waiting|wait/.test(message))
    return thorough ? '--window-wait (higher than the profile) and --deadline' : '--thorough (or --window-wait N)';
  return thorough ? 'a longer --deadline' : '--thorough';
}

/** A cell of the rule x dimension matrix a run could not afford, and what would check it. */
export interface UnaffordedCell {
  rule: string;
  /** The dimension's title (`Time`, `Operation x key`). */
  dimension: string;
  status: 'INCONCLUSIVE' | 'not run';
  /** The checks that stopped (SKIP with a reason); empty when no check of the cell ran. */
  checks: string[];
  /** The profile or flag that would judge it: `--thorough (or --window-wait N)`. */
  remedy: string;
}

/**
 * Every cell of the rule x dimension matrix this run could not afford (INCONCLUSIVE or not run),
 * with the checks and the profile or flag that would judge it: printed at the end of a run and
 * drawn by the HTML report, so that a cell nobody saw is never taken for a PASS.
 *
 * @example unaffordedCellList(results, false)[0] // { rule: '§8.1', dimension: 'Time', status: 'INCONCLUSIVE', checks: ['rate.day-rollover'], remedy: '--thorough (or --window-wait N)' }
 */
export function unaffordedCellList(results: readonly CheckResult[], thorough: boolean): UnaffordedCell[] {
  const matrix = dimensionMatrix(results);
  const titles = new Map(matrix.columns.map((column) => [column.id, column.title]));
  return matrix.rows.flatMap((row) =>
    Object.entries(row.cells).flatMap(([dimension, cell]): UnaffordedCell[] => {
      if (cell.status !== 'INCONCLUSIVE' && cell.status !== 'not run') return [];
      const stopped = results.filter(
        (result) => cell.checks.includes(result.id) && result.status === 'SKIP' && result.message !== undefined,
      );
      const remedy =
        stopped.length === 0
          ? thorough
            ? 'a longer --deadline'
            : '--thorough'
          : remedyOf(stopped.map((result) => result.message).join(' '), thorough);
      return [
        {
          rule: row.rule,
          dimension: titles.get(dimension as never) ?? dimension,
          status: cell.status,
          checks: stopped.map((result) => result.id),
          remedy,
        },
      ];
    }),
  );
}

/**
 * The cells of `unaffordedCellList` as the lines printed at the end of a run.
 *
 * @example unaffordedCells(results, false)[0] // '§8.1 x Time: INCONCLUSIVE (rate.day-rollover): --thorough (or --window-wait N) would check it'
 */
export function unaffordedCells(results: readonly CheckResult[], thorough: boolean): string[] {
  return unaffordedCellList(results, thorough).map(
    (cell) =>
      `${cell.rule} x ${cell.dimension}: ${cell.status} (${cell.checks.length === 0 ? 'no check ran' : cell.checks.join(', ')}): ${cell.remedy} would check it`,
  );
}

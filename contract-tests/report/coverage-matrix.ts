import { isOverBudget } from '../lib/check-errors.js';
import { type Dimension, dimensions, matchesReference, ruleMatrix } from '../lib/rule-matrix.js';
import type { CheckResult, CheckStatus } from './report-model.js';
import type { CoverageMatrix, DimensionCell, DimensionMatrix, MatrixCell } from './report-schema.js';

// The matrices' types are the JSON report's (report-schema.ts), which carries them as `coverage`.
export type { CoverageMatrix, DimensionCell, DimensionMatrix, MatrixCell };

const everyResponseColumn = '(every response)';
const severity: Record<CheckStatus, number> = { FAIL: 4, SKIP: 3, WARN: 2, INFO: 1, PASS: 0 };

/**
 * Builds the coverage matrix of a run from its results. Rules keep the order in which the suite
 * first names them; operations the order of first appearance.
 *
 * @example coverageMatrix(report.results).rows[0] // { rule: '§5.3', cells: { 'GET /categories': { status: 'PASS', counts: { PASS: 5 }, cases: 0 } } }
 */
export function coverageMatrix(results: readonly CheckResult[]): CoverageMatrix {
  const operations: string[] = [];
  const rows = new Map<string, Record<string, MatrixCell>>();
  for (const result of results) {
    const column = result.operation ?? everyResponseColumn;
    if (!operations.includes(column)) operations.push(column);
    // No prototype: an operation or rule named `constructor` or `__proto__` (a generic document's) is a cell like any other.
    const cells = rows.get(result.rule) ?? (Object.create(null) as Record<string, MatrixCell>);
    rows.set(result.rule, cells);
    const cell = (cells[column] ??= { status: result.status, counts: {}, cases: 0 });
    cell.counts[result.status] = (cell.counts[result.status] ?? 0) + 1;
    cell.cases += result.cases ?? 0;
    if (severity[result.status] > severity[cell.status]) cell.status = result.status;
    if (result.status === 'SKIP' && cell.skipReason === undefined) cell.skipReason = result.message ?? 'skipped';
  }
  const ordered = [
    ...operations.filter((name) => name !== everyResponseColumn),
    ...(operations.includes(everyResponseColumn) ? [everyResponseColumn] : []),
  ];
  return {
    operations: ordered,
    rows: [...rows.entries()].map(([rule, cells]) => ({ rule, cells })),
    dimensions: dimensionMatrix(results),
  };
}

/**
 * The rule x dimension matrix of a run: every cell of lib/rule-matrix.ts with the checks that
 * judged it and their worst status. A check that was over budget makes its cell INCONCLUSIVE,
 * never PASS.
 *
 * @example dimensionMatrix(report.results).rows[0].cells.negotiation // { status: 'PASS', checks: ['negotiation.accept:listCategories', 'coverage.media-types:createCategory'] }
 */
export function dimensionMatrix(results: readonly CheckResult[]): DimensionMatrix {
  const rank = (status: DimensionCell['status']) =>
    ['PASS', 'INFO', 'WARN', 'not run', 'SKIP', 'INCONCLUSIVE', 'FAIL'].indexOf(status);
  return {
    columns: dimensions.map(({ id, title }) => ({ id, title })),
    rows: ruleMatrix.map((row) => {
      const cells = {} as Record<Dimension, DimensionCell>;
      for (const { id } of dimensions) {
        const entry = row.cells[id];
        if ('reason' in entry) {
          cells[id] = { status: 'n/a', checks: [], reason: entry.reason };
          continue;
        }
        const judged = results.filter((result) =>
          entry.checks.some((reference) => matchesReference(result.id, reference)),
        );
        let status: DimensionCell['status'] = judged.length === 0 ? 'not run' : 'PASS';
        for (const result of judged) {
          const own: DimensionCell['status'] =
            result.status === 'SKIP' && (result.inconclusive === true || isOverBudget(result.message))
              ? 'INCONCLUSIVE'
              : result.status;
          if (rank(own) > rank(status)) status = own;
        }
        cells[id] = { status, checks: judged.map((result) => result.id) };
      }
      return { rule: row.rule, says: row.says, cells };
    }),
  };
}

/**
 * A rule x dimension cell as short text: `PASS 3`, `INCONCLUSIVE`, `n/a`.
 *
 * @example describeDimensionCell({ status: 'PASS', checks: ['list.ok', 'http.head'] }) // 'PASS 2'
 */
export function describeDimensionCell(cell: DimensionCell): string {
  return cell.status === 'n/a' || cell.status === 'not run' ? cell.status : `${cell.status} ${cell.checks.length}`;
}

/**
 * A cell as short text: `PASS 4`, `FAIL 1/4`, `SKIP 2 (needs --rate-limit-key)`, plus `· 40 cases`.
 *
 * @example describeCell({ status: 'PASS', counts: { PASS: 4 }, cases: 0 }) // 'PASS 4'
 */
export function describeCell(cell: MatrixCell | undefined, withReason = true): string {
  if (cell === undefined) return '-';
  const total = Object.values(cell.counts).reduce((sum, count) => sum + (count ?? 0), 0);
  const own = cell.counts[cell.status] ?? 0;
  const count = own === total ? String(total) : `${own}/${total}`;
  const reason =
    withReason && cell.status === 'SKIP' && cell.skipReason !== undefined ? ` (${shorten(cell.skipReason, 48)})` : '';
  return `${cell.status} ${count}${reason}${cell.cases > 0 ? ` · ${cell.cases} cases` : ''}`;
}

function shorten(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}

import { coverageMatrix } from './coverage-matrix.js';
import type { ContractReport } from './report-model.js';

/**
 * The report as JSON: the whole `ContractReport` plus its coverage matrix, for tools and
 * dashboards. Evidence is kept as the server sent it (JSON escapes control characters itself).
 *
 * @example JSON.parse(renderJsonReport(report)).summary.FAIL // 0
 */
export function renderJsonReport(report: ContractReport): string {
  return `${JSON.stringify({ ...report, coverage: coverageMatrix(report.results) }, null, 2)}\n`;
}

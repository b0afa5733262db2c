import { coverageMatrix } from './coverage-matrix.js';
import type { ContractReport } from './report-model.js';
import { reportVersion } from './report-schema.js';

/**
 * The report as JSON: its version, the whole `ContractReport` and its coverage matrix, for tools and
 * dashboards (its schema: report-schema.ts, published as schemas/contract-report.v1.schema.json). Evidence is kept as the server sent it (JSON escapes control characters itself).
 *
 * @example JSON.parse(renderJsonReport(report)).summary.FAIL // 0
 */
export function renderJsonReport(report: ContractReport): string {
  return `${JSON.stringify({ reportVersion, ...report, coverage: coverageMatrix(report.results) }, null, 2)}\n`;
}

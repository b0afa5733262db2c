import type { ContractReport } from './report-model.js';

/**
 * The report as JSON: the whole `ContractReport`, for tools and dashboards.
 *
 * @example JSON.parse(renderJsonReport(report)).summary.FAIL // 0
 */
export function renderJsonReport(report: ContractReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

/**
 * The contract kit's programmatic entry (`petstore-kit/contract`): run the suite against a server
 * and render its report in any format.
 *
 * @example
 * import { runContract, renderMarkdownReport } from 'petstore-kit/contract';
 * const { report, exitCode } = await runContract({ baseUrl: 'http://127.0.0.1:4010/v1', apiKey: 'demo-pro' });
 * console.log(renderMarkdownReport(report));
 * await writeFile('contract.sarif', await renderReport(report, 'sarif', { colour: false, listChecks: true, cwd: process.cwd() }));
 */

export { type CoverageMatrix, coverageMatrix } from './report/coverage-matrix.js';
export { type FailureGroup, groupFailures } from './report/failure-groups.js';
export { renderHtmlReport } from './report/html-report.js';
export { renderHumanReport, renderSummaryLine } from './report/human-report.js';
export { renderJsonReport } from './report/json-report.js';
export { renderJunitReport } from './report/junit-report.js';
export { renderMarkdownReport } from './report/markdown-report.js';
export { type ReportFormat, renderReport, reportFormatNames } from './report/report-formats.js';
export {
  type CheckResult,
  type CheckStatus,
  type ContractReport,
  exitCodes,
  type Verdict,
} from './report/report-model.js';
export { type JsonReport, parseJsonReport } from './report/report-schema.js';
export { renderSarifFile } from './report/sarif-report.js';
export type { ContractOptions } from './runner/contract-options.js';
export { ContractRunError } from './runner/contract-run-error.js';
export { kitVersion } from './runner/kit-version.js';
export { type ContractRun, runContract, timeTolerance } from './runner/run-contract.js';

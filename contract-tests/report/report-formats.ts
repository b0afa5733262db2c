import { renderHtmlReport } from './html-report.js';
import { renderHumanReport } from './human-report.js';
import { renderJsonReport } from './json-report.js';
import { renderJunitReport } from './junit-report.js';
import { renderMarkdownReport } from './markdown-report.js';
import type { ContractReport } from './report-model.js';

/**
 * Every format a run's report can be written in, each made from the one `ContractReport` of the
 * run: `--report FORMAT=FILE` (repeatable) writes several from one run, never by running again.
 */
export const reportFormatNames = ['human', 'json', 'junit', 'markdown', 'html', 'sarif'] as const;
export type ReportFormat = (typeof reportFormatNames)[number];

/** How a format is written where it goes. */
export interface RenderContext {
  /** ANSI colour (human, on a terminal only). */
  colour: boolean;
  /** List every check (human): false when the live lines already reached the reader. */
  listChecks: boolean;
  /** The working directory: SARIF's artifact paths are relative to it. */
  cwd: string;
}

/** What each format is for (the help text and the docs say the same), and how it is made. */
export const reportFormats: Record<
  ReportFormat,
  { purpose: string; render: (report: ContractReport, context: RenderContext) => string | Promise<string> }
> = {
  human: {
    purpose: 'the table for a terminal (the default)',
    render: (report, context) => renderHumanReport(report, context),
  },
  json: { purpose: 'everything, with the coverage matrix, for tools', render: (report) => renderJsonReport(report) },
  junit: { purpose: 'JUnit XML for CI test views', render: (report) => renderJunitReport(report) },
  markdown: { purpose: 'a CI job summary', render: (report) => renderMarkdownReport(report) },
  html: { purpose: 'one self-contained page to attach to a job', render: (report) => renderHtmlReport(report) },
  sarif: {
    purpose: 'SARIF 2.1.0 for code scanning, located in the OpenAPI document',
    // Loaded only when asked for: it reads the document's text to find the lines.
    render: async (report, context) => (await import('./sarif-report.js')).renderSarifFile(report, context.cwd),
  },
};

/**
 * Whether `name` is a format, for a message that lists them when it is not.
 *
 * @example isReportFormat('sarif') // true
 */
export function isReportFormat(name: string): name is ReportFormat {
  return (reportFormatNames as readonly string[]).includes(name);
}

/**
 * The report in one format.
 *
 * @example await writeFile('contract.sarif', await renderReport(report, 'sarif', { colour: false, listChecks: true, cwd: process.cwd() }));
 */
export function renderReport(
  report: ContractReport,
  format: ReportFormat,
  context: RenderContext,
): string | Promise<string> {
  return reportFormats[format].render(report, context);
}

import { failuresSection, inconclusiveSection } from './html/html-failures.js';
import { checksSection, coverageSection } from './html/html-matrix.js';
import { page } from './html/html-page.js';
import { rulesSection } from './html/html-rules.js';
import { summarySection, verdictOf } from './html/html-summary.js';
import { html } from './html/html-text.js';
import { timelineSection } from './html/html-timeline.js';
import type { ContractReport } from './report-model.js';

/**
 * The report as one self-contained HTML file, to attach to a CI job and open anywhere: the verdict
 * and counts, the failures grouped by cause (evidence and a curl each), the coverage matrix, what
 * this run could not judge and what would, the run's requests per key drawn by the lab's timeline
 * with the rate-limit story, every check, and each rule linked to its section of the interface.
 *
 * Nothing leaves the file: styles and the one small script are inline, and the page's
 * Content-Security-Policy (`default-src 'none'`, style and script by hash) forbids every request.
 * Every text of the report passes html/html-text.ts (escaped, controls made visible, credentials
 * masked by the masking step's patterns), so a hostile server's body, header or id shows as text.
 * Pure: same report, same bytes. docs/decisions/045-self-contained-html-report.md.
 *
 * @example await writeFile('contract-report.html', renderHtmlReport(report));
 */
export function renderHtmlReport(report: ContractReport): string {
  const body = [
    '<main>',
    summarySection(report),
    failuresSection(report),
    inconclusiveSection(report),
    coverageSection(report),
    timelineSection(report),
    checksSection(report),
    rulesSection(report),
    `<footer>petstore-contract ${html(report.tool.version)} · run <span class="mono">${html(report.runId)}</span> · one file, no request leaves it (Content-Security-Policy: default-src 'none')</footer>`,
    '</main>',
  ].filter((part) => part !== '');
  return page(html(`petstore-contract: ${verdictOf(report)} · ${report.target.baseUrl}`), body.join('\n'));
}

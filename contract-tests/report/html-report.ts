import { describeEvidence } from './human-report.js';
import type { ContractReport } from './report-model.js';

/**
 * The report as one self-contained HTML5 page: title, verdict, counts and the failed checks with
 * their first evidence. Nothing leaves the page (no script, no style sheet, no image; the CSP says
 * so). A minimal page so that `--report html=FILE` works end to end; the full page (failures by
 * cause, the coverage matrix, the timeline) is written by the html-report work of issue 41.
 *
 * @example await writeFile('contract.html', renderHtmlReport(report));
 */
export function renderHtmlReport(report: ContractReport): string {
  const verdict = report.verdict ?? (report.conforms ? 'CONFORMS' : 'DOES NOT CONFORM');
  const { summary } = report;
  const failures = report.results.filter((result) => result.status === 'FAIL');
  const items = failures.map(
    (result) =>
      `<li><strong>${html(result.rule)}</strong> ${html(result.title)}${result.operation === undefined ? '' : ` [${html(result.operation)}]`}: ${html(result.message ?? '')}${result.evidence[0] === undefined ? '' : `<br><code>${html(describeEvidence(result.evidence[0]))}</code>`}</li>`,
  );
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>petstore-contract: ${html(verdict)} · ${html(report.target.baseUrl)}</title>
</head>
<body>
<h1>petstore-contract: ${html(verdict)} (exit ${report.exitCode})</h1>
<p>Target ${html(report.target.baseUrl)} against ${html(report.spec.title)} ${html(report.spec.version)} · run ${html(report.runId)} · seed ${report.settings.seed}</p>
<p>${summary.total} checks: ${summary.PASS} PASS · ${summary.FAIL} FAIL · ${summary.SKIP} SKIP · ${summary.INFO} INFO · ${summary.WARN} WARN · ${summary.requests} requests</p>
<h2>Failures</h2>
${failures.length === 0 ? '<p>None.</p>' : `<ul>\n${items.join('\n')}\n</ul>`}
</body>
</html>
`;
}

/** Text as HTML: every character markup could read escaped. */
function html(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

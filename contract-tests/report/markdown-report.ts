import { coverageMatrix, describeCell } from './coverage-matrix.js';
import { describeEvidence } from './human-report.js';
import type { ContractReport } from './report-model.js';

/**
 * The report as GitHub-flavoured Markdown, for CI job summaries (`>> $GITHUB_STEP_SUMMARY`):
 * verdict, counts, requests per key, the coverage matrix, then every FAIL (and INCONCLUSIVE SKIP)
 * with its evidence. Secrets are already masked in the report; whatever a server sent is escaped
 * so it can neither break the table nor inject markup, links or HTML.
 *
 * @example await appendFile(process.env.GITHUB_STEP_SUMMARY!, renderMarkdownReport(report));
 */
export function renderMarkdownReport(report: ContractReport): string {
  const { summary } = report;
  const verdict = report.verdict ?? (report.conforms ? 'CONFORMS' : 'DOES NOT CONFORM');
  const icon = verdict === 'CONFORMS' ? '✅' : verdict === 'INCONCLUSIVE' ? '⚠️' : '❌';
  const lines: string[] = [];
  lines.push(`## ${icon} petstore-contract: ${verdict} (exit ${report.exitCode})`, '');
  lines.push(`Target ${inline(report.target.baseUrl)} against ${md(report.spec.title)} ${md(report.spec.version)} · run ${inline(report.runId)} · seed ${report.settings.seed} · ${(report.durationMs / 1000).toFixed(1)} s`, '');
  if (report.stoppedBy !== undefined) lines.push(`Stopped by: ${md(report.stoppedBy.join('; '))}`, '');
  lines.push(`| Checks | PASS | FAIL | SKIP | INFO | WARN | Requests |`, `|---:|---:|---:|---:|---:|---:|---:|`);
  lines.push(`| ${summary.total} | ${summary.PASS} | ${summary.FAIL} | ${summary.SKIP} | ${summary.INFO} | ${summary.WARN} | ${summary.requests} |`, '');
  const byKey = Object.entries(report.requestsByKey ?? {});
  if (byKey.length > 0) lines.push(`Requests by key: ${byKey.map(([key, count]) => `${md(key)} ${count}`).join(' · ')}${report.createdCategories === undefined ? '' : ` · ${report.createdCategories} categories created`}`, '');

  const matrix = coverageMatrix(report.results);
  lines.push('### Coverage (rule x operation)', '');
  lines.push(`| Rule | ${matrix.operations.map(md).join(' | ')} |`, `|---|${matrix.operations.map(() => '---').join('|')}|`);
  for (const row of matrix.rows) lines.push(`| ${md(row.rule)} | ${matrix.operations.map((operation) => md(describeCell(row.cells[operation]))).join(' | ')} |`);
  lines.push('');

  const failed = report.results.filter((result) => result.status === 'FAIL' || result.inconclusive);
  if (failed.length > 0) {
    lines.push('### Failures and inconclusive checks', '');
    for (const result of failed) {
      lines.push(`- **${result.status === 'FAIL' ? 'FAIL' : 'INCONCLUSIVE'}** ${md(result.rule)} ${md(result.title)}${result.operation === undefined ? '' : ` \\[${md(result.operation)}\\]`}: ${md(result.message ?? '')}`);
      for (const evidence of result.evidence.slice(0, 6)) lines.push(`  - ${md(describeEvidence(evidence))}`);
    }
    lines.push('');
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Escapes text for a Markdown table cell or list item: control characters as visible escapes,
 * HTML and Markdown punctuation as character references, so nothing a server sent renders as
 * markup.
 *
 * @example md('<b>|x') // '&lt;b&gt;&#124;x'
 */
export function md(text: string): string {
  return text
    .replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069]/g, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`)
    .replace(/([\\`*_[\]()#!~])/g, '\\$1')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\|/g, '&#124;');
}

function inline(text: string): string {
  return md(text);
}

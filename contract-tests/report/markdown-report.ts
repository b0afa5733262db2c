import { coverageMatrix, describeCell } from './coverage-matrix.js';
import { checksByOperation, groupFailures } from './failure-groups.js';
import { describeEvidence } from './human-report.js';
import { ruleHref } from './interface-links.js';
import type { ContractReport } from './report-model.js';

/**
 * The report as GitHub-flavoured Markdown, for CI job summaries (`>> $GITHUB_STEP_SUMMARY`):
 * verdict, counts, requests per key, the coverage matrix, the failures grouped by cause (the
 * operations each hit, its evidence, a curl that shows it again), then every INCONCLUSIVE check.
 * Each rule id links to its section of the interface document at the kit version's tag (a page
 * on the web: a CI reader cannot open the runner's files). Secrets are already masked in the
 * report; whatever a server sent is escaped so it can neither break the table nor inject markup,
 * links or HTML.
 *
 * @example await appendFile(process.env.GITHUB_STEP_SUMMARY!, renderMarkdownReport(report));
 */
export function renderMarkdownReport(report: ContractReport): string {
  const { summary } = report;
  const verdict = report.verdict ?? (report.conforms ? 'CONFORMS' : 'DOES NOT CONFORM');
  const icon = verdict === 'CONFORMS' ? '✅' : verdict === 'INCONCLUSIVE' ? '⚠️' : '❌';
  const lines: string[] = [];
  lines.push(`## ${icon} petstore-contract: ${verdict} (exit ${report.exitCode})`, '');
  lines.push(
    `Target ${inline(report.target.baseUrl)} against ${md(report.spec.title)} ${md(report.spec.version)} · run ${inline(report.runId)} · seed ${report.settings.seed} · ${(report.durationMs / 1000).toFixed(1)} s`,
    '',
  );
  if (report.stoppedBy !== undefined) lines.push(`Stopped by: ${md(report.stoppedBy.join('; '))}`, '');
  lines.push(`| Checks | PASS | FAIL | SKIP | INFO | WARN | Requests |`, `|---:|---:|---:|---:|---:|---:|---:|`);
  lines.push(
    `| ${summary.total} | ${summary.PASS} | ${summary.FAIL} | ${summary.SKIP} | ${summary.INFO} | ${summary.WARN} | ${summary.requests} |`,
    '',
  );
  const byKey = Object.entries(report.requestsByKey ?? {});
  if (byKey.length > 0)
    lines.push(
      `Requests by key: ${byKey.map(([key, count]) => `${md(key)} ${count}`).join(' · ')}${report.createdCategories === undefined ? '' : ` · ${report.createdCategories} categories created${report.mayCreateCategories === undefined ? '' : ` (at most ${report.mayCreateCategories})`}`}`,
      '',
    );

  const rule = (id: string) => {
    const href = ruleHref(report.interface, id, 'web');
    return href === undefined ? md(id) : `[${md(id)}](${href})`;
  };
  const matrix = coverageMatrix(report.results);
  lines.push('### Coverage (rule x operation)', '');
  lines.push(
    `| Rule | ${matrix.operations.map(md).join(' | ')} |`,
    `|---|${matrix.operations.map(() => '---').join('|')}|`,
  );
  for (const row of matrix.rows)
    lines.push(
      `| ${rule(row.rule)} | ${matrix.operations.map((operation) => md(describeCell(row.cells[operation]))).join(' | ')} |`,
    );
  lines.push('');

  const groups = report.failureGroups ?? groupFailures(report.results);
  if (groups.length > 0) {
    lines.push('### Failures by cause', '');
    groups.forEach((group, index) => {
      lines.push(`#### ${index + 1}. ${md(group.cause)}`, '');
      lines.push(
        `${group.checks.length} failed ${group.checks.length === 1 ? 'check' : 'checks'} · ${group.rules.map(rule).join(' · ')}`,
        '',
      );
      for (const [operation, titles] of checksByOperation(group))
        lines.push(`- ${md(operation)}: ${md(titles.join('; '))}`);
      lines.push('');
      if (group.evidence !== undefined) lines.push(`Evidence: ${md(describeEvidence(group.evidence))}`, '');
      if (group.curl !== undefined) lines.push(...codeBlock('sh', group.curl), '');
    });
  }
  const inconclusive = report.results.filter((result) => result.inconclusive);
  if (inconclusive.length > 0) {
    lines.push('### Inconclusive checks', '');
    for (const result of inconclusive)
      lines.push(
        `- ${rule(result.rule)} ${md(result.title)}${result.operation === undefined ? '' : ` \\[${md(result.operation)}\\]`}: ${md(result.message ?? '')}`,
      );
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
    .replace(
      /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069]/g,
      (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`,
    )
    .replace(/([\\`*_[\]()#!~])/g, '\\$1')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\|/g, '&#124;');
}

/** A fenced code block whose fence is longer than any run of backticks in the text (curl bodies may hold some). */
function codeBlock(language: string, text: string): string[] {
  const fence = '`'.repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((match) => match[0].length + 1)));
  return [`${fence}${language}`, text, fence];
}

function inline(text: string): string {
  return md(text);
}

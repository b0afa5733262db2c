import { sanitiseForTerminal as clean, paint } from '../../spec/terminal-text.js';
import type { Evidence } from '../lib/exchange.js';
import { coverageMatrix, describeCell } from './coverage-matrix.js';
import { checksByOperation, type FailureGroup, groupFailures } from './failure-groups.js';
import { ruleHref } from './interface-links.js';
import type { CheckResult, ContractReport, Verdict } from './report-model.js';

const ruleWidth = 21;

/** Options of the human report. */
export interface HumanReportOptions {
  /** ANSI colour for the status words (only when the output is a terminal). Default false. */
  colour?: boolean;
  /**
   * List every check, grouped by area. Default true. The CLI turns it off when the live lines
   * (one per check as it finished) already reached the reader of the report: on a terminal, in a
   * CI log. The failures by cause, the matrix and the verdict are in the report either way.
   */
  listChecks?: boolean;
}

/**
 * The default report: a header naming the target and the settings that make the run repeatable
 * (run id, seed), then one line per check, grouped by area, rule first, with the reason and the
 * evidence under each FAIL, WARN, SKIP and INFO; then the failures grouped by cause, each with
 * the operations it hit and a curl that shows it again; the coverage matrix (rule x operation),
 * the requests sent per key, where each rule id is in the interface document, and the verdict.
 * Everything a server sent is printed with its control characters escaped.
 *
 * @example process.stdout.write(renderHumanReport(report, { colour: process.stdout.isTTY }));
 */
export function renderHumanReport(report: ContractReport, options: HumanReportOptions = {}): string {
  const colour = options.colour ?? false;
  const lines: string[] = [];
  const { settings } = report;
  lines.push(
    `petstore-contract ${report.tool.version}: ${clean(report.target.baseUrl)} against ${clean(report.spec.title)} ${clean(report.spec.version)}`,
  );
  lines.push(
    `run ${report.runId} · ${report.startedAt} · seed ${settings.seed} (${settings.propertyRuns} property runs) · concurrency ${settings.concurrency} · ` +
      `${settings.rateLimitKey === undefined ? '429 checks off (no --rate-limit-key)' : `429 checks with ${settings.rateLimitKey}`}` +
      `${settings.readOnly ? ' · read-only' : ` · created data named ${settings.namePrefix}-*`}` +
      `${report.target.viaPrism ? ` · via Prism ${report.target.prismUrl ?? ''}` : ''}${settings.strict ? ' · strict' : ''}` +
      `${settings.deadlineSeconds === undefined ? '' : ` · deadline ${settings.deadlineSeconds} s`}${settings.maxBodyBytes === undefined ? '' : ` · bodies read up to ${settings.maxBodyBytes} bytes`}`,
  );
  if (options.listChecks ?? true) {
    let area: string | undefined;
    for (const result of report.results) {
      if (result.area !== area) {
        area = result.area;
        lines.push('', clean(area));
      }
      lines.push(checkLine(result, colour));
      lines.push(...details(result));
    }
  }
  const groups = report.failureGroups ?? groupFailures(report.results);
  if (groups.length > 0) lines.push('', ...renderFailureGroupsText(groups, colour));
  lines.push('', ...renderMatrixText(report));
  const { summary } = report;
  lines.push('');
  lines.push(requestsLine(report));
  if (report.timeTolerance !== undefined) lines.push(`Time judged by: ${report.timeTolerance}`);
  lines.push(...rulesLegend(report));
  lines.push(
    `${summary.total} checks: ${summary.PASS} PASS · ${summary.FAIL} FAIL · ${summary.SKIP} SKIP · ${summary.INFO} INFO · ${summary.WARN} WARN · ${summary.requests} requests in ${(report.durationMs / 1000).toFixed(1)} s`,
  );
  lines.push(verdictLine(report, colour));
  return `${lines.join('\n')}\n`;
}

/**
 * The failures by cause as text: a numbered heading per cause (how many checks, which rules),
 * a line per operation it hit naming the checks, the evidence, and the curl that reproduces it.
 */
function renderFailureGroupsText(groups: readonly FailureGroup[], colour = false): string[] {
  const checks = groups.reduce((total, group) => total + group.checks.length, 0);
  const lines = [
    `Failures by cause: ${groups.length} ${groups.length === 1 ? 'cause' : 'causes'}, ${checks} failed ${checks === 1 ? 'check' : 'checks'}`,
  ];
  groups.forEach((group, index) => {
    lines.push(
      `${String(index + 1).padStart(3)}. ${paint('FAIL', 'FAIL', colour)} ${clean(group.cause)} · ${group.checks.length} ${group.checks.length === 1 ? 'check' : 'checks'} · ${clean(group.rules.join(', '))}`,
    );
    for (const [operation, titles] of checksByOperation(group))
      lines.push(
        `       ${clean(operation)}${titles.length > 1 ? ` (${titles.length})` : ''}: ${clean(shorten(titles.join('; '), 160))}`,
      );
    if (group.evidence !== undefined) lines.push(`       evidence: ${clean(describeEvidence(group.evidence))}`);
    if (group.curl !== undefined) lines.push(`       reproduce: ${clean(group.curl)}`);
  });
  return lines;
}

/** Where each rule id of the report is in the interface document: one line per section, its rule ids first. */
function rulesLegend(report: ContractReport): string[] {
  const links = report.interface;
  if (links === undefined) return [];
  const bySection = new Map<string, string[]>();
  for (const rule of new Set(report.results.map((result) => result.rule))) {
    const section = links.sections[rule];
    if (section === undefined) continue;
    bySection.set(section.anchor, [...(bySection.get(section.anchor) ?? []), rule]);
  }
  const external = Object.entries(links.external ?? {}).filter(([rule]) =>
    report.results.some((result) => result.rule === rule),
  );
  if (bySection.size === 0 && external.length === 0) return [];
  return [
    `Rules, by section of the interface document (${clean(links.document)}):`,
    ...[...bySection.values()].map(
      (rules) =>
        `  ${clean(rules.join(', '))}: ${clean(links.sections[rules[0]!]!.heading)}, ${clean(ruleHref(links, rules[0]!, 'local')!)}`,
    ),
    ...external.map(([rule, url]) => `  ${clean(rule)}: ${clean(url)}`),
  ];
}

function shorten(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}

/** One check as one line (the live output prints these as checks finish). */
export function checkLine(result: CheckResult, colour = false): string {
  const status = result.inconclusive ? 'SKIP' : result.status;
  return `  ${paint(status.padEnd(4), status, colour)}  ${clean(result.rule).padEnd(ruleWidth)} ${clean(result.title)}${result.operation === undefined ? '' : ` [${clean(result.operation)}]`}${result.cases === undefined ? '' : ` (${result.cases} ${result.cases === 1 ? 'case' : 'cases'})`}`;
}

/** The verdict line: CONFORMS (exit 0), DOES NOT CONFORM (exit 1) or INCONCLUSIVE (exit 3) and why. */
export function verdictLine(report: ContractReport, colour = false): string {
  const { summary } = report;
  const verdict: Verdict = report.verdict ?? (report.conforms ? 'CONFORMS' : 'DOES NOT CONFORM');
  const word = paint(verdict, verdict, colour);
  if (verdict === 'CONFORMS') {
    return `Verdict: ${word} (exit 0)${summary.WARN > 0 ? `, with ${summary.WARN} warning(s)` : ''}${summary.SKIP > 0 ? `; ${summary.SKIP} check(s) skipped` : ''}`;
  }
  if (verdict === 'INCONCLUSIVE') {
    return `Verdict: ${word} (exit 3): required checks could not run; stopped by ${clean((report.stoppedBy ?? ['unknown']).join('; '))}`;
  }
  return summary.FAIL > 0
    ? `Verdict: ${word}: ${summary.FAIL} required check(s) failed (exit 1)`
    : `Verdict: ${word}: ${summary.SKIP} check(s) skipped and --fail-on-skip asks for proof (exit 1)`;
}

/** Requests sent per key, as staging owners need to know. */
export function requestsLine(report: ContractReport): string {
  const byKey = Object.entries(report.requestsByKey ?? {}).map(([key, count]) => `${clean(key)}: ${count}`);
  const created =
    report.createdCategories === undefined
      ? ''
      : ` · ${report.createdCategories} categories created${report.mayCreateCategories === undefined ? '' : ` (at most ${report.mayCreateCategories})`}`;
  return `Requests by key: ${byKey.join(' · ')}${created}`;
}

/** The coverage matrix as aligned text lines. */
export function renderMatrixText(report: ContractReport): string[] {
  const matrix = coverageMatrix(report.results);
  const header = ['Coverage (rule x operation)', ...matrix.operations];
  const rows = matrix.rows.map((row) => [
    row.rule,
    ...matrix.operations.map((operation) => describeCell(row.cells[operation])),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const format = (cells: string[]) =>
    cells
      .map((cell, column) => clean(cell).padEnd(widths[column]!))
      .join(' | ')
      .trimEnd();
  return [format(header), widths.map((width) => '-'.repeat(width)).join('-+-'), ...rows.map(format)];
}

/** One line per check, for a short console summary when the full report goes to a file. */
export function renderSummaryLine(report: ContractReport): string {
  const { summary } = report;
  const verdict = report.verdict ?? (report.conforms ? 'CONFORMS' : 'DOES NOT CONFORM');
  return `petstore-contract: ${clean(report.target.baseUrl)}: ${verdict} (${summary.PASS} PASS, ${summary.FAIL} FAIL, ${summary.SKIP} SKIP, ${summary.INFO} INFO, ${summary.WARN} WARN)`;
}

/** The reason and evidence under a check line. */
export function details(result: CheckResult): string[] {
  const indent = ' '.repeat(8);
  const lines: string[] = [];
  if (result.message !== undefined && (result.status !== 'PASS' || result.message !== ''))
    lines.push(
      `${indent}${result.status === 'PASS' ? '' : '↳ '}${result.inconclusive ? 'INCONCLUSIVE: ' : ''}${clean(result.message)}`,
    );
  if (result.status === 'FAIL' || result.status === 'WARN') {
    for (const evidence of result.evidence) lines.push(`${indent}  - ${clean(describeEvidence(evidence))}`);
  }
  return lines;
}

/** Evidence as one line: request, status, header or field, detail. */
export function describeEvidence(evidence: Evidence): string {
  const where = [
    evidence.status === undefined ? undefined : `-> ${evidence.status}`,
    evidence.header === undefined ? undefined : `header ${evidence.header}`,
    evidence.field === undefined ? undefined : `field ${evidence.field}`,
  ]
    .filter((part) => part !== undefined)
    .join(', ');
  return `${evidence.request}${where === '' ? '' : ` ${where}`}${evidence.detail === '' ? '' : `: ${evidence.detail}`}`;
}

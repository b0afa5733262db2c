import type { Evidence } from '../lib/exchange.js';
import type { CheckResult, ContractReport } from './report-model.js';

const ruleWidth = 21;

/**
 * The default report: a header naming the target and the settings that make the run repeatable
 * (run id, seed), then one line per check, grouped by area, rule first; under each FAIL, WARN,
 * SKIP and INFO the reason and the evidence (request, status, offending header or field).
 *
 * @example process.stdout.write(renderHumanReport(report));
 */
export function renderHumanReport(report: ContractReport): string {
  const lines: string[] = [];
  const { settings } = report;
  lines.push(`petstore-contract ${report.tool.version}: ${report.target.baseUrl} against ${report.spec.title} ${report.spec.version}`);
  lines.push(
    `run ${report.runId} · ${report.startedAt} · seed ${settings.seed} (${settings.propertyRuns} property runs) · concurrency ${settings.concurrency} · ` +
      `${settings.rateLimitKey === undefined ? '429 checks off (no --rate-limit-key)' : `429 checks with ${settings.rateLimitKey}`}` +
      `${settings.readOnly ? ' · read-only' : ` · created data named ${settings.namePrefix}-*`}` +
      `${report.target.viaPrism ? ` · via Prism ${report.target.prismUrl ?? ''}` : ''}${settings.strict ? ' · strict' : ''}`,
  );
  let area: string | undefined;
  for (const result of report.results) {
    if (result.area !== area) {
      area = result.area;
      lines.push('', area);
    }
    lines.push(`  ${result.status.padEnd(4)}  ${result.rule.padEnd(ruleWidth)} ${result.title}${result.operation === undefined ? '' : ` [${result.operation}]`}`);
    lines.push(...details(result));
  }
  const { summary } = report;
  lines.push('');
  lines.push(`${summary.total} checks: ${summary.PASS} PASS · ${summary.FAIL} FAIL · ${summary.SKIP} SKIP · ${summary.INFO} INFO · ${summary.WARN} WARN · ${summary.requests} requests in ${(report.durationMs / 1000).toFixed(1)} s`);
  lines.push(
    report.conforms
      ? `Verdict: CONFORMS (exit 0)${summary.WARN > 0 ? `, with ${summary.WARN} warning(s)` : ''}${summary.SKIP > 0 ? `; ${summary.SKIP} check(s) skipped` : ''}`
      : `Verdict: DOES NOT CONFORM: ${summary.FAIL} required check(s) failed (exit 1)`,
  );
  return `${lines.join('\n')}\n`;
}

/** One line per check, for a short console summary when the full report goes to a file. */
export function renderSummaryLine(report: ContractReport): string {
  const { summary } = report;
  return `petstore-contract: ${report.target.baseUrl}: ${report.conforms ? 'CONFORMS' : 'DOES NOT CONFORM'} (${summary.PASS} PASS, ${summary.FAIL} FAIL, ${summary.SKIP} SKIP, ${summary.INFO} INFO, ${summary.WARN} WARN)`;
}

function details(result: CheckResult): string[] {
  const indent = ' '.repeat(8);
  const lines: string[] = [];
  if (result.message !== undefined && (result.status !== 'PASS' || result.message !== '')) lines.push(`${indent}${result.status === 'PASS' ? '' : '↳ '}${result.message}`);
  if (result.status === 'FAIL' || result.status === 'WARN') {
    for (const evidence of result.evidence) lines.push(`${indent}  - ${describeEvidence(evidence)}`);
  }
  return lines;
}

function describeEvidence(evidence: Evidence): string {
  const where = [evidence.status === undefined ? undefined : `-> ${evidence.status}`, evidence.header === undefined ? undefined : `header ${evidence.header}`, evidence.field === undefined ? undefined : `field ${evidence.field}`]
    .filter((part) => part !== undefined)
    .join(', ');
  return `${evidence.request}${where === '' ? '' : ` ${where}`}${evidence.detail === '' ? '' : `: ${evidence.detail}`}`;
}

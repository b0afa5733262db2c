import { checkName } from '../lib/check.js';
import type { Evidence } from '../lib/exchange.js';
import { type FailureGroup, groupFailures } from './failure-groups.js';
import { renderMatrixText } from './human-report.js';
import { ruleHref } from './interface-links.js';
import type { CheckResult, ContractReport } from './report-model.js';

/**
 * The report as JUnit XML, for CI systems: one testsuite per area, one testcase per check, named
 * by its rule; no suite is empty. FAIL is a `<failure>` with the evidence, the cause it shares
 * with other failures and a curl that reproduces it; SKIP a `<skipped>` with the reason; INFO and
 * WARN pass and carry their text in `<system-out>`, plus a `status` property. Each testcase has
 * a `rule-url` property: its rule's section of the interface document on the web. The coverage
 * matrix and the verdict are the first suite's `<system-out>` (JUnit has no free text outside
 * a suite, and a suite of no tests shows as an empty suite in CI views).
 *
 * @example await writeFile('contract.xml', renderJunitReport(report));
 */
export function renderJunitReport(report: ContractReport): string {
  const areas = new Map<string, CheckResult[]>();
  for (const result of report.results) {
    const list = areas.get(result.area) ?? [];
    list.push(result);
    areas.set(result.area, list);
  }
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const groups = report.failureGroups ?? groupFailures(report.results);
  const causeOf = new Map<string, Cause>();
  for (const [index, group] of groups.entries()) {
    for (const check of group.checks) causeOf.set(check.id, { group, index, of: groups.length });
  }
  const verdict = report.verdict ?? (report.conforms ? 'CONFORMS' : 'DOES NOT CONFORM');
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  out.push(
    `<testsuites name="petstore-contract" tests="${report.summary.total}" failures="${report.summary.FAIL}" errors="0" skipped="${report.summary.SKIP}" time="${seconds(report.durationMs)}" timestamp="${escapeXml(report.startedAt)}">`,
  );
  const perKey = Object.entries(report.requestsByKey ?? {})
    .map(([key, count]) => `${key}: ${count}`)
    .join('; ');
  let first = true;
  for (const [area, results] of areas) {
    const failures = results.filter((result) => result.status === 'FAIL').length;
    const skipped = results.filter((result) => result.status === 'SKIP').length;
    // Wall time of the area (its checks run side by side), not the sum of its checks' times.
    const starts = results.map((result) => result.startMs ?? 0);
    const time = results.some((result) => result.startMs !== undefined)
      ? Math.max(...results.map((result) => (result.startMs ?? 0) + result.durationMs)) - Math.min(...starts)
      : results.reduce((total, result) => total + result.durationMs, 0);
    out.push(
      `  <testsuite name="${escapeXml(area)}" tests="${results.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${seconds(time)}" timestamp="${escapeXml(report.startedAt)}">`,
    );
    out.push('    <properties>');
    for (const [name, value] of [
      ['baseUrl', report.target.baseUrl],
      ['runId', report.runId],
      ['seed', String(report.settings.seed)],
      ['verdict', verdict],
      ['requestsByKey', perKey],
    ] as const) {
      out.push(`      <property name="${name}" value="${escapeXml(value)}"/>`);
    }
    out.push('    </properties>');
    for (const result of results)
      out.push(...testCase(result, ruleHref(report.interface, result.rule, 'web'), causeOf.get(result.id)));
    if (first) {
      out.push(
        `    <system-out>${escapeXml([...renderMatrixText(report), '', `verdict: ${verdict}${report.stoppedBy ? ` (stopped by ${report.stoppedBy.join('; ')})` : ''}`].join('\n'))}</system-out>`,
      );
      first = false;
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}

/** A failure's place among the run's causes. */
interface Cause {
  group: FailureGroup;
  index: number;
  of: number;
}

function testCase(result: CheckResult, ruleUrl: string | undefined, cause: Cause | undefined): string[] {
  const name = checkName(result);
  const open = `    <testcase classname="petstore-contract.${escapeXml(result.area)}" name="${escapeXml(name)}" time="${(result.durationMs / 1000).toFixed(3)}">`;
  const inconclusive = result.inconclusive ? '<property name="inconclusive" value="true"/>' : '';
  const cases = result.cases === undefined ? '' : `<property name="cases" value="${result.cases}"/>`;
  const link = ruleUrl === undefined ? '' : `<property name="rule-url" value="${escapeXml(ruleUrl)}"/>`;
  const lines = [
    open,
    `      <properties><property name="id" value="${escapeXml(result.id)}"/><property name="status" value="${result.status}"/>${inconclusive}${cases}${link}</properties>`,
  ];
  const message = result.message ?? '';
  switch (result.status) {
    case 'FAIL': {
      const text = [
        ...result.evidence.map(describe),
        ...(cause === undefined
          ? []
          : [
              `cause ${cause.index + 1} of ${cause.of}: ${cause.group.cause} (${cause.group.checks.length} ${cause.group.checks.length === 1 ? 'check' : 'checks'})`,
            ]),
        ...(cause?.group.curl === undefined ? [] : [`reproduce: ${cause.group.curl}`]),
        ...(ruleUrl === undefined ? [] : [`rule: ${ruleUrl}`]),
      ];
      lines.push(
        `      <failure message="${escapeXml(message)}" type="${escapeXml(result.rule)}">${escapeXml(text.join('\n'))}</failure>`,
      );
      break;
    }
    case 'SKIP':
      lines.push(`      <skipped message="${escapeXml(`${result.inconclusive ? 'INCONCLUSIVE: ' : ''}${message}`)}"/>`);
      break;
    case 'INFO':
    case 'WARN':
      lines.push(
        `      <system-out>${escapeXml(`${result.status}: ${message}${result.evidence.length > 0 ? `\n${result.evidence.map(describe).join('\n')}` : ''}`)}</system-out>`,
      );
      break;
    default:
      if (message !== '') lines.push(`      <system-out>${escapeXml(message)}</system-out>`);
  }
  lines.push('    </testcase>');
  return lines;
}

function describe(evidence: Evidence): string {
  return `${evidence.request}${evidence.status === undefined ? '' : ` -> ${evidence.status}`}${evidence.header === undefined ? '' : ` header ${evidence.header}`}${evidence.field === undefined ? '' : ` field ${evidence.field}`}${evidence.detail === '' ? '' : `: ${evidence.detail}`}`;
}

/**
 * Escapes text for XML attributes and content. Characters XML 1.0 cannot carry at all (a
 * server's body may contain any of them) are written as visible `\xNN` / `\u{NNNN}` text, so
 * the evidence keeps them.
 *
 * @example escapeXml('a < b & "c"') // 'a &lt; b &amp; &quot;c&quot;'
 */
export function escapeXml(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, (char) => {
      const code = char.codePointAt(0) ?? 0;
      return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
    })
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

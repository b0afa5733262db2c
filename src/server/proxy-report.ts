import { labReportJunit, xmlEscape } from '../lab/lab-report.js';
import type { ProxyReport, ServerRuleResult } from './proxy-judge.js';

/**
 * The judging proxy's report as JUnit XML for CI: one testsuite "server" with a testcase per rule
 * (fail with its evidence, not-exercised as skipped), then the lab's own testsuites, one per client,
 * exactly as `GET /__mock/report?format=junit` of the mock writes them.
 *
 * @example proxyReportJunit(proxy.report()) // '<?xml version="1.0" ...><testsuites name="petstore-mock proxy" ...>'
 */
export function proxyReportJunit(report: ProxyReport): string {
  const cases = report.server.rules.map((rule) => {
    const head = `    <testcase name="${xmlEscape(`${rule.id} (${rule.rule}): ${rule.title}`)}" classname="petstore-mock.proxy.server">`;
    if (rule.outcome === 'fail')
      return `${head}\n      <failure message="${xmlEscape(failureLine(rule))}" type="${xmlEscape(rule.id)}">${xmlEscape(evidenceText(rule))}</failure>\n    </testcase>`;
    if (rule.outcome === 'not-exercised')
      return `${head}\n      <skipped message="no answer of the traffic fell under this rule"/>\n    </testcase>`;
    return `${head}\n      <system-out>${xmlEscape(`pass: ${rule.judged} answers judged`)}</system-out>\n    </testcase>`;
  });
  const serverFailures = report.server.rules.filter((rule) => rule.outcome === 'fail').length;
  const serverSkipped = report.server.rules.filter((rule) => rule.outcome === 'not-exercised').length;
  const lab = labReportJunit(report.client);
  // The lab's document, unwrapped: its testsuites join the server's in one document.
  const clientSuites = lab.slice(lab.indexOf('  <testsuite'), lab.lastIndexOf('</testsuites>')).trimEnd();
  const labTotals = /<testsuites [^>]*tests="(\d+)" failures="(\d+)" errors="0" skipped="(\d+)"/.exec(lab);
  const tests = cases.length + Number(labTotals?.[1] ?? 0);
  const failures = serverFailures + Number(labTotals?.[2] ?? 0);
  const skipped = serverSkipped + Number(labTotals?.[3] ?? 0);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlEscape(`petstore-mock proxy of ${report.upstream}`)}" tests="${tests}" failures="${failures}" errors="0" skipped="${skipped}">`,
    `  <testsuite name="server ${xmlEscape(report.upstream)}" tests="${cases.length}" failures="${serverFailures}" errors="0" skipped="${serverSkipped}" timestamp="${xmlEscape(report.generatedAt.replace(/Z$/, ''))}">`,
    ...cases,
    '  </testsuite>',
    ...(clientSuites === '' ? [] : [clientSuites]),
    '</testsuites>',
    '',
  ].join('\n');
}

/**
 * The report as Markdown, for a pull request comment or a ticket: both sides' outcomes, each broken
 * rule with its evidence, the client verdicts per key (pseudonyms only).
 *
 * @example proxyReportMarkdown(proxy.report()).startsWith('# Judging proxy report') // true
 */
export function proxyReportMarkdown(report: ProxyReport): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
  const lines = [
    '# Judging proxy report',
    '',
    `Upstream ${report.upstream}, ${report.startedAt} to ${report.generatedAt}: ${report.requests.forwarded} requests forwarded, ${report.requests.answered} answered, ${report.requests.upstreamFailures} without an answer (502), ${report.requests.tooLargeToJudge} too large to judge.`,
    '',
    `**Server: ${report.server.outcome.toUpperCase()}** · **Client: ${report.client.outcome.toUpperCase()}**`,
    '',
    "## Server (the kit's rules)",
    '',
    '| Rule | Outcome | Judged | Failed |',
    '| --- | --- | --- | --- |',
    ...report.server.rules.map(
      (rule) =>
        `| ${cell(`${rule.id} (${rule.rule})`)} | ${rule.outcome.toUpperCase()} | ${rule.judged} | ${rule.failed} |`,
    ),
  ];
  for (const rule of report.server.rules.filter((entry) => entry.outcome === 'fail')) {
    lines.push('', `### ${rule.id}: ${cell(rule.title)}`, '', failureLine(rule), '');
    for (const evidence of rule.evidence)
      lines.push(`- #${evidence.seq} ${cell(evidence.request)} → ${evidence.status}: ${cell(evidence.detail)}`);
    if (rule.moreFailures > 0) lines.push(`- … and ${rule.moreFailures} more failing answers`);
  }
  if (report.server.information.length > 0) {
    lines.push('', '### Information', '');
    for (const text of report.server.information) lines.push(`- ${cell(text)}`);
  }
  lines.push('', "## Clients (the lab's verdicts)", '');
  if (report.client.clients.length === 0) lines.push('No client was seen.');
  else {
    lines.push('| Client | Plan | Requests | Rule | Outcome | Evidence |', '| --- | --- | --- | --- | --- | --- |');
    for (const client of report.client.clients)
      for (const verdict of client.verdicts)
        lines.push(
          `| ${cell(client.client)} | ${cell(client.plan)} | ${client.requests.total} | ${verdict.rule} | ${verdict.outcome.toUpperCase()} | ${cell(verdict.evidence.summary)} |`,
        );
  }
  return `${lines.join('\n')}\n`;
}

function failureLine(rule: ServerRuleResult): string {
  const first = rule.evidence[0];
  return `${rule.failed} of ${rule.judged} answers break it${first === undefined ? '' : `; first: #${first.seq} ${first.request}: ${first.detail}`}`;
}

function evidenceText(rule: ServerRuleResult): string {
  return [
    ...rule.evidence.map(
      (evidence) =>
        `#${evidence.seq} ${evidence.time} ${evidence.request} -> ${evidence.status}${evidence.header ? ` [${evidence.header}]` : ''}${evidence.field ? ` [${evidence.field}]` : ''}: ${evidence.detail}`,
    ),
    ...(rule.moreFailures > 0 ? [`... and ${rule.moreFailures} more`] : []),
  ].join('\n');
}

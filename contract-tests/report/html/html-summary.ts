import { requestsLine, verdictLine } from '../human-report.js';
import { type ContractReport, checkStatuses, type Verdict } from '../report-model.js';
import { html, statusClass } from './html-text.js';

const verdictClass: Record<Verdict, string> = {
  CONFORMS: 'v-conforms',
  'DOES NOT CONFORM': 'v-fails',
  INCONCLUSIVE: 'v-inconclusive',
};

/** The run's verdict. */
export function verdictOf(report: ContractReport): Verdict {
  return report.verdict ?? (report.conforms ? 'CONFORMS' : 'DOES NOT CONFORM');
}

/**
 * The head of the report: the verdict and why (the human report's verdict line), the counts, what
 * was run against what (target, document, run id, seed, profile, duration) and the requests per key.
 */
export function summarySection(report: ContractReport): string {
  const verdict = verdictOf(report);
  const { summary, settings } = report;
  const counts = checkStatuses
    .map((status) => `<li class="${statusClass(status)}"><b>${summary[status]}</b>${status}</li>`)
    .join('');
  const facts: [string, string][] = [
    [
      'Target',
      `<span class="mono">${html(report.target.baseUrl)}</span>${report.target.viaPrism ? ' (via Prism)' : ''}`,
    ],
    [
      'Interface',
      `${html(report.spec.title)} ${html(report.spec.version)} · <span class="mono">${html(report.spec.path)}</span>`,
    ],
    [
      'Run',
      `<span class="mono">${html(report.runId)}</span> · started ${html(report.startedAt)} · ${(report.durationMs / 1000).toFixed(1)} s`,
    ],
    [
      'Settings',
      html(
        `profile ${settings.thorough === true ? 'thorough' : 'default'} · seed ${settings.seed} (--seed ${settings.seed} repeats it) · concurrency ${settings.concurrency} · ${settings.rateLimitKey === undefined ? 'no --rate-limit-key (429 checks off)' : `rate-limit key ${settings.rateLimitKey}`}${settings.readOnly ? ' · read-only' : ''}${settings.strict ? ' · strict' : ''}`,
      ),
    ],
    ['Requests', `${summary.requests} · ${html(requestsLine(report).replace(/^Requests by key: /, ''))}`],
  ];
  if (report.stoppedBy !== undefined && report.stoppedBy.length > 0)
    facts.push(['Stopped by', html(report.stoppedBy.join('; '))]);
  if (report.timeTolerance !== undefined) facts.push(['Time judged by', html(report.timeTolerance)]);
  return [
    '<header id="summary">',
    `<h1>petstore-contract ${html(report.tool.version)}</h1>`,
    `<p><span class="verdict ${verdictClass[verdict] ?? 'v-fails'}">${html(verdict)}</span> <span class="muted">exit ${report.exitCode}</span></p>`,
    `<p>${html(verdictLine(report))}</p>`,
    `<ul class="counts"><li><b>${summary.total}</b>checks</li>${counts}</ul>`,
    `<dl class="facts">${facts.map(([term, value]) => `<dt>${term}</dt><dd>${value}</dd>`).join('')}</dl>`,
    '</header>',
  ].join('\n');
}

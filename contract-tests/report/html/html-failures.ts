import { unaffordedCellList } from '../../lib/run-profile.js';
import { checksByOperation, groupFailures } from '../failure-groups.js';
import { describeEvidence } from '../human-report.js';
import type { ContractReport, FailureGroup } from '../report-model.js';
import { ruleLink } from './html-rules.js';
import { elementId, html, htmlLines, statusClass } from './html-text.js';

/**
 * The failures grouped by cause (failure-groups.ts), in the order they first appear: each cause
 * with its rules (linked), the operations it hit and the checks there, its evidence, and the curl
 * that shows it again, with a copy button.
 */
export function failuresSection(report: ContractReport): string {
  const groups = report.failureGroups ?? groupFailures(report.results);
  if (groups.length === 0) return '';
  const checks = groups.reduce((total, group) => total + group.checks.length, 0);
  return [
    '<section id="failures">',
    `<h2>Failures by cause: ${groups.length} ${groups.length === 1 ? 'cause' : 'causes'}, ${checks} failed ${checks === 1 ? 'check' : 'checks'}</h2>`,
    ...groups.map((group, index) => causeBlock(report, group, index)),
    '</section>',
  ].join('\n');
}

function causeBlock(report: ContractReport, group: FailureGroup, index: number): string {
  const operations = checksByOperation(group).map(
    ([operation, titles]) =>
      `<li><span class="mono">${html(operation)}</span>${titles.length > 1 ? ` (${titles.length})` : ''}: ${html(titles.join('; '))}</li>`,
  );
  const curlId = elementId('curl', index);
  return [
    `<article class="cause" id="${elementId('cause', index)}">`,
    `<h3><span class="s-fail">FAIL</span> ${index + 1}. ${html(group.cause)}</h3>`,
    `<p class="muted">${group.checks.length} failed ${group.checks.length === 1 ? 'check' : 'checks'} · ${group.rules.map((rule) => ruleLink(report, rule)).join(' · ')}</p>`,
    `<ul>${operations.join('')}</ul>`,
    group.evidence === undefined
      ? ''
      : `<div><b>Evidence</b><pre>${html(describeEvidence(group.evidence))}</pre></div>`,
    group.curl === undefined
      ? ''
      : `<div><b>Reproduce</b> <button type="button" class="copy" data-copy="${curlId}" hidden>Copy</button><pre id="${curlId}">${htmlLines(group.curl)}</pre></div>`,
    '</article>',
  ].join('\n');
}

/**
 * What this run could not judge, and what would: every cell of the rule x dimension matrix it
 * could not afford (INCONCLUSIVE or not run) with the profile or flag that would check it
 * (run-profile.ts, the lines the run printed), then every check that stopped for a reason outside
 * its rule (rate limits, the deadline, the server gone). Never taken for a PASS.
 */
export function inconclusiveSection(report: ContractReport): string {
  const cells = unaffordedCellList(report.results, report.settings.thorough === true);
  const stopped = report.results.filter((result) => result.inconclusive === true);
  if (cells.length === 0 && stopped.length === 0) return '';
  const cellRows = cells.map(
    (cell) =>
      `<tr><th scope="row">${ruleLink(report, cell.rule)}</th><td data-label="Dimension">${html(cell.dimension)}</td><td data-label="Cell" class="${statusClass(cell.status)}">${html(cell.status)}</td><td data-label="Stopped checks" class="mono">${html(cell.checks.length === 0 ? 'no check ran' : cell.checks.join(', '))}</td><td data-label="Would check it">${html(cell.remedy)}</td></tr>`,
  );
  const stoppedItems = stopped.map(
    (result) =>
      `<li>${ruleLink(report, result.rule)} ${html(result.title)}${result.operation === undefined ? '' : ` <span class="mono">[${html(result.operation)}]</span>`}: ${html(result.message ?? '')}</li>`,
  );
  return [
    '<section id="inconclusive">',
    '<h2>Not judged by this run (INCONCLUSIVE, never PASS)</h2>',
    cells.length === 0
      ? ''
      : [
          `<p>${cells.length} ${cells.length === 1 ? 'cell' : 'cells'} of the rule x dimension matrix this run could not afford, and what would check each:</p>`,
          '<div class="table-box"><table class="stack">',
          '<thead><tr><th scope="col">Rule</th><th scope="col">Dimension</th><th scope="col">Cell</th><th scope="col">Stopped checks</th><th scope="col">Would check it</th></tr></thead>',
          `<tbody>${cellRows.join('')}</tbody></table></div>`,
        ].join('\n'),
    stopped.length === 0
      ? ''
      : `<h3>Checks stopped by something outside their rule</h3><ul>${stoppedItems.join('')}</ul>`,
    '</section>',
  ].join('\n');
}

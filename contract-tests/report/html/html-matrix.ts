import { unaffordedCellList } from '../../lib/run-profile.js';
import { type CoverageMatrix, coverageMatrix, describeCell, describeDimensionCell } from '../coverage-matrix.js';
import type { CheckResult, ContractReport } from '../report-model.js';
import { ruleLink } from './html-rules.js';
import { html, statusClass } from './html-text.js';

/**
 * The coverage matrix (coverage-matrix.ts) as two tables: rule x operation (what each check
 * proved where), and rule x dimension (each cell as the run judged it, an unafforded one with what
 * would check it). Rules link to their section. On a narrow screen each row becomes a card of
 * labelled cells (the style sheet), so no table is wider than the page.
 */
export function coverageSection(report: ContractReport): string {
  const matrix = coverageMatrix(report.results);
  return [
    '<section id="coverage">',
    '<h2>Coverage</h2>',
    operationTable(report, matrix),
    dimensionTable(report, matrix),
    '</section>',
  ].join('\n');
}

function operationTable(report: ContractReport, matrix: CoverageMatrix): string {
  const head = matrix.operations
    .map((operation) => `<th scope="col" class="mono">${breakable(operation)}</th>`)
    .join('');
  const rows = matrix.rows.map((row) => {
    const cells = matrix.operations.map((operation) => {
      const cell = row.cells[operation];
      if (cell === undefined) return `<td data-label="${html(operation)}" class="s-na">-</td>`;
      // The reason in short (the whole one in its tooltip and in the list of checks).
      const reason =
        cell.status === 'SKIP' && cell.skipReason !== undefined
          ? `<small title="${html(cell.skipReason)}">${html(shorten(cell.skipReason, 60))}</small>`
          : '';
      return `<td data-label="${html(operation)}" class="${statusClass(cell.status)}">${html(describeCell(cell, false))}${reason}</td>`;
    });
    return `<tr><th scope="row">${ruleLink(report, row.rule)}</th>${cells.join('')}</tr>`;
  });
  return [
    '<h3>Rule x operation</h3>',
    '<div class="table-box"><table class="stack matrix">',
    `<thead><tr><th scope="col">Rule</th>${head}</tr></thead>`,
    `<tbody>${rows.join('')}</tbody></table></div>`,
  ].join('\n');
}

function dimensionTable(report: ContractReport, matrix: CoverageMatrix): string {
  const { columns, rows } = matrix.dimensions;
  const remedies = new Map(
    unaffordedCellList(report.results, report.settings.thorough === true).map((cell) => [
      `${cell.rule}\u0000${cell.dimension}`,
      cell.remedy,
    ]),
  );
  const body = rows.map((row) => {
    const cells = columns.map((column) => {
      const cell = row.cells[column.id];
      const remedy = remedies.get(`${row.rule}\u0000${column.title}`);
      const note =
        cell.status === 'n/a' && cell.reason !== undefined
          ? `<small>${html(cell.reason)}</small>`
          : remedy === undefined
            ? ''
            : `<small class="remedy">${html(remedy)} would check it</small>`;
      return `<td data-label="${html(column.title)}" class="${statusClass(cell.status)}">${html(describeDimensionCell(cell))}${note}</td>`;
    });
    return `<tr><th scope="row">${ruleLink(report, row.rule)}<small>${html(row.says)}</small></th>${cells.join('')}</tr>`;
  });
  return [
    '<h3>Rule x dimension</h3>',
    '<div class="table-box"><table class="stack matrix">',
    `<thead><tr><th scope="col">Rule</th>${columns.map((column) => `<th scope="col">${html(column.title)}</th>`).join('')}</tr></thead>`,
    `<tbody>${body.join('')}</tbody></table></div>`,
  ].join('\n');
}

/**
 * Every check, grouped by area as the suite runs them, in a closed <details>: status, rule (linked),
 * title, operation, and the reason or finding.
 */
export function checksSection(report: ContractReport): string {
  const rows: string[] = [];
  let area: string | undefined;
  for (const result of report.results) {
    if (result.area !== area) {
      area = result.area;
      rows.push(`<tr><th colspan="4" scope="rowgroup">${html(area)}</th></tr>`);
    }
    rows.push(checkRow(report, result));
  }
  return [
    '<section id="checks">',
    `<details><summary>All ${report.results.length} checks</summary>`,
    '<div class="table-box"><table class="stack checks">',
    '<thead><tr><th scope="col">Status</th><th scope="col">Rule</th><th scope="col">Check</th><th scope="col">Finding</th></tr></thead>',
    `<tbody>${rows.join('')}</tbody></table></div>`,
    '</details>',
    '</section>',
  ].join('\n');
}

function checkRow(report: ContractReport, result: CheckResult): string {
  const status = result.inconclusive === true ? 'INCONCLUSIVE' : result.status;
  const operation = result.operation === undefined ? '' : ` <span class="mono">[${html(result.operation)}]</span>`;
  const cases = result.cases === undefined ? '' : ` (${result.cases} ${result.cases === 1 ? 'case' : 'cases'})`;
  return [
    `<tr><td data-label="Status" class="${statusClass(status)}">${html(status)}</td>`,
    `<td data-label="Rule">${ruleLink(report, result.rule)}</td>`,
    `<td data-label="Check">${html(result.title)}${operation}${cases}<small class="mono">${html(result.id)}</small></td>`,
    `<td data-label="Finding">${html(result.message ?? '')}</td></tr>`,
  ].join('');
}

function shorten(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}

/** An operation's text with a line-break opportunity after each `/`, so a narrow column breaks it between path segments. */
function breakable(text: string): string {
  return html(text).replace(/\//g, '/<wbr>');
}

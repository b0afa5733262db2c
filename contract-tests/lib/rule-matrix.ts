/**
 * The rule x dimension matrix: every rule of the interface document against every way a server
 * can get it wrong. Each cell names the checks that judge it, or says why no check can. A check is
 * named by its id, or by the part before `:` for a family (`auth.missing-key` stands for
 * `auth.missing-key:listCategories` and the other operations). docs/contract-kit-matrix.md shows
 * this table (held equal to it by rule-matrix.test.ts); the coverage report fills in each cell
 * from a run (report/coverage-matrix.ts).
 */

import { dimensions } from './rule-dimensions.js';
import { ruleMatrix } from './rule-matrix-rows.js';

export { type Dimension, dimensions } from './rule-dimensions.js';
export { ruleMatrix } from './rule-matrix-rows.js';

/**
 * The checks a reference names: the id itself, or every `<reference>:<operation>` of a family.
 *
 * @example matchesReference('auth.missing-key:getPetById', 'auth.missing-key') // true
 */
export function matchesReference(checkId: string, reference: string): boolean {
  return checkId === reference || (checkId.startsWith(`${reference}:`) && !reference.includes(':'));
}

/**
 * The matrix as Markdown, for docs/contract-kit-matrix.md: an overview (a check, or a reason, per
 * cell) and a section per rule naming the checks or giving the reason.
 *
 * @example renderRuleMatrixMarkdown().startsWith('| Rule |') // true
 */
export function renderRuleMatrixMarkdown(): string {
  const lines = [
    `| Rule | ${dimensions.map((dimension) => dimension.title).join(' | ')} |`,
    `|---|${dimensions.map(() => '---').join('|')}|`,
  ];
  for (const row of ruleMatrix) {
    lines.push(
      `| [${row.rule}](#${anchor(row.rule)}) | ${dimensions.map(({ id }) => ('checks' in row.cells[id] ? `${(row.cells[id] as { checks: readonly string[] }).checks.length} check${(row.cells[id] as { checks: readonly string[] }).checks.length === 1 ? '' : 's'}` : 'reason')).join(' | ')} |`,
    );
  }
  for (const row of ruleMatrix) {
    lines.push(
      '',
      `### ${row.rule}`,
      '',
      `The interface: ${row.says}.`,
      '',
      '| Dimension | Checks, or why none |',
      '|---|---|',
    );
    for (const { id, title } of dimensions) {
      const entry = row.cells[id];
      lines.push(
        `| ${title} | ${'checks' in entry ? entry.checks.map((check) => `\`${check}\``).join(', ') : `*${entry.reason}*`} |`,
      );
    }
  }
  return lines.join('\n');
}

function anchor(rule: string): string {
  return rule
    .toLowerCase()
    .replace(/[^a-z0-9 .-]/g, '')
    .replace(/[ .]/g, (char) => (char === ' ' ? '-' : ''))
    .replace(/^-+/, '');
}

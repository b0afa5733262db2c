import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { suiteAreas } from '../suite/index.js';
import { dimensions, matchesReference, renderRuleMatrixMarkdown, ruleMatrix } from './rule-matrix.js';

const checkIds = suiteAreas.flatMap((area) => area.checks.map((check) => check.id));
const references = ruleMatrix.flatMap((row) =>
  dimensions.flatMap(({ id }) =>
    'checks' in row.cells[id] ? [...(row.cells[id] as { checks: readonly string[] }).checks] : [],
  ),
);

describe('the rule x dimension matrix', () => {
  it('names only checks the suite has', () => {
    for (const reference of references)
      expect(
        checkIds.some((id) => matchesReference(id, reference)),
        reference,
      ).toBe(true);
  });

  it('places every check of the suite in at least one cell (the Prism cross-check judges them all)', () => {
    const unplaced = checkIds.filter(
      (id) => id !== 'every.prism' && !references.some((reference) => matchesReference(id, reference)),
    );
    expect(unplaced).toEqual([]);
  });

  it('gives every cell checks or a reason', () => {
    for (const row of ruleMatrix) {
      for (const { id } of dimensions) {
        const entry = row.cells[id];
        expect('checks' in entry ? entry.checks.length : entry.reason.length, `${row.rule} x ${id}`).toBeGreaterThan(0);
      }
    }
  });

  it('is the table docs/contract-kit-matrix.md shows', async () => {
    const page = await readFile(fileURLToPath(new URL('../../docs/contract-kit-matrix.md', import.meta.url)), 'utf8');
    const generated = /<!-- matrix:start[^>]*-->\n([\s\S]*?)\n<!-- matrix:end -->/.exec(page)?.[1];
    expect(generated).toBe(renderRuleMatrixMarkdown());
  });
});

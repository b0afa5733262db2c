import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
// Its bin, run as the CLI runs it (the package exports no path to it).
const cruiser = join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
  cycle?: { name: string }[];
}

// The rules are written once, in .dependency-cruiser.cjs (no cycles; spec -> src/core -> src/server |
// mocks; contract-tests -> spec; the rooms of src/core each importing only the rooms below it).
it('every import follows the written rules, and none goes in a circle', { timeout: 180_000 }, async () => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [cruiser, '--config', '.dependency-cruiser.cjs', '--output-type', 'json', 'src', 'mocks', 'spec', 'contract-tests'],
    { cwd: root, maxBuffer: 64 * 1024 * 1024 },
  );
  const result = JSON.parse(stdout) as { summary: { violations: Violation[]; totalCruised: number } };
  const violations = result.summary.violations.map(
    (violation) =>
      `${violation.rule.name}: ${violation.from} -> ${violation.to}${violation.cycle ? ` (cycle: ${violation.cycle.map((step) => step.name).join(' -> ')})` : ''}`,
  );
  expect(violations).toEqual([]);
  // The rules did look at the code (a wrong path would cruise nothing and pass).
  expect(result.summary.totalCruised).toBeGreaterThan(100);
});

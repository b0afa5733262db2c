import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCompositeAction } from '../support/github-actions.js';
import { type MockProcess, startMockProcess } from '../support/mock-process.js';
import { installSourcePackage } from '../support/source-package.js';
import { type FakePetstore, fakeKeys, startFakePetstore } from './support/fake-petstore.js';

// The Action (action.yml at the root) run as GitHub's runner runs a composite action: its steps in their
// shell with INPUT_* mapped from the inputs, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files; against our mock,
// with the kit installed in the workspace as a devDependency.

const root = resolve(import.meta.dirname, '../..');
let work: string;
let workspace: string;
let mock: MockProcess;
let broken: FakePetstore;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'petstore-action-'));
  workspace = join(work, 'workspace');
  await mkdir(workspace);
  await installSourcePackage(workspace);
  [mock, broken] = await Promise.all([
    startMockProcess([]),
    startFakePetstore({ faults: ['unauthorized-without-error-body'] }),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([mock?.stop(), broken?.close()]);
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the GitHub Action', () => {
  it('runs the kit once: the Markdown in the job summary, every report written, the verdict and paths as outputs', async () => {
    const result = await runCompositeAction(
      root,
      {
        'base-url': `${mock.baseUrl}`,
        'api-key': 'demo-pro',
        'rate-limit-key': 'demo-free',
        reports: 'junit, html sarif,json',
      },
      { workspace },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.outputs.verdict).toBe('CONFORMS');
    expect(result.outputs['exit-code']).toBe('0');
    expect(result.summary).toMatch(/^## ✅ petstore-contract: CONFORMS \(exit 0\)/);
    const dir = join(workspace, 'petstore-contract-reports');
    expect(result.outputs['report-dir']).toBe(dir);
    expect(result.outputs['junit-report']).toBe(join(dir, 'contract.xml'));
    expect(result.outputs['sarif-report']).toBe(join(dir, 'contract.sarif'));
    expect(result.outputs['html-report']).toBe(join(dir, 'contract.html'));
    expect(result.outputs['json-report']).toBe(join(dir, 'contract.json'));
    expect(result.outputs['markdown-report']).toBe(join(dir, 'contract.md'));
    expect(result.outputs['human-report']).toBe('');
    // One run: every file carries the same run id.
    const { runId } = JSON.parse(await readFile(join(dir, 'contract.json'), 'utf8'));
    for (const file of ['contract.xml', 'contract.html', 'contract.md', 'contract.sarif'])
      expect(await readFile(join(dir, file), 'utf8')).toContain(runId);
    expect(result.summary).toContain(runId);
    // The keys are masked in the log, and never on a command line.
    expect(result.stdout).toContain('::add-mask::demo-pro');
    expect(result.stdout).toContain('::add-mask::demo-free');
  });

  it('exits 1 for a broken server, the summary and outputs still set', async () => {
    const result = await runCompositeAction(
      root,
      {
        'base-url': broken.baseUrl,
        'api-key': fakeKeys.main,
        reports: 'sarif',
        'read-only': 'true',
        'report-dir': 'reports/broken',
      },
      { workspace },
    );
    expect(result.code, result.stderr).toBe(1);
    expect(result.outputs.verdict).toBe('DOES NOT CONFORM');
    expect(result.summary).toMatch(/^## ❌ petstore-contract: DOES NOT CONFORM \(exit 1\)/);
    const sarif = JSON.parse(await readFile(join(workspace, 'reports/broken/contract.sarif'), 'utf8'));
    expect(sarif.runs[0].results.length).toBeGreaterThan(0);
  });

  it('refuses a bad input in one line, exit 2, before running anything', async () => {
    const result = await runCompositeAction(
      root,
      { 'base-url': mock.baseUrl, 'api-key': 'demo-pro', profile: 'nightly' },
      { workspace },
    );
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      '::error title=petstore-contract::input profile must be default or thorough, got "nightly"',
    );
    const reports = await runCompositeAction(
      root,
      { 'base-url': mock.baseUrl, 'api-key': 'demo-pro', reports: 'pdf' },
      { workspace },
    );
    expect(reports.stderr).toContain('input reports: "pdf" is not one of human, json, junit, markdown, html, sarif');
  });

  describe('with a kit that answers a given exit code (the workspace pins its own kit)', () => {
    let stubbed: string;
    const stub = async (code: number) => {
      // Writes the Markdown report it was asked for (--report=markdown=FILE), then exits with `code`.
      const script = `#!/usr/bin/env node
const target = process.argv.find((arg) => arg.startsWith('--report=markdown='));
if (${code} !== 2 && target) require('node:fs').writeFileSync(target.slice('--report=markdown='.length), '## stub ${code}\\n');
process.stdout.write(JSON.stringify({ argv: process.argv.slice(2), key: process.env.PETSTORE_API_KEY, thorough: process.argv.includes('--thorough') }) + '\\n');
process.exit(${code});
`;
      const bin = join(stubbed, 'node_modules/.bin/petstore-contract');
      await writeFile(bin, script.replace('#!/usr/bin/env node', '#!/usr/bin/env node\n// stub'));
      await chmod(bin, 0o755);
    };
    beforeAll(async () => {
      stubbed = join(work, 'stubbed');
      await mkdir(join(stubbed, 'node_modules/.bin'), { recursive: true });
      await writeFile(join(stubbed, 'package.json'), '{"type":"commonjs"}');
    });

    it('INCONCLUSIVE fails the step (exit 3) by default, and passes with a warning when fail-on-inconclusive is false', async () => {
      await stub(3);
      const inputs = { 'base-url': 'http://127.0.0.1:9/v1', 'api-key': 'k-1', profile: 'thorough' };
      const strict = await runCompositeAction(root, inputs, { workspace: stubbed });
      expect(strict.code).toBe(3);
      expect(strict.outputs.verdict).toBe('INCONCLUSIVE');
      expect(strict.summary).toBe('## stub 3\n');
      const seen = JSON.parse(strict.stdout.split('\n').find((line) => line.startsWith('{'))!);
      expect(seen).toMatchObject({ key: 'k-1', thorough: true });
      expect(seen.argv.join(' ')).not.toContain('k-1');
      const lenient = await runCompositeAction(
        root,
        { ...inputs, 'fail-on-inconclusive': 'false' },
        { workspace: stubbed },
      );
      expect(lenient.code).toBe(0);
      expect(lenient.outputs.verdict).toBe('INCONCLUSIVE');
      expect(lenient.stdout).toContain('::warning title=petstore-contract::INCONCLUSIVE');
    });

    it('a kit that could not run (exit 2) fails the step, the summary says so', async () => {
      await stub(2);
      const result = await runCompositeAction(
        root,
        { 'base-url': 'http://127.0.0.1:9/v1', 'api-key': 'k-1' },
        { workspace: stubbed },
      );
      expect(result.code).toBe(2);
      expect(result.outputs.verdict).toBe('ERROR');
      expect(result.summary).toContain('petstore-contract could not run (exit 2)');
      expect(result.outputs['markdown-report']).toBe('');
    });
  });
});

import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  kitArguments,
  maskCommands,
  outputFileText,
  readInputs,
  reportFolder,
  workflowData,
} from '../../action/run-action.mjs';
import { parseCommandFile, runCompositeAction } from '../support/github-actions.js';

// The Action's inputs and outputs as an attacker shapes them: a value with a line feed or a `%` in a
// workflow command, a value that holds its own output delimiter, a report folder outside the
// workspace, a document named like an option. Each fails without its fix in action/run-action.mjs.

const root = resolve(import.meta.dirname, '../..');
let work: string;
let workspace: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'petstore-action-hostile-'));
  workspace = join(work, 'workspace');
  await mkdir(workspace);
});

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

/** A workflow command's data as the runner reads it back (actions/runner's ActionCommand unescaping). */
function runnerUnescape(data: string): string {
  return data.replaceAll('%0D', '\r').replaceAll('%0A', '\n').replaceAll('%25', '%');
}

/** The log's lines that are workflow commands (`::name ...::data`). */
function commandLines(log: string): string[] {
  return log.split(/\r?\n|\r/).filter((line) => line.startsWith('::'));
}

describe('the GitHub Action, attacked', () => {
  it('masks a key holding `%`, CR or LF as it is: every ::add-mask:: line reads back to the key or one of its lines (property)', () => {
    const secret = fc.string({
      unit: fc.constantFrom('a', 'B', '7', '%', '0', 'A', 'D', '\n', '\r', ':', ' '),
      minLength: 1,
    });
    fc.assert(
      fc.property(secret, (key) => {
        const text = maskCommands(key);
        const lines = text.split('\n').filter((line) => line !== '');
        // One command per line: nothing of the key reaches the log as a line of its own.
        expect(text.endsWith('\n')).toBe(true);
        for (const line of lines) expect(line.startsWith('::add-mask::')).toBe(true);
        const masked = lines.map((line) => runnerUnescape(line.slice('::add-mask::'.length)));
        expect(masked[0]).toBe(key);
        for (const part of key.split(/\r?\n|\r/)) if (part.trim() !== '') expect(masked).toContain(part);
      }),
      { numRuns: 300 },
    );
    expect(maskCommands('ab%0Acd')).toBe('::add-mask::ab%250Acd\n');
  });

  it('an input that carries a line feed cannot start a workflow command of its own (the one ::error line)', async () => {
    const result = await runCompositeAction(
      root,
      { 'base-url': 'http://127.0.0.1:9/v1', 'api-key': 'k-12345678', profile: 'x\n::add-mask::\n::warning::injected' },
      { workspace },
    );
    expect(result.code).toBe(2);
    expect(
      commandLines(`${result.stdout}\n${result.stderr}`).filter((line) => !line.startsWith('::add-mask::')),
    ).toEqual([
      '::error title=petstore-contract::input profile must be default or thorough, got "x%0A::add-mask::%0A::warning::injected"',
    ]);
    expect(workflowData('100%\r\n')).toBe('100%25%0D%0A');
  });

  it('writes $GITHUB_OUTPUT so every value reads back whole, even one holding the delimiter first drawn (property)', () => {
    const value = fc.string({ unit: fc.constantFrom('a', '\n', '=', '<', 'd', '-', ' '), maxLength: 30 });
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('verdict', 'report-dir', 'html-report'), value), (outputs) => {
        // The first delimiters drawn are lines of the values themselves: a guessed delimiter.
        const guesses = Object.values(outputs).flatMap((text) => text.split('\n').filter((line) => line !== ''));
        let drawn = 0;
        const delimiter = () => guesses[drawn++] ?? `petstore_${drawn}_end`;
        expect(parseCommandFile(outputFileText(outputs, delimiter))).toEqual(outputs);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a report-dir outside the workspace, or the workspace itself, and removes nothing there', async () => {
    for (const dir of ['..', '../elsewhere', '/tmp/petstore-reports', '.', './', 'a/../..'])
      expect(() => reportFolder(workspace, dir), dir).toThrow(/report-dir must be a folder inside the workspace/);
    expect(reportFolder(workspace, 'reports/contract')).toBe(join(workspace, 'reports/contract'));
    expect(reportFolder(workspace, join(workspace, 'reports'))).toBe(join(workspace, 'reports'));
    // A folder of the checkout that is a link out of it (a pull request can add one).
    await mkdir(join(work, 'outside'), { recursive: true });
    await symlink(join(work, 'outside'), join(workspace, 'linked-out'));
    for (const dir of ['linked-out', 'linked-out/reports'])
      expect(() => reportFolder(workspace, dir), dir).toThrow(/report-dir must be a folder inside the workspace/);
    // The repository's own contract.json at the workspace root, and a neighbour's beside the workspace.
    await writeFile(join(workspace, 'contract.json'), '{"mine":true}');
    await writeFile(join(work, 'contract.md'), '# not the action’s');
    for (const dir of ['.', '..']) {
      const result = await runCompositeAction(
        root,
        { 'base-url': 'http://127.0.0.1:9/v1', 'api-key': 'k-12345678', 'report-dir': dir },
        { workspace },
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('input report-dir must be a folder inside the workspace');
    }
    expect(await readFile(join(workspace, 'contract.json'), 'utf8')).toBe('{"mine":true}');
    expect(existsSync(join(work, 'contract.md'))).toBe(true);
  });

  it('answers a report folder it cannot make or clear (a file in its place, a folder named contract.md) in one line, no stack trace', async () => {
    await writeFile(join(workspace, 'a-file'), 'x');
    await mkdir(join(workspace, 'planted/contract.md'), { recursive: true });
    for (const [dir, code] of [
      ['a-file/reports', 'ENOTDIR'],
      ['planted', 'EISDIR'],
    ]) {
      const result = await runCompositeAction(
        root,
        { 'base-url': 'http://127.0.0.1:9/v1', 'api-key': 'k-12345678', 'report-dir': dir! },
        { workspace },
      );
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(new RegExp(`^::error title=petstore-contract::input report-dir ${dir}: .*${code}`));
    }
  });

  it('passes a document named like an option as the value of --spec, in one argument', () => {
    const inputs = readInputs({ INPUT_BASE_URL: 'http://h/v1', INPUT_API_KEY: 'k', INPUT_SPEC: '--help' });
    const args = kitArguments(inputs, '/w/reports');
    expect(args).toContain('--spec=--help');
    expect(args).not.toContain('--help');
  });

  it('interpolates no input into its run: script (inputs go through env only)', async () => {
    const action = parse(await readFile(join(root, 'action.yml'), 'utf8')) as { runs: { steps: { run?: string }[] } };
    const scripts = action.runs.steps.flatMap((step) => (step.run === undefined ? [] : [step.run]));
    expect(scripts.length).toBeGreaterThan(0);
    for (const script of scripts) expect(script).not.toContain('${{');
  });
});

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';

/**
 * A GitHub Actions runner in small, for tests: runs a workflow job's steps, or a composite action's,
 * as the runner does (each `run:` in its `shell` with the step's `env`, `GITHUB_OUTPUT`,
 * `GITHUB_ENV` and `GITHUB_STEP_SUMMARY` files per step, `${{ }}` expressions), so the Action and
 * the workflows of the docs run here without GitHub. Expressions it cannot evaluate throw: a
 * workflow the docs show stays within what is tested.
 */

interface StepRecord {
  name: string;
  /** The step's exit code; undefined when skipped by its `if:`. */
  code: number | undefined;
  stdout: string;
  stderr: string;
}

export interface JobResult {
  /** True when a step failed (and did not `continue-on-error`). */
  failed: boolean;
  steps: StepRecord[];
  /** Every step's summary, in order. */
  summary: string;
  /** `actions/upload-artifact` steps: the artifact's name and the paths it would upload. */
  artifacts: { name: string; paths: string[] }[];
  /** `github/codeql-action/upload-sarif` steps: the SARIF file each would upload. */
  sarifUploads: string[];
}

/** What a `uses:` step does here, by the action's name (before `@`). */
export type UsesHandler = (
  step: { with: Record<string, string>; id: string | undefined },
  job: JobContext,
) => Promise<{ code: number; outputs: Record<string, string>; summary?: string; stdout?: string; stderr?: string }>;

/** The job's state the expressions read. */
interface JobContext {
  workspace: string;
  env: Record<string, string>;
  secrets: Record<string, string>;
  vars: Record<string, string>;
  inputs: Record<string, string>;
  steps: Record<string, { outputs: Record<string, string>; outcome: string }>;
  failed: boolean;
  actionPath: string | undefined;
}

type Step = Record<string, unknown> & { run?: string; uses?: string; id?: string; name?: string };

/**
 * Runs one job of a workflow (its `steps`, `env`) in `workspace`; `uses` handles the actions it uses.
 *
 * @example await runWorkflowJob(parse(workflow).jobs.contract, { workspace, secrets, uses: { 'petstore-kit/petstore-kit': runOurAction } })
 */
export async function runWorkflowJob(
  job: { steps: Step[]; env?: Record<string, unknown> },
  options: {
    workspace: string;
    secrets?: Record<string, string>;
    vars?: Record<string, string>;
    env?: Record<string, string>;
    uses?: Record<string, UsesHandler>;
  },
): Promise<JobResult> {
  const context: JobContext = {
    workspace: options.workspace,
    env: { ...(options.env ?? {}) },
    secrets: options.secrets ?? {},
    vars: options.vars ?? {},
    inputs: {},
    steps: {},
    failed: false,
    actionPath: undefined,
  };
  for (const [name, value] of Object.entries(job.env ?? {})) context.env[name] = evaluateText(String(value), context);
  const result: JobResult = { failed: false, steps: [], summary: '', artifacts: [], sarifUploads: [] };
  const handlers: Record<string, UsesHandler> = { ...builtInActions(result), ...(options.uses ?? {}) };
  for (const [index, step] of job.steps.entries()) {
    const name = step.name ?? step.uses ?? `step ${index + 1}`;
    if (!condition(step.if, context)) {
      result.steps.push({ name, code: undefined, stdout: '', stderr: '' });
      continue;
    }
    let outcome: { code: number; outputs: Record<string, string>; summary?: string; stdout?: string; stderr?: string };
    if (step.uses !== undefined) {
      const action = step.uses.split('@')[0]!;
      const handler = handlers[action];
      if (handler === undefined) throw new Error(`Failed to run ${step.uses}: no handler for this action in the test`);
      const inputs = Object.fromEntries(
        Object.entries((step.with as Record<string, unknown>) ?? {}).map(([key, value]) => [
          key,
          evaluateText(String(value), context),
        ]),
      );
      outcome = await handler({ with: inputs, id: step.id }, context);
    } else outcome = await runShellStep(step, context, {});
    result.summary += outcome.summary ?? '';
    result.steps.push({ name, code: outcome.code, stdout: outcome.stdout ?? '', stderr: outcome.stderr ?? '' });
    const failed = outcome.code !== 0 && step['continue-on-error'] !== true;
    if (step.id !== undefined)
      context.steps[step.id] = { outputs: outcome.outputs, outcome: outcome.code === 0 ? 'success' : 'failure' };
    if (failed) context.failed = true;
  }
  result.failed = context.failed;
  return result;
}

/**
 * Runs a composite action (its action.yml) with `inputs` as a `uses:` step would: defaults applied,
 * required ones checked, its steps run, its outputs evaluated.
 *
 * @example const { code, outputs, summary } = await runCompositeAction(root, { 'base-url': url, 'api-key': 'demo-pro' }, { workspace });
 */
export async function runCompositeAction(
  actionPath: string,
  inputs: Record<string, string>,
  options: { workspace: string; env?: Record<string, string> },
): Promise<{ code: number; outputs: Record<string, string>; summary: string; stdout: string; stderr: string }> {
  const action = parse(await readFile(join(actionPath, 'action.yml'), 'utf8')) as {
    inputs: Record<string, { required?: boolean; default?: string }>;
    outputs: Record<string, { value: string }>;
    runs: { using: string; steps: Step[] };
  };
  if (action.runs.using !== 'composite') throw new Error(`Failed to run ${actionPath}: not a composite action`);
  for (const name of Object.keys(inputs))
    if (action.inputs[name] === undefined) throw new Error(`Failed to run the action: unexpected input ${name}`);
  const context: JobContext = {
    workspace: options.workspace,
    env: { ...(options.env ?? {}) },
    secrets: {},
    vars: {},
    inputs: Object.fromEntries(
      Object.entries(action.inputs).map(([name, spec]) => [name, inputs[name] ?? String(spec.default ?? '')]),
    ),
    steps: {},
    failed: false,
    actionPath,
  };
  let summary = '';
  let stdout = '';
  let stderr = '';
  let code = 0;
  for (const step of action.runs.steps) {
    if (typeof step.shell !== 'string') throw new Error('Failed to run the action: a composite run step needs shell');
    if (!condition(step.if, context)) continue;
    const outcome = await runShellStep(step, context, { GITHUB_ACTION_PATH: actionPath });
    summary += outcome.summary;
    stdout += outcome.stdout;
    stderr += outcome.stderr;
    if (step.id !== undefined)
      context.steps[step.id] = { outputs: outcome.outputs, outcome: outcome.code === 0 ? 'success' : 'failure' };
    if (outcome.code !== 0) {
      code = outcome.code;
      context.failed = true;
      break;
    }
  }
  const outputs = Object.fromEntries(
    Object.entries(action.outputs).map(([name, output]) => [name, evaluateText(output.value, context)]),
  );
  return { code, outputs, summary, stdout, stderr };
}

/** A `run:` step: its script in its shell, with the files the runner gives every step. */
async function runShellStep(
  step: Step,
  context: JobContext,
  extraEnv: Record<string, string>,
): Promise<{ code: number; outputs: Record<string, string>; summary: string; stdout: string; stderr: string }> {
  const files = await mkdtemp(join(tmpdir(), 'gha-step-'));
  const [output, envFile, summaryFile, script] = ['output', 'env', 'summary', 'script.sh'].map((name) =>
    join(files, name),
  );
  await Promise.all([output, envFile, summaryFile].map((file) => writeFile(file!, '')));
  await writeFile(script!, evaluateText(String(step.run), context));
  const stepEnv = Object.fromEntries(
    Object.entries((step.env as Record<string, unknown>) ?? {}).map(([name, value]) => [
      name,
      evaluateText(String(value), context),
    ]),
  );
  const shell = String(step.shell ?? 'bash');
  const argv =
    shell === 'bash'
      ? ['bash', '--noprofile', '--norc', '-eo', 'pipefail', script!]
      : shell === 'sh'
        ? ['sh', '-e', script!]
        : [];
  if (argv.length === 0) throw new Error(`Failed to run a step: shell ${shell} is not supported here`);
  const cwd =
    step['working-directory'] === undefined
      ? context.workspace
      : resolve(context.workspace, String(step['working-directory']));
  const { code, stdout, stderr } = await run(argv, cwd, {
    ...(process.env as Record<string, string>),
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: context.workspace,
    RUNNER_TEMP: files,
    ...context.env,
    ...stepEnv,
    ...extraEnv,
    GITHUB_OUTPUT: output!,
    GITHUB_ENV: envFile!,
    GITHUB_STEP_SUMMARY: summaryFile!,
  });
  Object.assign(context.env, parseCommandFile(await readFile(envFile!, 'utf8')));
  return {
    code,
    outputs: parseCommandFile(await readFile(output!, 'utf8')),
    summary: await readFile(summaryFile!, 'utf8'),
    stdout,
    stderr,
  };
}

function run(argv: string[], cwd: string, env: Record<string, string>) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((done, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => done({ code: code ?? 1, stdout, stderr }));
  });
}

/** `name=value` and `name<<DELIMITER ... DELIMITER` lines ($GITHUB_OUTPUT, $GITHUB_ENV). */
export function parseCommandFile(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]!;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2]!, index + 1);
      if (end === -1) throw new Error(`Failed to read a command file: ${heredoc[2]} never closes`);
      values[heredoc[1]!] = lines.slice(index + 1, end).join('\n');
      index = end;
    } else if (line.includes('=')) values[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
  }
  return values;
}

/** Replaces each `${{ expression }}` in `text`. */
function evaluateText(text: string, context: JobContext): string {
  return text.replace(/\$\{\{\s*(.+?)\s*\}\}/g, (_, expression: string) => String(evaluate(expression, context)));
}

/** A step's `if:` (a bare expression or one in `${{ }}`); `success()` when absent. */
function condition(expression: unknown, context: JobContext): boolean {
  if (expression === undefined) return !context.failed;
  const text = String(expression).replace(/^\$\{\{\s*([\s\S]*?)\s*\}\}$/, '$1');
  const value = evaluate(text, context);
  // GitHub adds success() to a condition that names no status function.
  return /\b(always|success|failure|cancelled)\(\)/.test(text) ? Boolean(value) : !context.failed && Boolean(value);
}

/** The expressions the docs' workflows use: contexts, status functions, ==, !=, !, && and ||. */
function evaluate(expression: string, context: JobContext): string | boolean {
  const or = splitTop(expression, '||');
  if (or.length > 1) return or.some((part) => Boolean(evaluate(part, context)));
  const and = splitTop(expression, '&&');
  if (and.length > 1) return and.every((part) => Boolean(evaluate(part, context)));
  const comparison = /^(.+?)\s*(==|!=)\s*(.+)$/.exec(expression.trim());
  if (comparison) {
    const equal = String(evaluate(comparison[1]!, context)) === String(evaluate(comparison[3]!, context));
    return comparison[2] === '==' ? equal : !equal;
  }
  const text = expression.trim();
  if (text.startsWith('!')) return !evaluate(text.slice(1), context);
  if (/^'.*'$/.test(text)) return text.slice(1, -1).replaceAll("''", "'");
  if (text === 'always()') return true;
  if (text === 'success()') return !context.failed;
  if (text === 'failure()') return context.failed;
  if (text === 'cancelled()') return false;
  if (text === 'github.action_path' && context.actionPath !== undefined) return context.actionPath;
  if (text === 'github.workspace') return context.workspace;
  const path = /^(inputs|secrets|vars|env)\.([\w-]+)$/.exec(text);
  if (path) return context[path[1] as 'inputs' | 'secrets' | 'vars' | 'env'][path[2]!] ?? '';
  const step = /^steps\.([\w-]+)\.(outputs\.([\w-]+)|outcome|conclusion)$/.exec(text);
  if (step) {
    const record = context.steps[step[1]!];
    return step[3] === undefined ? (record?.outcome ?? '') : (record?.outputs[step[3]] ?? '');
  }
  throw new Error(`Failed to evaluate \${{ ${expression} }}: not an expression this test runner knows`);
}

function splitTop(expression: string, operator: string): string[] {
  return expression.split(operator).map((part) => part.trim());
}

/** Actions every workflow of the docs may use: the checkout (the workspace is ready), setup-node, the uploads. */
function builtInActions(result: JobResult): Record<string, UsesHandler> {
  const noop: UsesHandler = async () => ({ code: 0, outputs: {} });
  return {
    'actions/checkout': noop,
    'actions/setup-node': noop,
    'actions/upload-artifact': async (step, job) => {
      const paths = (step.with.path ?? '')
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '');
      result.artifacts.push({ name: step.with.name ?? 'artifact', paths });
      const missing = paths.filter((path) => !existsSync(resolve(job.workspace, path)));
      // upload-artifact's default (if-no-files-found: warn) passes without files; the test reads what is missing.
      return { code: 0, outputs: {}, stderr: missing.length === 0 ? '' : `missing: ${missing.join(', ')}` };
    },
    'github/codeql-action/upload-sarif': async (step, job) => {
      const file = resolve(job.workspace, step.with.sarif_file ?? '');
      result.sarifUploads.push(file);
      return { code: existsSync(file) ? 0 : 1, outputs: {} };
    },
  };
}

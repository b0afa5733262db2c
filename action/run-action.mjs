// The GitHub Action's one step (action.yml): runs petstore-contract once with every report asked
// for, writes the Markdown report to the job summary, sets the outputs and exits as the kit does.
// Plain Node (no dependency: the action is checked out without node_modules), and importable, so
// test/contract-kit/github-action.test.ts runs it as the runner would. Decision 044 says why.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { appendFile, mkdir, readFile, rm } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** Formats the kit writes, and each one's file name in the report folder. */
export const reportFiles = {
  human: 'contract.txt',
  json: 'contract.json',
  junit: 'contract.xml',
  markdown: 'contract.md',
  html: 'contract.html',
  sarif: 'contract.sarif',
};

/** The run's verdict by the kit's exit code (2: the kit could not run: a bad input, the server unreachable, a key refused). */
export const verdicts = { 0: 'CONFORMS', 1: 'DOES NOT CONFORM', 2: 'ERROR', 3: 'INCONCLUSIVE' };

/**
 * The inputs (INPUT_* variables, as action.yml maps them), checked; throws an Error with one line.
 *
 * @example readInputs({ INPUT_BASE_URL: 'https://staging.example.com/v1', INPUT_API_KEY: 'k', INPUT_REPORTS: 'junit, sarif' })
 */
export function readInputs(env) {
  const input = (name) => (env[`INPUT_${name}`] ?? '').trim();
  const flag = (name, fallback) => {
    const text = input(name).toLowerCase() || fallback;
    if (text !== 'true' && text !== 'false')
      throw new Error(`input ${name.toLowerCase().replaceAll('_', '-')} must be true or false, got "${text}"`);
    return text === 'true';
  };
  const baseUrl = input('BASE_URL');
  const apiKey = input('API_KEY');
  if (baseUrl === '') throw new Error('input base-url is required (the server, /v1 included)');
  if (apiKey === '') throw new Error('input api-key is required (pass it from a secret)');
  const profile = input('PROFILE') || 'default';
  if (profile !== 'default' && profile !== 'thorough')
    throw new Error(`input profile must be default or thorough, got "${profile}"`);
  const reports = input('REPORTS')
    .split(/[\s,]+/)
    .filter((name) => name !== '');
  for (const name of reports)
    if (!Object.hasOwn(reportFiles, name))
      throw new Error(`input reports: "${name}" is not one of ${Object.keys(reportFiles).join(', ')}`);
  // The Markdown is always written: it is the job summary.
  const formats = [...new Set(['markdown', ...reports])];
  return {
    baseUrl,
    apiKey,
    rateLimitKey: input('RATE_LIMIT_KEY') || undefined,
    spec: input('SPEC') || undefined,
    profile,
    readOnly: flag('READ_ONLY', 'false'),
    formats,
    failOnInconclusive: flag('FAIL_ON_INCONCLUSIVE', 'true'),
    reportDir: input('REPORT_DIR') || 'petstore-contract-reports',
  };
}

/**
 * The kit's command line: the reports as `--report FORMAT=FILE`, the profile and the document.
 * The keys are not on it: they go in the environment (PETSTORE_API_KEY, ...), out of process lists.
 */
export function kitArguments(inputs, reportDir) {
  return [
    ...inputs.formats.map((format) => `--report=${format}=${join(reportDir, reportFiles[format])}`),
    ...(inputs.profile === 'thorough' ? ['--thorough'] : []),
    ...(inputs.readOnly ? ['--read-only'] : []),
    // One argument: a document named `--help` or `-x` stays the option's value.
    ...(inputs.spec === undefined ? [] : [`--spec=${inputs.spec}`]),
  ];
}

/**
 * How to start the kit: the workspace's own (a devDependency, the version it pins), else the
 * release of this action's tag from the registry (`npx -p petstore-kit@VERSION`).
 */
export function kitCommand(workspace, actionPath) {
  const local = join(workspace, 'node_modules', '.bin', 'petstore-contract');
  if (existsSync(local)) return [local];
  const { version } = JSON.parse(readFileSync(join(actionPath, 'package.json'), 'utf8'));
  return ['npx', '--yes', '--package', `petstore-kit@${version}`, 'petstore-contract'];
}

/**
 * A workflow command's data (`::add-mask::DATA`, `::error::DATA`) escaped as the runner reads it
 * (actions/toolkit's escapeData): a `%`, CR or LF of an input or a message can neither change what
 * is masked nor start a command of its own on the next line.
 *
 * @example workflowData('a%0Ab\n::warning::x') // 'a%250Ab%0A::warning::x'
 */
export function workflowData(text) {
  return String(text).replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
}

/**
 * The `::add-mask::` lines for a secret: the whole of it, and each line of one that has several
 * (the runner masks a log line by the values it knows, and a log line never holds a line feed).
 */
export function maskCommands(secret) {
  const lines = secret.split(/\r?\n|\r/).filter((line) => line.trim() !== '' && line !== secret);
  return [secret, ...lines].map((value) => `::add-mask::${workflowData(value)}\n`).join('');
}

const randomDelimiter = () => `petstore_${randomBytes(8).toString('hex')}`;

/**
 * The text appended to $GITHUB_OUTPUT: each `name<<DELIMITER` value in the multi-line form (a path
 * may hold anything), with a delimiter the value does not hold (drawn again if it does, as
 * actions/toolkit refuses one), so no value can end its own entry and set another output.
 *
 * @example outputFileText({ verdict: 'CONFORMS' }) // 'verdict<<petstore_…\nCONFORMS\npetstore_…\n'
 */
export function outputFileText(outputs, newDelimiter = randomDelimiter) {
  return Object.entries(outputs)
    .map(([name, value]) => {
      let delimiter = newDelimiter();
      while (String(value).includes(delimiter) || name.includes(delimiter)) delimiter = newDelimiter();
      return `${name}<<${delimiter}\n${value}\n${delimiter}\n`;
    })
    .join('');
}

/** Appends the outputs to $GITHUB_OUTPUT. */
async function setOutputs(file, outputs) {
  if (!file) return;
  await appendFile(file, outputFileText(outputs));
}

/**
 * The report folder, absolute: inside the workspace and not the workspace itself (the action
 * replaces its contract.* files, which must never be the repository's own), also once links are
 * followed (a checked-out symlink must not lead the removal elsewhere); one line otherwise.
 */
export function reportFolder(workspace, reportDir) {
  const folder = resolve(workspace, reportDir);
  const root = realpathSync(resolve(workspace));
  if (!isBelow(resolve(workspace), folder) || !isBelow(root, realOfNearest(folder)))
    throw new Error(
      `input report-dir must be a folder inside the workspace (its contract.* files are replaced), got "${reportDir}"`,
    );
  return folder;
}

function isBelow(parent, child) {
  const path = relative(parent, child);
  return path !== '' && path !== '..' && !path.startsWith(`..${sep}`) && !isAbsolute(path);
}

/** The real path of a folder, or of its nearest existing ancestor with the rest appended. */
function realOfNearest(folder) {
  try {
    return realpathSync(folder);
  } catch {
    const parent = dirname(folder);
    return parent === folder ? folder : join(realOfNearest(parent), basename(folder));
  }
}

/** Runs the kit with its output on the job's log; forwards the runner's SIGINT/SIGTERM (a cancelled job). */
function runKit(command, args, env) {
  return new Promise((done) => {
    const child = spawn(command[0], [...command.slice(1), ...args], { stdio: 'inherit', env });
    const forward = (signal) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('error', (error) => {
      process.stderr.write(`petstore-contract action: Failed to start ${command[0]}: ${error.message}\n`);
      done(2);
    });
    child.on('close', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      done(code ?? (signal === 'SIGINT' ? 130 : 143));
    });
  });
}

/**
 * The step: returns the exit code, the kit's own unless an INCONCLUSIVE run (3) may pass
 * (`fail-on-inconclusive: false`), then 0 with a warning.
 */
export async function runAction(env = process.env) {
  let inputs;
  try {
    inputs = readInputs(env);
  } catch (error) {
    process.stderr.write(`::error title=petstore-contract::${workflowData(error.message)}\n`);
    return 2;
  }
  for (const secret of [inputs.apiKey, inputs.rateLimitKey]) if (secret) process.stdout.write(maskCommands(secret));
  const workspace = env.GITHUB_WORKSPACE || process.cwd();
  let reportDir;
  try {
    reportDir = reportFolder(workspace, inputs.reportDir);
    await mkdir(reportDir, { recursive: true });
    // A report left by an earlier run in the folder would pass for this run's (a summary of another verdict).
    await Promise.all(Object.values(reportFiles).map((name) => rm(join(reportDir, name), { force: true })));
  } catch (error) {
    // A bad folder, or one the action cannot make or clear (a file in its place, a folder named contract.md): one line.
    const problem =
      error.code === undefined
        ? error.message
        : `input report-dir ${inputs.reportDir}: ${error.code} ${error.path ?? ''}`;
    process.stderr.write(`::error title=petstore-contract::${workflowData(problem.trim())}\n`);
    return 2;
  }
  const kitEnv = {
    ...env,
    PETSTORE_BASE_URL: inputs.baseUrl,
    PETSTORE_API_KEY: inputs.apiKey,
    PETSTORE_RATE_LIMIT_KEY: inputs.rateLimitKey ?? '',
  };
  const command = kitCommand(workspace, env.GITHUB_ACTION_PATH || resolve(import.meta.dirname, '..'));
  const code = await runKit(command, kitArguments(inputs, reportDir), kitEnv);
  const verdict = verdicts[code] ?? 'ERROR';
  const markdownFile = join(reportDir, reportFiles.markdown);
  const summary = await readFile(markdownFile, 'utf8').catch(() => undefined);
  if (env.GITHUB_STEP_SUMMARY)
    await appendFile(
      env.GITHUB_STEP_SUMMARY,
      summary ?? `## petstore-contract could not run (exit ${code})\n\nThe job's log says why, in one line.\n`,
    );
  const written = inputs.formats.filter((format) => existsSync(join(reportDir, reportFiles[format])));
  await setOutputs(env.GITHUB_OUTPUT, {
    verdict,
    'exit-code': String(code),
    'report-dir': reportDir,
    ...Object.fromEntries(written.map((format) => [`${format}-report`, join(reportDir, reportFiles[format])])),
  });
  if (code === 3 && !inputs.failOnInconclusive) {
    process.stdout.write(
      '::warning title=petstore-contract::INCONCLUSIVE: required checks could not run (rate limits, deadline); fail-on-inconclusive is false, so the step passes\n',
    );
    return 0;
  }
  return code;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  process.exitCode = await runAction();
}

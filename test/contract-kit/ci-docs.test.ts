import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type JobResult, runCompositeAction, runWorkflowJob, type UsesHandler } from '../support/github-actions.js';
import { codeBlocks } from '../support/markdown.js';
import { type MockProcess, startMockProcess } from '../support/mock-process.js';
import { installSourcePackage } from '../support/source-package.js';

// Every workflow of docs/contract-kit-ci.md, extracted and run as its CI system would run it: GitHub jobs
// step by step (run: in bash with the job's env, the Action through its action.yml, the uploads checked for
// their files), GitLab jobs' script lines in order. "Staging" is our mock; the secrets are its demo keys.
// The nightly job's --thorough run takes up to ten minutes against a conforming server, so its workspace
// pins a kit that records what it was asked for: its wiring is what the page shows (the profile itself is
// tested by the contract-kit tests).

const root = resolve(import.meta.dirname, '../..');
const page = () => readFile(join(root, 'docs/contract-kit-ci.md'), 'utf8');
const secrets = { STAGING_KEY: 'demo-pro', STAGING_SPARE_KEY: 'demo-free' };

/** A client test suite (npm test): a served request, a refused key, then one key's minute spent to its first 429. */
const clientSuite = `const base = process.env.PETSTORE_BASE_URL;
const get = (key) => fetch(base + '/categories', { headers: { authorization: 'Bearer ' + key } }).then((r) => r.status);
if ((await get('demo-pro')) !== 200) process.exit(1);
if ((await get('not-a-key')) !== 401) process.exit(1);
for (let i = 0; i < 70; i += 1) if ((await get('demo-free')) === 429) process.exit(0);
process.exit(1);
`;

let work: string;
let mock: MockProcess;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'petstore-ci-docs-'));
  mock = await startMockProcess([]);
}, 60_000);

afterAll(async () => {
  await mock?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

/** A fresh workspace: the kit installed as a dev dependency, the client suite as npm test. */
async function workspace(name: string): Promise<string> {
  const dir = join(work, name);
  await mkdir(dir, { recursive: true });
  await installSourcePackage(dir);
  const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
  await writeFile(join(dir, 'package.json'), JSON.stringify({ ...manifest, scripts: { test: 'node client.mjs' } }));
  await writeFile(join(dir, 'client.mjs'), clientSuite);
  // Each job meets a mock in its first state, as a staging server between pipelines.
  await fetch(`${new URL(mock.baseUrl).origin}/__mock/reset`, { method: 'POST' });
  return dir;
}

/** A kit that records its arguments and writes each --report=FORMAT=FILE asked for, then exits 0. */
async function recordingKit(dir: string): Promise<void> {
  const bin = join(dir, 'node_modules/.bin/petstore-contract');
  await rm(bin);
  await writeFile(
    bin,
    `#!/usr/bin/env node
import { appendFileSync, writeFileSync } from 'node:fs';
appendFileSync(${JSON.stringify(join(dir, 'kit-argv.jsonl'))}, JSON.stringify(process.argv.slice(2)) + '\\n');
for (const arg of process.argv) if (arg.startsWith('--report=')) writeFileSync(arg.split('=').slice(2).join('='), '## recorded\\n');
`,
  );
  await chmod(bin, 0o755);
}

/** `uses: petstore-kit/petstore-kit@...`: this repository's action.yml. */
const ourAction: UsesHandler = (step, job) => runCompositeAction(root, step.with, { workspace: job.workspace });

type GithubWorkflow = { name: string; jobs: Record<string, { steps: never[]; env?: Record<string, unknown> }> };
type GitlabJob = {
  script: string[];
  before_script?: string[];
  variables?: Record<string, string>;
  allow_failure?: { exit_codes: number[] };
  artifacts?: { paths?: string[]; reports?: { junit?: string } };
};

async function workflows(): Promise<{ github: GithubWorkflow[]; gitlab: Record<string, GitlabJob>[] }> {
  const github: GithubWorkflow[] = [];
  const gitlab: Record<string, GitlabJob>[] = [];
  for (const block of codeBlocks(await page()).filter((entry) => entry.lang === 'yaml')) {
    const document = parse(block.text) as Record<string, unknown>;
    if (document.jobs !== undefined) github.push(document as GithubWorkflow);
    else if (Object.values(document).some((job) => (job as GitlabJob)?.script !== undefined))
      gitlab.push(document as Record<string, GitlabJob>);
    else throw new Error(`Failed to tell which CI system this block of contract-kit-ci.md is for:\n${block.text}`);
  }
  return { github, gitlab };
}

async function runGithubJob(workflow: GithubWorkflow, jobName: string, dir: string): Promise<JobResult> {
  return runWorkflowJob(workflow.jobs[jobName]!, {
    workspace: dir,
    secrets,
    vars: { STAGING_URL: mock.baseUrl },
    uses: { 'petstore-kit/petstore-kit': ourAction },
  });
}

describe('the workflows of docs/contract-kit-ci.md', () => {
  it('the page shows GitHub workflows and a GitLab pipeline, each used below', async () => {
    const { github, gitlab } = await workflows();
    expect(github.map((workflow) => workflow.name)).toEqual([
      'contract',
      'contract-nightly',
      'contract-shell',
      'app-tests',
    ]);
    expect(gitlab.map((pipeline) => Object.keys(pipeline))).toEqual([['contract']]);
  });

  it('GitHub, the Action: the summary, the HTML and JUnit as an artifact, the SARIF to code scanning', async () => {
    const workflow = (await workflows()).github.find((entry) => entry.name === 'contract')!;
    const dir = await workspace('action');
    const job = await runGithubJob(workflow, 'contract', dir);
    expect(job.failed, JSON.stringify(job.steps, null, 1)).toBe(false);
    expect(job.summary).toMatch(/^## ✅ petstore-contract: CONFORMS \(exit 0\)/);
    expect(job.artifacts).toEqual([
      {
        name: 'contract-report',
        paths: [
          join(dir, 'petstore-contract-reports/contract.html'),
          join(dir, 'petstore-contract-reports/contract.xml'),
        ],
      },
    ]);
    expect(job.steps.find((step) => step.name.startsWith('actions/upload-artifact'))?.stderr).toBe('');
    expect(job.sarifUploads).toEqual([join(dir, 'petstore-contract-reports/contract.sarif')]);
    const sarif = JSON.parse(await readFile(job.sarifUploads[0]!, 'utf8'));
    expect(sarif.version).toBe('2.1.0');
    // read-only: true reached the kit: its POST checks are SKIP.
    const junit = await readFile(join(dir, 'petstore-contract-reports/contract.xml'), 'utf8');
    expect(junit).toContain('read-only run: this check sends POST requests');
  });

  it('GitHub, nightly: the thorough profile, every report of the run uploaded from the report folder', async () => {
    const workflow = (await workflows()).github.find((entry) => entry.name === 'contract-nightly')!;
    const dir = await workspace('nightly');
    await recordingKit(dir);
    const job = await runGithubJob(workflow, 'thorough', dir);
    expect(job.failed, JSON.stringify(job.steps, null, 1)).toBe(false);
    const argv = JSON.parse((await readFile(join(dir, 'kit-argv.jsonl'), 'utf8')).trim()) as string[];
    expect(argv).toContain('--thorough');
    expect(argv.filter((arg) => arg.startsWith('--report=')).map((arg) => arg.split('=')[1])).toEqual([
      'markdown',
      'json',
      'html',
    ]);
    expect(job.artifacts).toEqual([{ name: 'contract-nightly', paths: [join(dir, 'petstore-contract-reports')] }]);
    expect(job.summary).toBe('## recorded\n');
  });

  it('GitHub, a shell step: one run writes every report, the summary step reads the Markdown it wrote', async () => {
    const workflow = (await workflows()).github.find((entry) => entry.name === 'contract-shell')!;
    const dir = await workspace('shell');
    const job = await runGithubJob(workflow, 'contract', dir);
    expect(job.failed, JSON.stringify(job.steps, null, 1)).toBe(false);
    expect(job.summary).toMatch(/^## ✅ petstore-contract: CONFORMS \(exit 0\)/);
    const runId = /run `([0-9a-f]+)`/.exec(job.summary)?.[1] ?? /run ([0-9a-f]{8})/.exec(job.summary)?.[1];
    expect(runId).toBeDefined();
    for (const file of ['contract.xml', 'contract.html'])
      expect(await readFile(join(dir, file), 'utf8')).toContain(runId);
  });

  it('GitHub, -- COMMAND: the tests inside the mock, then through the proxy to staging, the proxy report in the summary', async () => {
    const workflow = (await workflows()).github.find((entry) => entry.name === 'app-tests')!;
    const dir = await workspace('app-tests');
    const job = await runGithubJob(workflow, 'test', dir);
    expect(job.failed, JSON.stringify(job.steps, null, 1)).toBe(false);
    expect(XMLValidator.validate(await readFile(join(dir, 'lab.xml'), 'utf8'))).toBe(true);
    expect(job.summary).toContain('**Server: PASS** · **Client: PASS**');
    // A failing suite fails the step, with its own exit code.
    await writeFile(join(dir, 'client.mjs'), 'process.exit(7);\n');
    const failing = await runGithubJob(workflow, 'test', dir);
    expect(failing.failed).toBe(true);
    expect(failing.steps[1]!.code).toBe(7);
  });

  it('GitLab: the script as written, the JUnit report and the artifacts written, exit 3 let pass', async () => {
    const pipeline = (await workflows()).gitlab[0]!;
    const job = pipeline.contract!;
    expect(job.allow_failure).toEqual({ exit_codes: [3] });
    const dir = await workspace('gitlab');
    const result = await runWorkflowJob(
      { steps: [{ run: [...(job.before_script ?? []), ...job.script].join('\n'), shell: 'bash' } as never] },
      {
        workspace: dir,
        env: {
          ...(job.variables ?? {}),
          PETSTORE_BASE_URL: mock.baseUrl,
          PETSTORE_API_KEY: 'demo-pro',
          PETSTORE_RATE_LIMIT_KEY: 'demo-free',
        },
      },
    );
    expect(result.failed, JSON.stringify(result.steps, null, 1)).toBe(false);
    expect(XMLValidator.validate(await readFile(join(dir, job.artifacts!.reports!.junit!), 'utf8'))).toBe(true);
    for (const path of job.artifacts!.paths!)
      await expect(readFile(join(dir, path), 'utf8')).resolves.toContain('petstore-contract');
  });
});

import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { renderHumanReport } from '../../contract-tests/report/human-report.js';
import { sampleReport, sampleResult } from '../../contract-tests/report/report.fixture.js';
import { type ReplayCommandIo, runReplayCommand } from '../../src/cli/replay-command.js';
import { createConsoleLogger } from '../../src/server/console-logger.js';
import { startCli } from './support/cli-process.js';
import { terminalPayload, terminalProblems } from './support/terminal-payload.js';
import { exportLine, harDocument, harEntry } from './support/worst-case-inputs.js';

/**
 * One sanitiser for every terminal line the project writes (issue 28, item 5 and finding 8): every
 * control character, escape sequence and invisible format character that a recorded URL, a plan
 * name, a key, a spec's title, a path or a server's answer carries is printed escaped, through the
 * mock's logger, the replay command and the contract kit alike.
 */
const projectRoot = fileURLToPath(new URL('../../', import.meta.url));
let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'petstore-terminal-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** The payload without what no argv and no bearer token can hold (NUL; white space ends a token). */
const argumentPayload = terminalPayload.replaceAll('\0', '');
const tokenPayload = [...terminalPayload].filter((char) => !/\s/u.test(char)).join('');

function replayIo(files: Record<string, string>): { io: ReplayCommandIo; output: () => string } {
  const written: string[] = [];
  const io: ReplayCommandIo = {
    stdout: (text) => written.push(text),
    stderr: (text) => written.push(text),
    readFile: async (path) => {
      if (!Object.hasOwn(files, path))
        throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT' });
      return files[path]!;
    },
    writeFile: async () => {},
  };
  return { io, output: () => written.join('') };
}

describe('the mock', () => {
  it('the console logger escapes what it is given, at every level', () => {
    const written: string[] = [];
    const capture = (text: string | Uint8Array) => {
      written.push(String(text));
      return true;
    };
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(capture);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(capture);
    try {
      const logger = createConsoleLogger({ verbose: true });
      logger.info(terminalPayload);
      logger.warn(terminalPayload);
      logger.error(terminalPayload);
      logger.debug(terminalPayload);
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
    expect(written).toHaveLength(4);
    expect(terminalProblems(written.join(''))).toEqual([]);
  });

  it("petstore-mock prints a spec's title and its own errors escaped", async () => {
    // A request cannot carry any of it into the log: node:http refuses a request line with a byte outside printable ASCII.
    const spec = parseYaml(await readFile(join(projectRoot, 'spec/petstore.openapi.yaml'), 'utf8')) as {
      info: { title: string };
    };
    spec.info.title = `Petstore ${terminalPayload}`;
    const specPath = join(folder, 'hostile-spec.json');
    await writeFile(specPath, JSON.stringify(spec));
    const cli = await startCli(['--verbose', '--spec', specPath]);
    await cli.kill();
    expect(cli.stdout()).toContain('Petstore ');
    expect(terminalProblems(cli.stdout() + cli.stderr())).toEqual([]);

    const failed = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'src/cli/mock-cli.ts', '--config', join(folder, argumentPayload)],
      { cwd: projectRoot, encoding: 'utf8', timeout: 60_000 },
    );
    expect(failed.status).toBe(2);
    expect(failed.stderr).toContain('Failed to load config');
    expect(
      terminalProblems(
        failed.stderr
          .split('\n')
          .filter((line) => !line.startsWith('npm warn'))
          .join('\n'),
      ),
    ).toEqual([]);
  });
});

describe('petstore-mock replay', () => {
  it('prints the plans, clients and URLs of a recording escaped, in the summary and its differences', async () => {
    const har = harDocument(
      [0, 1, 2].map((index) =>
        harEntry(index, { url: `http://h/v1/categories?q=${encodeURIComponent(terminalPayload)}` }),
      ),
    );
    const chunks = terminalPayload.match(/[\s\S]{1,60}/gu)!;
    const lines = chunks.map((plan, index) =>
      exportLine(index, {
        plan,
        client: `client-${index.toString(16).padStart(12, '0')}`,
        url: `/v1/categories?${terminalPayload}`,
        status: 201,
      }),
    );
    const { io, output } = replayIo({ 'hostile.har': har, 'hostile.jsonl': `${lines.join('\n')}\n` });
    expect(await runReplayCommand(['hostile.har', '--default-plan', 'free'], io)).toBe(0);
    expect(await runReplayCommand(['hostile.jsonl'], io)).toBe(0);
    expect(output()).toContain('Recorded statuses: 0 of');
    expect(terminalProblems(output())).toEqual([]);
  });

  it('prints its one-line errors escaped: keys no mock has, unknown plans, lines that are not JSON, missing files', async () => {
    const har = harDocument([harEntry(0, { key: `sk${tokenPayload}` })]);
    const { io, output } = replayIo({ 'keys.har': har, 'bad.jsonl': `${exportLine(0)}\n${terminalPayload}\n` });
    expect(await runReplayCommand(['keys.har'], io)).toBe(2);
    expect(await runReplayCommand(['keys.har', '--key', `${argumentPayload}=${argumentPayload}`], io)).toBe(2);
    expect(await runReplayCommand(['keys.har', '--default-plan', argumentPayload], io)).toBe(2);
    expect(await runReplayCommand(['bad.jsonl'], io)).toBe(2);
    expect(await runReplayCommand([argumentPayload], io)).toBe(2);
    expect(await runReplayCommand(['keys.har', '--timeline', argumentPayload], io)).toBe(2);
    expect(
      output()
        .split('\n')
        .filter((line) => line !== ''),
    ).toHaveLength(6);
    expect(terminalProblems(output())).toEqual([]);
  });
});

describe('the contract kit', () => {
  it("prints a server's answers, the target and the spec escaped in its report", () => {
    const result = sampleResult({
      status: 'FAIL',
      rule: `§4 ${terminalPayload}`,
      title: terminalPayload,
      operation: terminalPayload,
      message: terminalPayload,
      evidence: [
        {
          request: terminalPayload,
          status: 400,
          header: terminalPayload,
          field: terminalPayload,
          detail: terminalPayload,
        },
      ],
    });
    const report = sampleReport([result], {
      target: { baseUrl: terminalPayload, viaPrism: false, prismUrl: undefined },
      spec: { path: 'spec.yaml', title: terminalPayload, version: terminalPayload },
      requestsByKey: { [terminalPayload]: 1 },
    });
    expect(terminalProblems(renderHumanReport(report))).toEqual([]);
  });

  it('petstore-contract prints a usage error escaped', () => {
    const failed = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        'contract-tests/cli/contract-cli.ts',
        '--base-url',
        `http://h/${argumentPayload}`,
        '--seed',
        argumentPayload,
      ],
      { cwd: projectRoot, encoding: 'utf8', timeout: 60_000 },
    );
    expect(failed.status).toBe(2);
    expect(
      terminalProblems(
        failed.stderr
          .split('\n')
          .filter((line) => !line.startsWith('npm warn'))
          .join('\n'),
      ),
    ).toEqual([]);
  });
});

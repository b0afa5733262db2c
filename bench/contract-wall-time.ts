#!/usr/bin/env node
/**
 * `npm run bench:contract`: wall time of one full contract-suite run against the local mock.
 * Starts the mock on a free loopback port (default config, as a user would), runs the contract
 * CLI against it with rate-limit checks on, and prints the wall time and the CLI's exit code.
 *
 * Usage: npm run bench:contract -- [--api-key KEY] [--rate-limit-key KEY] [--timeout S] [-- <contract CLI options>]
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type ManagedProcess, startProcess, stopAllProcesses, stopProcessesOnSignals } from './lib/child-processes.js';
import { findFreePort, waitForAnswer } from './lib/http-probe.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const help = `npm run bench:contract -- [options] [-- <extra contract CLI options>]

Times one full contract-suite run against the mock started on a free 127.0.0.1 port.

Options:
  --api-key KEY          Main key of the suite (default demo-enterprise: never paced by limits)
  --rate-limit-key KEY   Key the suite exhausts to check 429 (default demo-free: 60/min)
  --timeout S            Give up after S seconds (default 600)
  --help                 Show this help
`;

/** How to run a bin: the built package when present, else the TypeScript source through tsx. */
function binCommand(distPath: string, sourcePath: string): { args: string[]; from: string } | undefined {
  if (existsSync(join(root, distPath))) return { args: [join(root, distPath)], from: `node ${distPath}` };
  if (existsSync(join(root, sourcePath)))
    return { args: ['--import', 'tsx', join(root, sourcePath)], from: `node --import tsx ${sourcePath}` };
  return undefined;
}

async function main(): Promise<number> {
  const separator = process.argv.indexOf('--', 2);
  const ownArgs = separator === -1 ? process.argv.slice(2) : process.argv.slice(2, separator);
  const extraArgs = separator === -1 ? [] : process.argv.slice(separator + 1);
  let values;
  try {
    ({ values } = parseArgs({
      args: ownArgs,
      options: {
        'api-key': { type: 'string' },
        'rate-limit-key': { type: 'string' },
        timeout: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(
      `bench:contract: ${(error as Error).message}\nRun npm run bench:contract -- --help for the options.\n`,
    );
    return 2;
  }
  if (values.help) {
    process.stdout.write(help);
    return 0;
  }
  const timeoutSeconds = Number(values.timeout ?? '600');
  if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1) {
    process.stderr.write(`bench:contract: --timeout must be a positive integer, got "${values.timeout}"\n`);
    return 2;
  }

  const contract = binCommand('dist/bin/petstore-contract.js', 'contract-tests/cli/contract-cli.ts');
  if (!contract) {
    process.stderr.write(
      'bench:contract: Failed to run the contract suite: neither contract-tests/cli/contract-cli.ts nor dist/bin/petstore-contract.js exists yet.\n',
    );
    return 2;
  }
  const mock = binCommand('dist/bin/petstore-mock.js', 'src/cli/mock-cli.ts');
  if (!mock) {
    process.stderr.write(
      'bench:contract: Failed to start the mock: neither dist/bin/petstore-mock.js nor src/cli/mock-cli.ts exists.\n',
    );
    return 2;
  }
  stopProcessesOnSignals();

  let server: ManagedProcess | undefined;
  try {
    const port = await findFreePort();
    const mockStarted = performance.now();
    server = startProcess(
      process.execPath,
      [...mock.args, '--port', String(port), '--host', '127.0.0.1', '--quiet'],
      'mock',
      { cwd: root },
    );
    const alive = server;
    try {
      await waitForAnswer(
        port,
        { method: 'GET', path: '/__mock/health', headers: {} },
        { expectedStatus: 200, intervalMs: 10, timeoutMs: 30_000, isAlive: () => alive.child.exitCode === null },
      );
    } catch (error) {
      const stderr = alive.stderrTail();
      process.stderr.write(
        `bench:contract: Failed to start the mock: ${(error as Error).message}${stderr ? `\n${stderr}` : ''}\n`,
      );
      return 2;
    }
    const baseUrl = `http://127.0.0.1:${port}/v1`;
    process.stdout.write(
      `Mock (${mock.from}) answering at ${baseUrl} after ${(performance.now() - mockStarted).toFixed(0)} ms\n`,
    );

    const contractArgs = [
      ...contract.args,
      '--base-url',
      baseUrl,
      '--api-key',
      values['api-key'] ?? 'demo-enterprise',
      '--rate-limit-key',
      values['rate-limit-key'] ?? 'demo-free',
      ...extraArgs,
    ];
    process.stdout.write(`Running the contract suite (${contract.from})...\n\n`);
    const started = performance.now();
    const suite = startProcess(process.execPath, contractArgs, 'contract suite', { cwd: root, stdout: 'inherit' });
    const timer = setTimeout(() => void suite.stop(2_000), timeoutSeconds * 1000);
    await suite.exited();
    clearTimeout(timer);
    const wallSeconds = (performance.now() - started) / 1000;
    const code = suite.child.exitCode;
    const outcome =
      code === null
        ? `killed (${suite.child.signalCode ?? 'timeout'}) after the ${timeoutSeconds} s limit`
        : `exit code ${code} (${code === 0 ? 'conforms' : code === 1 ? 'some checks failed' : code === 3 ? 'inconclusive' : 'usage error or server unreachable'})`;
    process.stdout.write(`\nContract suite wall time: ${wallSeconds.toFixed(2)} s, ${outcome}\n`);
    return code ?? 1;
  } finally {
    await server?.stop();
    await stopAllProcesses();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  async (error: unknown) => {
    await stopAllProcesses();
    process.stderr.write(`bench:contract: ${(error as Error).message}\n`);
    process.exitCode = 1;
  },
);

import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ContractRunError } from './contract-run-error.js';

export interface PrismOptions {
  /** `proxy` validates traffic to `upstream`; `mock` answers from the spec itself. */
  mode: 'proxy' | 'mock';
  specPath: string;
  /** Upstream base URL (with its `/v1`), for `proxy`. */
  upstream?: string;
  /** Extra flags (for example `--errors`). */
  extraArgs?: string[];
  /** How long Prism may take to start. Default 60 s. */
  startTimeoutMs?: number;
}

/** A Prism process listening on an ephemeral loopback port. */
export interface RunningPrism {
  /** `http://127.0.0.1:PORT`: Prism serves the spec's paths without the servers' `/v1` prefix. */
  url: string;
  /** Everything Prism printed, for diagnosis. */
  output(): string;
  /** Stops the process (SIGTERM, then SIGKILL after 3 s). */
  stop(): Promise<void>;
}

/**
 * Starts Prism (`@stoplight/prism-cli`, a dev dependency of the kit) on 127.0.0.1 port 0 and
 * resolves once it says where it listens. Throws `ContractRunError('prism', 'Failed to start
 * Prism: ...')` when Prism is not installed, exits or stays silent.
 *
 * @example
 * const prism = await startPrism({ mode: 'proxy', specPath: 'spec/petstore.openapi.yaml', upstream: 'http://127.0.0.1:4010/v1' });
 * await fetch(`${prism.url}/categories`, { headers: { authorization: 'Bearer demo-pro' } });
 * await prism.stop();
 */
export async function startPrism(options: PrismOptions): Promise<RunningPrism> {
  const bin = prismBin();
  const args = [
    bin,
    options.mode,
    options.specPath,
    ...(options.mode === 'proxy' ? [options.upstream ?? ''] : []),
    '-h',
    '127.0.0.1',
    '-p',
    '0',
    ...(options.extraArgs ?? []),
  ];
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    // Keep the tail only: a long run through the proxy logs every request.
    output = (output + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const stop = () => stopChild(child);

  const url = await new Promise<string>((resolve, reject) => {
    const fail = (reason: string) => {
      cleanup();
      void stop();
      reject(new ContractRunError('prism', `Failed to start Prism: ${reason}${lastLines(output)}`));
    };
    const onData = () => {
      const match = /Prism is listening on (http:\/\/[^\s]+)/.exec(stripAnsi(output));
      if (match) {
        cleanup();
        resolve(match[1]!.replace(/\/+$/, ''));
      }
    };
    const onExit = (code: number | null) => fail(`it exited with code ${code ?? 'null'} before listening`);
    const onError = (error: Error) => fail(error.message);
    const timer = setTimeout(
      () => fail(`it did not start listening within ${Math.round((options.startTimeoutMs ?? 60_000) / 1000)} s`),
      options.startTimeoutMs ?? 60_000,
    );
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.off('exit', onExit);
      child.off('error', onError);
    };
    child.stdout!.on('data', onData);
    child.once('exit', onExit);
    child.once('error', onError);
  });
  return { url, output: () => stripAnsi(output), stop };
}

function prismBin(): string {
  try {
    const require = createRequire(import.meta.url);
    const packageJson = require.resolve('@stoplight/prism-cli/package.json');
    const manifest = JSON.parse(readFileSync(packageJson, 'utf8')) as { bin?: string | Record<string, string> };
    const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.prism;
    if (bin === undefined) throw new Error('its package.json names no "prism" bin');
    return join(dirname(packageJson), bin);
  } catch (error) {
    throw new ContractRunError(
      'prism',
      `Failed to start Prism: @stoplight/prism-cli is not installed (npm install --save-dev @stoplight/prism-cli@5): ${(error as Error).message.split('\n')[0]}`,
    );
  }
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 3_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

function stripAnsi(text: string): string {
  return text.replace(/\u001b\[[0-9;]*m/g, '');
}

function lastLines(output: string): string {
  const lines = stripAnsi(output).trim().split('\n').slice(-5).join('\n  ');
  return lines === '' ? '' : `\n  ${lines}`;
}

import { copyFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { benchCases, type CaseId, type Dialect, exhaustedKey } from './cases.js';
import { type ManagedProcess, startProcess } from './child-processes.js';
import { onCpus } from './cpu-pinning.js';
import { findFreePort, type ProbeResponse, probe, waitForAnswer } from './http-probe.js';

/** The servers the bench compares. `prism` on the command line means both Prism modes. */
export type TargetId = 'mock' | 'bare' | 'prism-info' | 'prism-silent';

export const targetIds: readonly TargetId[] = ['mock', 'bare', 'prism-info', 'prism-silent'];

/** How the mock is started: the built package (`dist/`) when present, else the TypeScript source via tsx. */
export type MockLaunch = 'dist' | 'src';

export interface LaunchContext {
  /** Repository root; every path below is relative to it. */
  root: string;
  /** The mock's bench config (YAML), see `benchConfigYaml`. */
  configFile: string;
  /** The responses the bare server serves (captured from the mock), or undefined for its built-ins. */
  responsesFile?: string;
  mockLaunch: MockLaunch;
  /** A bundle of the mock's bin to run instead (`bundleMockBin`); wins over `mockLaunch`. */
  mockBin?: string;
  /** taskset's CPU list the servers run on (`planCpuPinning`); anywhere when undefined. */
  serverCpus?: string;
  /** taskset's CPU list the load generator runs on. */
  loadCpus?: string;
}

export interface TargetDefinition {
  id: TargetId;
  label: string;
  dialect: Dialect;
  command(port: number, caseId: CaseId, context: LaunchContext): { command: string; args: string[] };
}

const require = createRequire(import.meta.url);
const mockDist = 'dist/bin/petstore-mock.js';

/** `dist` when `npm run build` has produced the bin, otherwise `src`. */
export function detectMockLaunch(root: string): MockLaunch {
  return existsSync(join(root, mockDist)) ? 'dist' : 'src';
}

function prismCli(): string {
  return require.resolve('@stoplight/prism-cli/dist/index.js');
}

export const targets: Record<TargetId, TargetDefinition> = {
  mock: {
    id: 'mock',
    label: 'mock',
    dialect: 'mock',
    command: (port, _caseId, context) => {
      const common = ['--port', String(port), '--host', '127.0.0.1', '--quiet', '--config', context.configFile];
      if (context.mockBin !== undefined) return { command: process.execPath, args: [context.mockBin, ...common] };
      return context.mockLaunch === 'dist'
        ? { command: process.execPath, args: [join(context.root, mockDist), ...common] }
        : {
            command: process.execPath,
            args: ['--import', 'tsx', join(context.root, 'src/cli/mock-cli.ts'), ...common],
          };
    },
  },
  bare: {
    id: 'bare',
    label: 'bare node:http',
    dialect: 'mock',
    command: (port, caseId, context) => ({
      command: process.execPath,
      args: [
        join(context.root, 'bench/bare-server.mjs'),
        '--port',
        String(port),
        '--case',
        caseId,
        ...(context.responsesFile ? ['--responses', context.responsesFile] : []),
      ],
    }),
  },
  'prism-info': {
    id: 'prism-info',
    label: 'prism (default log)',
    dialect: 'prism',
    // Default verbosity (info): one log line per request. Its stdout goes to /dev/null, which is
    // cheaper than a terminal, so this is Prism's best case with logging on.
    command: (port, _caseId, context) => ({
      command: process.execPath,
      args: [
        prismCli(),
        'mock',
        join(context.root, 'spec/petstore.openapi.yaml'),
        '-h',
        '127.0.0.1',
        '-p',
        String(port),
      ],
    }),
  },
  'prism-silent': {
    id: 'prism-silent',
    label: 'prism (silent)',
    dialect: 'prism',
    // `-v silent` is Prism's fastest mode we found: `--multiprocess` (log processing in a fork)
    // measured no faster once logging is off, and costs a second process's memory.
    command: (port, _caseId, context) => ({
      command: process.execPath,
      args: [
        prismCli(),
        'mock',
        join(context.root, 'spec/petstore.openapi.yaml'),
        '-h',
        '127.0.0.1',
        '-p',
        String(port),
        '-v',
        'silent',
      ],
    }),
  },
};

/**
 * Starts one target for one case on `port` and waits until it answers HTTP at all (any status).
 * Throws, with the process's stderr, when it exits or stays silent for `timeoutMs`.
 */
export async function startTarget(
  target: TargetDefinition,
  port: number,
  caseId: CaseId,
  context: LaunchContext,
  timeoutMs = 30_000,
): Promise<ManagedProcess> {
  const planned = target.command(port, caseId, context);
  const { command, args } = onCpus(planned.command, planned.args, context.serverCpus);
  const server = startProcess(command, args, target.label, { cwd: context.root });
  try {
    // A path no case uses, without credentials: it never touches a key's budget.
    await waitForAnswer(
      port,
      { method: 'GET', path: '/bench-ready', headers: {} },
      { intervalMs: 10, timeoutMs, isAlive: () => server.child.exitCode === null && server.child.signalCode === null },
    );
  } catch (error) {
    await server.stop();
    const stderr = server.stderrTail();
    throw new Error(`Failed to start ${target.label}: ${(error as Error).message}${stderr ? `\n${stderr}` : ''}`);
  }
  return server;
}

/** Headers node:http writes by itself (or that depend on the body): the bare server sets its own. */
const transportHeaders = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

/** The mock's answer to each case, as the bare server serves it with `--responses`. */
export type CapturedResponses = Record<string, { status: number; headers: [string, string][]; body: string }>;

/**
 * Asks the mock once per case and keeps status, headers and body, so the bare server answers with
 * exactly the mock's bytes even after the mock's headers or messages change.
 */
export async function captureMockResponses(
  context: LaunchContext,
  cases: readonly CaseId[],
): Promise<CapturedResponses> {
  const port = await findFreePort();
  const server = await startTarget(targets.mock, port, 'get', context);
  try {
    const captured: CapturedResponses = {};
    for (const caseId of cases) {
      const benchCase = benchCases[caseId];
      if (caseId === '429') await probe(port, benchCase.request('mock'));
      const response = await probe(port, benchCase.request('mock'));
      if (response.status !== benchCase.expectedStatus)
        throw new Error(`${benchCase.label} answered ${response.status}`);
      captured[caseId] = {
        status: response.status,
        headers: response.headers.filter(([name]) => !transportHeaders.has(name.toLowerCase())),
        body: response.body,
      };
    }
    return captured;
  } finally {
    await server.stop();
  }
}

/** Brings a fresh server to the state the case measures and checks it answers as expected. */
export async function prepareCase(
  port: number,
  target: TargetId,
  caseId: CaseId,
  timeoutMs?: number,
): Promise<ProbeResponse> {
  const benchCase = benchCases[caseId];
  const request = benchCase.request(targets[target].dialect);
  // The mock's bench-exhausted key allows one request: spend it, so every measured one is a 429.
  if (target === 'mock' && caseId === '429')
    await probe(
      port,
      { method: 'GET', path: '/v1/categories', headers: { authorization: `Bearer ${exhaustedKey}` } },
      timeoutMs,
    );
  const response = await probe(port, request, timeoutMs);
  if (response.status !== benchCase.expectedStatus) {
    throw new Error(
      `Failed to prepare ${benchCase.label} on ${targets[target].label}: answered ${response.status}, expected ${benchCase.expectedStatus}: ${response.body.slice(0, 160)}`,
    );
  }
  return response;
}

/**
 * Bundles the mock's bin from the source into `directory` (as `npm run build` bundles it, the spec
 * beside it) and returns its path: the shipped code of this checkout, without a build of dist/ and
 * without tsx, whose loader a slow run (under valgrind) would pay for at every start.
 */
export async function bundleMockBin(root: string, directory: string): Promise<string> {
  const { build } = await import('esbuild');
  const { eagerModulesPlugin } = await import('../../scripts/eager-modules.mjs');
  const outfile = join(directory, 'petstore-mock.js');
  const requireShim =
    "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";
  await build({
    absWorkingDir: root,
    entryPoints: [join(root, 'src/cli/mock-cli.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    logLevel: 'warning',
    external: [
      'redis',
      '@redis/*',
      'vitest',
      'vitest/*',
      '@stoplight/prism-cli',
      'fsevents',
      'lightningcss',
      'esbuild',
    ],
    banner: { js: requireShim },
    // As the build does: what the library loads on first use is bundled and ready (no node_modules here).
    plugins: [eagerModulesPlugin()],
  });
  copyFileSync(join(root, 'spec/petstore.openapi.yaml'), join(directory, 'petstore.openapi.yaml'));
  return outfile;
}

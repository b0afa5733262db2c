import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** How a `petstore-mock --spec FILE` run went within its time budget. */
export type SpecRun =
  | { outcome: 'listening'; origin: string; startedInMs: number; stop(): Promise<void> }
  | { outcome: 'exited'; code: number | null; stdout: string; stderr: string; exitedInMs: number }
  | { outcome: 'timed-out'; stdout: string; stderr: string };

/**
 * Writes `document` to a temporary file and starts the mock CLI on it (port 0), waiting at most
 * `budgetMs` for the banner or an exit. A process that does neither in time (a start-up that
 * hangs) is killed, so no test leaves one behind; so is a listening one, by `stop()`.
 *
 * @example const run = await runMockWithSpec(spec, 15_000); if (run.outcome === 'listening') await run.stop();
 */
export async function runMockWithSpec(document: unknown, budgetMs: number): Promise<SpecRun> {
  const dir = await mkdtemp(join(tmpdir(), 'petstore-spec-'));
  const file = join(dir, 'spec.json');
  await writeFile(file, JSON.stringify(document));
  return runMockCli(['--spec', file], budgetMs, { cleanup: () => rm(dir, { recursive: true, force: true }) });
}

/**
 * Starts the mock CLI with `args` (port 0 added), as `runMockWithSpec` does; `nodeArgs` go to node
 * itself (`--max-old-space-size=512`), `cleanup` runs once the process is gone.
 *
 * @example const run = await runMockCli(['--spec', 'api.yaml', '--unsafe-patterns'], 15_000);
 */
export async function runMockCli(
  args: string[],
  budgetMs: number,
  options: { nodeArgs?: string[]; cleanup?: () => Promise<void> } = {},
): Promise<SpecRun> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), '--import', 'tsx', 'src/cli/mock-cli.ts', '--port', '0', ...args],
    { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const cleanup = async () => options.cleanup?.();
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    await cleanup();
  };

  return new Promise<SpecRun>((resolve) => {
    const timer = setTimeout(() => {
      clearInterval(poll);
      void kill().then(() => resolve({ outcome: 'timed-out', stdout, stderr }));
    }, budgetMs);
    const poll = setInterval(() => {
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        clearInterval(poll);
        resolve({ outcome: 'listening', origin: match[1]!, startedInMs: performance.now() - started, stop: kill });
      }
    }, 20);
    void exited.then(async (code) => {
      if (/listening on/.test(stdout)) return;
      clearTimeout(timer);
      clearInterval(poll);
      await cleanup();
      resolve({ outcome: 'exited', code, stdout, stderr, exitedInMs: performance.now() - started });
    });
  });
}

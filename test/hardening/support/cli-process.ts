import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const projectRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** The `petstore-mock` command running as its own process, as a user starts it. */
export interface CliProcess {
  child: ChildProcessWithoutNullStreams;
  port: number;
  /** `http://127.0.0.1:PORT` */
  origin: string;
  /** Everything written to stdout so far. */
  stdout(): string;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Resolves when stdout contains `text` (or rejects after `timeoutMs`). */
  waitForOutput(text: string, timeoutMs?: number): Promise<void>;
  /** Resolves with the exit code (null when killed by a signal) once the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILLs the process if it is still running; for teardown. */
  kill(): Promise<void>;
}

/**
 * Starts the CLI (`node --import tsx src/cli/mock-cli.ts --port 0 ...`) and waits for its banner,
 * which names the real port: `listening on http://127.0.0.1:PORT/v1`.
 *
 * @example const cli = await startCli(['--verbose']); ...; await cli.kill();
 */
export async function startCli(
  args: readonly string[],
  options: { startTimeoutMs?: number } = {},
): Promise<CliProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/mock-cli.ts', '--port', '0', ...args], {
    cwd: projectRoot,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const waiter of waiters) waiter();
  };
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    stdout += text;
    notify();
  });
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
    notify();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let hasExited = false;
  void exited.then(() => {
    hasExited = true;
    notify();
  });

  const waitFor = <T>(find: () => T | undefined, what: string, timeoutMs: number): Promise<T> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const found = find();
        if (found !== undefined) {
          finish();
          resolve(found);
        } else if (hasExited) {
          finish();
          reject(new Error(`Failed to see ${what}: the CLI exited.\nstdout: ${stdout}\nstderr: ${stderr}`));
        }
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`Failed to see ${what} within ${timeoutMs} ms.\nstdout: ${stdout}\nstderr: ${stderr}`));
      }, timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });

  const port = await waitFor(
    () => {
      const match = /listening on http:\/\/127\.0\.0\.1:(\d+)\/v1/.exec(stdout);
      return match ? Number(match[1]) : undefined;
    },
    'the startup banner',
    options.startTimeoutMs ?? 20_000,
  );

  return {
    child,
    port,
    origin: `http://127.0.0.1:${port}`,
    stdout: () => stdout,
    stderr: () => stderr,
    waitForOutput: (text, timeoutMs = 5_000) =>
      waitFor(() => (stdout.includes(text) ? true : undefined), JSON.stringify(text), timeoutMs).then(() => undefined),
    exited,
    kill: async () => {
      if (!hasExited) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}

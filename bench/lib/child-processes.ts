import { type ChildProcess, type StdioOptions, spawn } from 'node:child_process';

/** A process the bench started; `stop()` is safe to call twice. */
export interface ManagedProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** What was run, for error messages. */
  readonly label: string;
  /** Text the process wrote to stderr (last 4 KiB), to explain a failed start. */
  stderrTail(): string;
  /** Resolves when the process has exited (immediately when it already has). */
  exited(): Promise<void>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

// Every process the bench starts, so that an error, Ctrl+C or a failed assertion never leaves a
// server or a load generator running on the shared machine.
const running = new Set<ManagedProcess>();
let handlersInstalled = false;

function installExitHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  // 'exit' handlers must be synchronous: a plain SIGKILL is all that can be done there.
  process.on('exit', () => {
    for (const managed of running) managed.child.kill('SIGKILL');
  });
}

/**
 * Starts a child process and tracks it until it exits.
 *
 * @example
 * const server = startProcess(process.execPath, ['bench/bare-server.mjs', '--port', '0'], 'bare server');
 * try { ... } finally { await server.stop(); }
 */
export function startProcess(
  command: string,
  args: readonly string[],
  label: string,
  options: { cwd?: string; stdout?: 'ignore' | 'pipe' | 'inherit'; env?: NodeJS.ProcessEnv } = {},
): ManagedProcess {
  installExitHandlers();
  // With stdout inherited (a CLI whose report the user reads) stderr is inherited too.
  const stdio: StdioOptions = ['ignore', options.stdout ?? 'ignore', options.stdout === 'inherit' ? 'inherit' : 'pipe'];
  const child = spawn(command, args, { cwd: options.cwd, stdio, env: options.env ?? process.env });
  if (child.pid === undefined) throw new Error(`Failed to start ${label}: spawn returned no pid`);
  let tail = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    tail = (tail + chunk).slice(-4096);
  });
  const exit = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  const managed: ManagedProcess = {
    child,
    pid: child.pid,
    label,
    stderrTail: () => tail.trim(),
    exited: () => exit,
    async stop(graceMs = 3_000) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exit;
        clearTimeout(timer);
      }
      running.delete(managed);
    },
  };
  running.add(managed);
  void exit.then(() => running.delete(managed));
  return managed;
}

/** Stops every process still running (used on errors and on Ctrl+C). */
export async function stopAllProcesses(): Promise<void> {
  await Promise.all([...running].map((managed) => managed.stop(1_000)));
}

/**
 * On SIGINT/SIGTERM: stops every tracked process, then exits with 130/143. Call once from a CLI.
 */
export function stopProcessesOnSignals(): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      process.stderr.write(`\n${signal}: stopping the servers and load generators the bench started\n`);
      void stopAllProcesses().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
    });
  }
}

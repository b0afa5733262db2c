import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { Logger } from '../core/types.js';

/**
 * `petstore-mock [options] -- COMMAND` and `petstore-mock proxy URL [options] -- COMMAND`: the server runs
 * for as long as COMMAND does (a test run), which finds it in PETSTORE_BASE_URL. Shared by both CLIs so
 * the start, the signals and the exit code follow one rule (decision 036).
 */

/** The variable the command reads the server's API base address from (the kit's own `--base-url` variable). */
const baseUrlVariable = 'PETSTORE_BASE_URL';

/** A server run as this module ends it. */
export interface ServedRun {
  /** The API base address, `/v1` included: given to the command. */
  baseUrl: string;
  logger: Logger;
  /** Stops the server and writes its reports; resolves with the verdict: 0, or 1 when a gate failed. */
  finish: () => Promise<number>;
}

/** Exit codes a shell gives a command that could not start: not found, not executable. */
const notFoundExit = 127;
const notExecutableExit = 126;

/**
 * The argv after parseArgs' `--` terminator: the command to run, or undefined when there is none. Read from
 * parseArgs' tokens, so a `--` given as an option's value is not mistaken for it.
 *
 * @example commandAfterTerminator(parseArgs({ args, options, allowPositionals: true, tokens: true }), args)
 */
export function commandAfterTerminator(
  parsed: { tokens?: readonly { kind: string; index: number }[] },
  argv: readonly string[],
): string[] | undefined {
  const terminator = parsed.tokens?.find((token) => token.kind === 'option-terminator');
  return terminator === undefined ? undefined : argv.slice(terminator.index + 1);
}

/** Why the `--` is unusable, in one line, or undefined when it is fine (or absent). */
export function commandProblem(command: readonly string[] | undefined): string | undefined {
  if (command !== undefined && command.length === 0)
    return 'nothing after --: give the command to run, e.g. -- npm test';
  return undefined;
}

/** The port when none is given: a free one with a command (parallel jobs never collide), else `fallback`. */
export function defaultPort(command: readonly string[] | undefined, fallback: string): string {
  return command === undefined ? fallback : '0';
}

/** The banner's last words: how this run stops. */
export function howItStops(command: readonly string[] | undefined): string {
  return command === undefined ? 'Ctrl+C stops.' : 'Stops when the command exits.';
}

type Outcome = { kind: 'signal'; signal: NodeJS.Signals } | { kind: 'command'; exitCode: number };

/**
 * Installs the SIGINT and SIGTERM handlers at once (a supervisor may signal as soon as it reads the
 * banner), then returns what waits for the end of the run. Without a command the run ends at the first
 * signal, and the verdict is the exit code. With one, the command is started, each signal is passed on to
 * it, the run ends when it exits, and the exit code is the command's (128 + N when signal N killed it, as
 * shells say), or 1 when the command passed and the verdict failed.
 *
 * @example const untilEnd = awaitEndOfRun(['npm', 'test']); ... return untilEnd({ baseUrl, logger, finish });
 */
export function awaitEndOfRun(command: readonly string[] | undefined): (run: ServedRun) => Promise<number> {
  let child: CommandChild | undefined;
  let received: NodeJS.Signals | undefined;
  let signalled: ((signal: NodeJS.Signals) => void) | undefined;
  const firstSignal = new Promise<NodeJS.Signals>((resolve) => (signalled = resolve));
  const onSignal = (signal: NodeJS.Signals) => {
    if (child !== undefined) return child.forward(signal);
    // Without a command (or before it started), one signal ends the run; a second one gets node's default.
    removeHandlers();
    received = signal;
    signalled?.(signal);
  };
  const removeHandlers = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return async (run) => {
    let outcome: Outcome;
    if (command === undefined || received !== undefined) outcome = { kind: 'signal', signal: await firstSignal };
    else {
      // From here on every signal is passed on to the command, and its exit ends the run.
      child = startCommand(command, run);
      outcome = { kind: 'command', exitCode: await child.exited };
    }
    removeHandlers();
    return endRun(run, outcome, command !== undefined);
  };
}

async function endRun(run: ServedRun, outcome: Outcome, withCommand: boolean): Promise<number> {
  run.logger.info(
    outcome.kind === 'signal'
      ? `${outcome.signal}: finishing in-flight requests and stopping`
      : `The command exited with ${outcome.exitCode}: finishing in-flight requests and stopping`,
  );
  const verdict = await run.finish();
  if (outcome.kind === 'command') return outcome.exitCode === 0 ? verdict : outcome.exitCode;
  // A signal before the command started: it never ran, so the exit says the signal, as a shell would.
  return withCommand ? 128 + (constants.signals[outcome.signal] ?? 0) : verdict;
}

interface CommandChild {
  /** Resolves with the command's exit code (shell style: 127 not found, 128 + N killed by signal N). */
  exited: Promise<number>;
  forward: (signal: NodeJS.Signals) => void;
}

/**
 * Spawns the command without a shell, stdio inherited, the base address in its environment. Off a
 * terminal it leads a process group of its own, so a signal reaches every process it started (npm test's
 * test runner too), and whatever of that group outlives it is stopped with it: nothing is left behind. On
 * a terminal it stays in the foreground group, where it may read the keyboard (a group in the background
 * would be stopped by SIGTTIN), and only the command itself is signalled.
 */
function startCommand(command: readonly string[], run: ServedRun): CommandChild {
  const ownGroup = process.stdin.isTTY !== true;
  const child = spawn(command[0]!, command.slice(1), {
    stdio: 'inherit',
    env: { ...process.env, [baseUrlVariable]: run.baseUrl },
    detached: ownGroup,
  });
  const signalGroup = (signal: NodeJS.Signals) => {
    if (child.pid === undefined) return;
    try {
      if (ownGroup) process.kill(-child.pid, signal);
      else child.kill(signal);
    } catch {
      // ESRCH: the group is already gone.
    }
  };
  run.logger.info(`Running ${command.join(' ')} with ${baseUrlVariable}=${run.baseUrl}`);
  const orphanWatch = watchForOrphaning(() => {
    run.logger.info('The process that started petstore-mock is gone: passing SIGTERM on to the command');
    signalGroup('SIGTERM');
  });
  const exited = new Promise<number>((resolve) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      clearInterval(orphanWatch);
      run.logger.error(`Failed to start ${command[0]}: ${startFailure(error)}`);
      resolve(error.code === 'EACCES' ? notExecutableExit : notFoundExit);
    });
    child.once('exit', (code, signal) => {
      clearInterval(orphanWatch);
      if (ownGroup) signalGroup('SIGTERM');
      resolve(code ?? 128 + (constants.signals[signal as NodeJS.Signals] ?? 0));
    });
  });
  return { exited, forward: signalGroup };
}

/**
 * Calls `orphaned` once when this process's parent is gone (it is then re-parented). `npx` ends at SIGTERM
 * without passing it on, so a CI job cancelled through npx would otherwise leave the test run going; node
 * has no parent-death signal (Linux's PR_SET_PDEATHSIG), so the parent's pid is polled, twice a second.
 */
function watchForOrphaning(orphaned: () => void): NodeJS.Timeout {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    orphaned();
  }, 500);
  return timer.unref();
}

function startFailure(error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOENT') return 'command not found';
  if (error.code === 'EACCES') return 'permission denied';
  return error.message;
}

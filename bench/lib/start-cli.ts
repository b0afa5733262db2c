import { startProcess } from './child-processes.js';

/** How a `petstore-mock` start went: listening (with how long it took) or the line it stopped with. */
export type CliStart =
  | { outcome: 'listening'; origin: string; startedAt: number; listeningMs: number; stop(): Promise<void> }
  | { outcome: 'exited' | 'timed-out'; firstLine: string };

/**
 * Starts `node ARGS` (the mock's CLI) and waits for its `listening on` banner, its exit, or the
 * budget; a process that neither listens nor exits in time is stopped. Tracked like every process
 * a bench starts, so Ctrl+C or an error never leaves one running.
 *
 * @example const run = await startCli(['--import', 'tsx', 'src/cli/mock-cli.ts', '--port', '0', '--spec', file], { cwd, budgetMs: 60_000 });
 */
export async function startCli(args: string[], options: { cwd: string; budgetMs: number }): Promise<CliStart> {
  const startedAt = performance.now();
  const managed = startProcess(process.execPath, args, 'petstore-mock', { cwd: options.cwd, stdout: 'pipe' });
  let stdout = '';
  managed.child.stdout?.setEncoding('utf8');
  return new Promise<CliStart>((resolve) => {
    const finish = (result: CliStart) => {
      clearTimeout(timer);
      managed.child.stdout?.removeListener('data', onData);
      resolve(result);
    };
    const onData = (chunk: string) => {
      stdout += chunk;
      const match = /listening on (http:\/\/[^/\s]+)/.exec(stdout);
      if (match)
        finish({
          outcome: 'listening',
          origin: match[1]!,
          startedAt,
          listeningMs: performance.now() - startedAt,
          stop: () => managed.stop(),
        });
    };
    managed.child.stdout?.on('data', onData);
    const timer = setTimeout(() => {
      void managed
        .stop(1_000)
        .then(() => finish({ outcome: 'timed-out', firstLine: `no banner in ${options.budgetMs} ms` }));
    }, options.budgetMs);
    void managed.exited().then(() => {
      if (/listening on/.test(stdout)) return;
      finish({ outcome: 'exited', firstLine: managed.stderrTail().split('\n')[0] ?? '(nothing on stderr)' });
    });
  });
}

import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');

/** One `petstore-mock` process (the CLI through tsx), listening on a free port. */
export interface MockProcess {
  readonly origin: string;
  readonly baseUrl: string;
  readonly child: ChildProcess;
  /** SIGKILL (no graceful shutdown): what a crashed replica looks like. */
  kill9(): Promise<void>;
  /** SIGTERM and wait for the exit. */
  stop(): Promise<void>;
}

const started = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of started) child.kill('SIGKILL');
});

/**
 * Starts the mock CLI with `args` (from source through tsx, or the built `bin`; `nodeArgs` go to node
 * itself, e.g. a heap size) and resolves once it prints its base URL.
 *
 * @example const replica = await startMockProcess(['--store', redis.url]);
 */
export function startMockProcess(
  args: string[],
  timeoutMs = 20_000,
  options: { bin?: string; nodeArgs?: string[] } = {},
): Promise<MockProcess> {
  return new Promise((resolve, reject) => {
    const entry = options.bin === undefined ? ['--import', 'tsx', join(root, 'src/cli/mock-cli.ts')] : [options.bin];
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...entry, '--port', '0', ...args], {
      cwd: root,
      env: { ...process.env, PORT: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.add(child);
    let stdout = '';
    let stderr = '';
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    void exited.then(() => started.delete(child));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`The mock did not start within ${timeoutMs} ms: ${stderr || stdout}`));
    }, timeoutMs);
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        const baseUrl = match[1]!;
        resolve({
          origin: new URL(baseUrl).origin,
          baseUrl,
          child,
          kill9: async () => {
            child.kill('SIGKILL');
            await exited;
          },
          stop: async () => {
            child.kill('SIGTERM');
            await exited;
          },
        });
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`The mock exited with ${code} before listening: ${stderr.trim()}`));
    });
  });
}

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const cliPath = fileURLToPath(new URL('../../../contract-tests/cli/contract-cli.ts', import.meta.url));

/**
 * Runs the real `petstore-contract` command line (through tsx, as `npm run contract` does) in a
 * child process and collects its exit code and output.
 *
 * @example const { code, stdout } = await runCli(['--help']);
 */
export function runCli(
  args: string[],
  env: Record<string, string | undefined> = {},
  timeoutMs = 60_000,
): Promise<{ code: number | null; stdout: string; stderr: string; firstStderrAtMs: number | undefined }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', cliPath, ...args], {
      cwd: root,
      // An undefined value removes the variable (the test runner itself may set FORCE_COLOR).
      env: Object.fromEntries(
        Object.entries({
          ...process.env,
          PETSTORE_BASE_URL: '',
          PETSTORE_API_KEY: '',
          PETSTORE_RATE_LIMIT_KEY: '',
          ...env,
        }).filter(([, value]) => value !== undefined),
      ) as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let firstStderrAtMs: number | undefined;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => {
      firstStderrAtMs ??= Date.now();
      stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`Failed to run petstore-contract ${args.join(' ')}: no exit within ${timeoutMs} ms\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, firstStderrAtMs });
    });
  });
}

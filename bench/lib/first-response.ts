import { benchCases } from './cases.js';
import { startProcess } from './child-processes.js';
import { findFreePort, waitForAnswer } from './http-probe.js';
import type { LaunchContext, TargetDefinition } from './targets.js';

export interface FirstResponseResult {
  /** Each attempt, milliseconds from spawn to the first 200 of GET categories. */
  attemptsMs: number[];
  medianMs: number;
}

/**
 * Time from spawning `target` until it first answers GET categories (with the Enterprise key) with
 * 200, polling every 5 ms; repeated `attempts` times on fresh processes, median reported. This is
 * what a CI job waits for before its first test can run.
 *
 * @example (await measureFirstResponse(targets.mock, context, 3)).medianMs; // 180.4
 */
export async function measureFirstResponse(
  target: TargetDefinition,
  context: LaunchContext,
  attempts: number,
): Promise<FirstResponseResult> {
  const request = benchCases.get.request(target.dialect);
  const attemptsMs: number[] = [];
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    const port = await findFreePort();
    const { command, args } = target.command(port, 'get', context);
    const started = performance.now();
    const server = startProcess(command, args, target.label, { cwd: context.root });
    try {
      await waitForAnswer(port, request, {
        expectedStatus: 200,
        intervalMs: 5,
        timeoutMs: 30_000,
        isAlive: () => server.child.exitCode === null && server.child.signalCode === null,
      });
      attemptsMs.push(performance.now() - started);
    } catch (error) {
      const stderr = server.stderrTail();
      throw new Error(
        `Failed to measure the first response of ${target.label}: ${(error as Error).message}${stderr ? `\n${stderr}` : ''}`,
      );
    } finally {
      await server.stop();
    }
  }
  const sorted = [...attemptsMs].sort((a, b) => a - b);
  return { attemptsMs, medianMs: sorted[Math.floor(sorted.length / 2)]! };
}

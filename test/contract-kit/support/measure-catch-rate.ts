/**
 * Measures the kit's catch rate on the issue-9 broken servers: runs the kit against each
 * single-fault fake (support/fake-petstore.ts) and counts the runs that do NOT end in CONFORMS
 * (exit 0). A broken server that the kit calls conforming is a miss.
 *
 * Usage: npm run kit:catch-rate
 */
import { runContract } from '../../../contract-tests/runner/run-contract.js';
import { fakeKeys, faultOptions, issue9Faults, startFakePetstore } from './fake-petstore.js';

async function main(): Promise<void> {
  let caught = 0;
  for (const fault of issue9Faults) {
    const server = await startFakePetstore({ ...faultOptions[fault], faults: [fault] });
    try {
      const run = await runContract({
        baseUrl: server.baseUrl,
        apiKey: fakeKeys.main,
        rateLimitKey: fakeKeys.limited,
        propertyRuns: 15,
        timeoutSeconds: 5,
        maxWaitSeconds: 0,
        log: () => {},
      });
      const failing = run.report.results.filter((result) => result.status === 'FAIL').map((result) => result.id);
      if (run.exitCode !== 0) caught += 1;
      process.stdout.write(
        `${run.exitCode === 0 ? 'MISSED' : 'caught'}  ${fault.padEnd(28)} exit ${run.exitCode}  ${failing.slice(0, 4).join(', ')}${failing.length > 4 ? ', ...' : ''}\n`,
      );
    } catch (error) {
      caught += 1;
      process.stdout.write(`caught  ${fault.padEnd(28)} exit 2  ${(error as Error).message.slice(0, 120)}\n`);
    } finally {
      await server.close();
    }
  }
  process.stdout.write(
    `\ncaught ${caught} of ${issue9Faults.length} broken servers (${Math.round((100 * caught) / issue9Faults.length)} %)\n`,
  );
}

void main();

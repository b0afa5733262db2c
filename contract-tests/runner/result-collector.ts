import type { SerializedError } from 'vitest';
import type { Reporter, TestCase, TestModule } from 'vitest/node';
import type { CheckMeta } from '../lib/check.js';
import type { Evidence } from '../lib/exchange.js';
import type { CheckResult, CheckStatus } from '../report/report-model.js';

/**
 * A vitest reporter that turns the suite's test cases into check results: the check's own meta
 * (rule, title, outcome, evidence) plus vitest's state (passed, failed, skipped with a note).
 * Console output of the checks (the pacing messages) is passed on to the run's log.
 *
 * @example
 * const collector = new ResultCollector((line) => process.stderr.write(`${line}\n`));
 * await createVitest('test', { reporters: [collector], ... });
 * collector.results; // CheckResult[]
 */
export class ResultCollector implements Reporter {
  readonly results: CheckResult[] = [];
  /** Errors that stopped checks from running at all (a file failed to load, an unhandled error). */
  readonly problems: string[] = [];
  readonly log: string[] = [];
  readonly #print: (line: string) => void;

  constructor(print: (line: string) => void) {
    this.#print = print;
  }

  onUserConsoleLog(log: { content: string }): void {
    const line = log.content.trimEnd();
    if (line === '') return;
    this.log.push(line);
    this.#print(line);
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    const ordered = [...testModules].sort((a, b) => a.moduleId.localeCompare(b.moduleId));
    for (const testModule of ordered) {
      for (const error of testModule.errors()) this.problems.push(`${shortPath(testModule.moduleId)}: ${error.message}`);
      for (const testCase of testModule.children.allTests()) this.results.push(toResult(testCase));
    }
    for (const error of unhandledErrors) this.problems.push(error.message);
  }
}

function toResult(testCase: TestCase): CheckResult {
  const meta = (testCase.meta() as { check?: CheckMeta }).check;
  const result = testCase.result();
  const errors = result.state === 'failed' ? result.errors : [];
  const firstError = errors[0] as (SerializedError & { evidence?: Evidence[] }) | undefined;
  let status: CheckStatus;
  let message = meta?.message;
  switch (result.state) {
    case 'failed':
      status = 'FAIL';
      message = meta?.message ?? firstError?.message;
      break;
    case 'skipped':
      status = 'SKIP';
      message = result.note ?? meta?.message ?? 'skipped';
      break;
    case 'passed':
      status = meta?.outcome === 'info' ? 'INFO' : meta?.outcome === 'warn' ? 'WARN' : 'PASS';
      break;
    default:
      status = 'SKIP';
      message = 'did not run';
  }
  return {
    id: meta?.id ?? testCase.fullName,
    rule: meta?.rule ?? testCase.name.split(' ')[0] ?? '',
    title: meta?.title ?? testCase.name,
    operation: meta?.operation,
    area: meta?.area ?? (testCase.parent.type === 'suite' ? testCase.parent.name : ''),
    status,
    message,
    evidence: meta?.evidence.length ? meta.evidence : (firstError?.evidence ?? []),
    requests: meta?.requests ?? 0,
    durationMs: Math.round(testCase.diagnostic()?.duration ?? 0),
  };
}

function shortPath(moduleId: string): string {
  const index = moduleId.indexOf('contract-tests/');
  return index === -1 ? moduleId : moduleId.slice(index);
}

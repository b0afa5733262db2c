#!/usr/bin/env node
import { writeFile } from 'node:fs/promises';
import { renderHumanReport, renderSummaryLine } from '../report/human-report.js';
import { renderJsonReport } from '../report/json-report.js';
import { renderJunitReport } from '../report/junit-report.js';
import type { ContractReport } from '../report/report-model.js';
import { ContractRunError } from '../runner/contract-run-error.js';
import { kitVersion } from '../runner/kit-version.js';
import { helpText, parseCliArgs, type ReporterName } from './parse-cli-args.js';

/**
 * `petstore-contract`: parse the command line, run the suite, print or write the report, exit
 * 0 (conforms), 1 (a required check failed) or 2 (usage error, unreachable server, kit failure).
 * Errors are one line, never a stack trace.
 */
async function main(): Promise<number> {
  let command;
  try {
    command = parseCliArgs(process.argv.slice(2), process.env);
  } catch (error) {
    process.stderr.write(`petstore-contract: ${(error as Error).message}\nRun petstore-contract --help for the options.\n`);
    return 2;
  }
  if (command.kind === 'help') {
    process.stdout.write(helpText);
    return 0;
  }
  if (command.kind === 'version') {
    process.stdout.write(`${kitVersion}\n`);
    return 0;
  }

  const abort = new AbortController();
  const onSignal = () => {
    process.stderr.write('petstore-contract: interrupted; stopping the run\n');
    abort.abort();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    // Loaded only to run: --help and usage errors answer without starting vitest's machinery.
    const { runContract } = await import('../runner/run-contract.js');
    const { report, exitCode } = await runContract({ ...command.options, signal: abort.signal });
    const text = render(report, command.reporter);
    if (command.output === undefined) {
      process.stdout.write(text);
    } else {
      try {
        await writeFile(command.output, text);
      } catch (error) {
        process.stderr.write(`petstore-contract: Failed to write the report to ${command.output}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}\n`);
        return 2;
      }
      process.stdout.write(`${renderSummaryLine(report)}\nReport (${command.reporter}) written to ${command.output}\n`);
    }
    return exitCode;
  } catch (error) {
    const message = error instanceof ContractRunError ? error.message : `Failed to run: ${(error as Error).message ?? String(error)}`;
    process.stderr.write(`petstore-contract: ${message}\n`);
    return 2;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

function render(report: ContractReport, reporter: ReporterName): string {
  if (reporter === 'junit') return renderJunitReport(report);
  if (reporter === 'json') return renderJsonReport(report);
  return renderHumanReport(report);
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`petstore-contract: Failed to run: ${(error as Error).message ?? String(error)}\n`);
    process.exitCode = 2;
  },
);

#!/usr/bin/env node
import { writeFile } from 'node:fs/promises';
import { checkLine, details, renderHumanReport, renderSummaryLine } from '../report/human-report.js';
import { renderJsonReport } from '../report/json-report.js';
import { renderJunitReport } from '../report/junit-report.js';
import { renderMarkdownReport } from '../report/markdown-report.js';
import { colourEnabled, sanitiseForTerminal } from '../report/terminal-text.js';
import type { ContractReport } from '../report/report-model.js';
import { ContractRunError } from '../runner/contract-run-error.js';
import { kitVersion } from '../runner/kit-version.js';
import { helpText, parseCliArgs, type ReporterName } from './parse-cli-args.js';

/**
 * `petstore-contract`: parse the command line, run the suite, stream each check's line to stderr
 * as it finishes, print or write the report, exit 0 (conforms), 1 (a required check failed),
 * 2 (usage error, unreachable server, kit failure) or 3 (inconclusive). Errors are one line,
 * never a stack trace; whatever reaches the terminal has its control characters escaped.
 */
async function main(): Promise<number> {
  let command;
  try {
    command = parseCliArgs(process.argv.slice(2), process.env);
  } catch (error) {
    process.stderr.write(`petstore-contract: ${sanitiseForTerminal((error as Error).message)}\nRun petstore-contract --help for the options.\n`);
    return 2;
  }
  if (command.kind === 'help') {
    process.stdout.write(helpText);
    return 0;
  }
  if (command.kind === 'version') {
    process.stdout.write(`petstore-contract ${kitVersion}\n`);
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
    // Loaded only to run: --help and usage errors answer without loading the suite.
    const { runContract } = await import('../runner/run-contract.js');
    const liveColour = colourEnabled(process.stderr, process.env);
    const { report, exitCode } = await runContract({
      ...command.options,
      signal: abort.signal,
      log: (line) => process.stderr.write(`${sanitiseForTerminal(line)}\n`),
      // Live output: one line per check as it finishes (reason and evidence under FAIL/SKIP/INFO).
      onResult: (result) => process.stderr.write(`${[checkLine(result, liveColour), ...(result.status === 'PASS' ? [] : details(result))].join('\n')}\n`),
    });
    const reportColour = command.output === undefined && command.reporter === 'human' && colourEnabled(process.stdout, process.env);
    const text = render(report, command.reporter, reportColour);
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
    process.stderr.write(`petstore-contract: ${sanitiseForTerminal(message)}\n`);
    return 2;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

function render(report: ContractReport, reporter: ReporterName, colour: boolean): string {
  if (reporter === 'junit') return renderJunitReport(report);
  if (reporter === 'json') return renderJsonReport(report);
  if (reporter === 'markdown') return renderMarkdownReport(report);
  return renderHumanReport(report, { colour });
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`petstore-contract: Failed to run: ${sanitiseForTerminal((error as Error).message ?? String(error))}\n`);
    process.exitCode = 2;
  },
);

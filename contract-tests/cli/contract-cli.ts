#!/usr/bin/env node
import { fstatSync } from 'node:fs';
import { maskCredentialPatterns } from '../../spec/credential-masking.js';
import { reportFilesProblem, writeReportFile } from '../../spec/report-file.js';
import { colourEnabled, sanitiseForTerminal } from '../../spec/terminal-text.js';
import { checkLine, details, renderSummaryLine } from '../report/human-report.js';
import { renderReport } from '../report/report-formats.js';
import type { ContractReport } from '../report/report-model.js';
import { ContractRunError } from '../runner/contract-run-error.js';
import { kitVersion } from '../runner/kit-version.js';
import { LiveConsole } from './live-console.js';
import { helpText, parseCliArgs } from './parse-cli-args.js';
import type { ReportTarget } from './report-targets.js';

/**
 * `petstore-contract`: parse the command line, run the suite, stream each check's line to stderr
 * as it finishes, print or write the report, exit 0 (conforms), 1 (a required check failed),
 * 2 (usage error, a server the run cannot mean anything against, kit failure) or 3
 * (inconclusive). Errors are one line, never a stack trace; whatever reaches the terminal has its
 * control characters escaped.
 */
/** An error line's text: what it quotes of the command line (a base URL's `?api_key=`) masked, controls escaped. */
function errorText(message: string): string {
  return sanitiseForTerminal(maskCredentialPatterns(message));
}

async function main(): Promise<number> {
  let command;
  try {
    command = parseCliArgs(process.argv.slice(2), process.env);
  } catch (error) {
    process.stderr.write(
      `petstore-contract: ${errorText((error as Error).message)} (petstore-contract --help lists the options)\n`,
    );
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
  // A report that cannot be written, or would overwrite what the run reads, is found out now, not after the run.
  const reportFiles = command.reports.flatMap((target) =>
    target.path === undefined ? [] : [{ path: target.path, option: target.option }],
  );
  const readFiles = [command.options.specPath, process.argv[1], import.meta.filename].filter(
    (file): file is string => file !== undefined,
  );
  const problem = await reportFilesProblem(reportFiles, readFiles);
  if (problem !== undefined) {
    process.stderr.write(`petstore-contract: ${sanitiseForTerminal(problem)}\n`);
    return 2;
  }

  const abort = new AbortController();
  const live = new LiveConsole(process.stderr, {
    interactive: process.stderr.isTTY === true && process.env.TERM !== 'dumb',
  });
  const onSignal = () => {
    live.line('petstore-contract: interrupted; stopping the run');
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
      log: (line) => live.line(sanitiseForTerminal(line)),
      onWait: (notice) => live.wait({ ...notice, waitingFor: sanitiseForTerminal(notice.waitingFor) }),
      // Live output: one line per check as it finishes (reason and evidence under FAIL/SKIP/INFO).
      onResult: (result) => {
        for (const line of [checkLine(result, liveColour), ...(result.status === 'PASS' ? [] : details(result))])
          live.line(line);
      },
    });
    live.close();
    const written = await writeReports(report, command.reports);
    return written ? exitCode : 2;
  } catch (error) {
    live.close();
    const message =
      error instanceof ContractRunError ? error.message : `Failed to run: ${(error as Error).message ?? String(error)}`;
    process.stderr.write(
      `petstore-contract: ${errorText(message)}${error instanceof ContractRunError && error.kind === 'usage' ? ' (petstore-contract --help lists the options)' : ''}\n`,
    );
    return 2;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/**
 * Writes every report the command line asked for, each from the run's one report: the one on stdout
 * (if any) in full, then the files; with no report on stdout, the verdict line and where each went.
 * A file that cannot be written is one line on stderr; the others are still written. False then.
 */
async function writeReports(report: ContractReport, targets: readonly ReportTarget[]): Promise<boolean> {
  let allWritten = true;
  const notes: string[] = [];
  for (const target of targets) {
    if (target.path === undefined) {
      const colour = target.format === 'human' && colourEnabled(process.stdout, process.env);
      // The check lines already went by on stderr; where the same reader sees both, the report does not repeat them.
      const context = { colour, listChecks: !liveLinesReachReportReader(), cwd: process.cwd() };
      process.stdout.write(await renderReport(report, target.format, context));
      continue;
    }
    try {
      await writeReportFile(
        target.path,
        await renderReport(report, target.format, { colour: false, listChecks: true, cwd: process.cwd() }),
      );
      notes.push(`Report (${target.format}) written to ${sanitiseForTerminal(target.path)}`);
    } catch (error) {
      allWritten = false;
      process.stderr.write(
        `petstore-contract: Failed to write the ${target.format} report to ${sanitiseForTerminal(target.path)}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}\n`,
      );
    }
  }
  if (!targets.some((target) => target.path === undefined))
    process.stdout.write(`${[renderSummaryLine(report), ...notes].join('\n')}\n`);
  else if (notes.length > 0) process.stderr.write(`${notes.join('\n')}\n`);
  return allWritten;
}

/**
 * Did the live lines (stderr) reach whoever reads the report (stdout)? Yes on a terminal, in a CI
 * log (stderr a pipe the runner collects beside stdout) and when both go to one file; no when the
 * report goes to a file of its own, or stderr to another file or /dev/null.
 */
function liveLinesReachReportReader(): boolean {
  try {
    const out = fstatSync(1);
    const err = fstatSync(2);
    if (out.dev === err.dev && out.ino === err.ino) return true;
    if (out.isFile()) return false;
    return process.stderr.isTTY === true || err.isFIFO() || err.isSocket();
  } catch {
    return false;
  }
}

/**
 * Exits once stdout and stderr have taken everything written: undici's timer wheel would keep an
 * idle process alive for another half second, which is a third of a stopped run's time.
 */
function exitWhenFlushed(code: number): void {
  process.exitCode = code;
  let pending = 2;
  const done = () => {
    pending -= 1;
    if (pending === 0) process.exit(code);
  };
  process.stdout.write('', done);
  process.stderr.write('', done);
}

main().then(exitWhenFlushed, (error: unknown) => {
  process.stderr.write(`petstore-contract: Failed to run: ${errorText((error as Error).message ?? String(error))}\n`);
  exitWhenFlushed(2);
});

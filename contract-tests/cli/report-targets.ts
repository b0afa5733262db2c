import { resolve } from 'node:path';
import { isReportFormat, type ReportFormat, reportFormatNames } from '../report/report-formats.js';
import { ContractRunError } from '../runner/contract-run-error.js';

/** One report a run writes: a format and a file, or stdout when `path` is undefined (`FORMAT=-`). */
export interface ReportTarget {
  format: ReportFormat;
  path: string | undefined;
  /** The option as written (`--report junit=contract.xml`, `--output contract.xml`), for messages. */
  option: string;
}

/**
 * The reports a command line asks for: every `--report FORMAT=FILE`, plus `--reporter NAME` /
 * `--output FILE` as the short form of one; the human report on stdout when none is asked for.
 * Refuses an unknown format, an empty file name, two reports on stdout and two reports in one file.
 *
 * @example reportTargets({ report: ['junit=contract.xml', 'markdown=-'] })
 * // [{ format: 'junit', path: 'contract.xml', option: '--report junit=contract.xml' }, { format: 'markdown', path: undefined, option: '--report markdown=-' }]
 */
export function reportTargets(values: {
  report?: readonly string[] | undefined;
  reporter?: string | undefined;
  output?: string | undefined;
}): ReportTarget[] {
  const targets = (values.report ?? []).map(reportOption);
  if (values.reporter !== undefined || values.output !== undefined) {
    const format = values.reporter ?? 'human';
    if (!isReportFormat(format)) throw usage(`--reporter: ${JSON.stringify(format)} is not one of ${formatList}`);
    if (values.output === '') throw usage('--output: the file name is empty');
    targets.push({
      format,
      // `--output -` is stdout, as `--report FORMAT=-` is (never a file named "-").
      path: values.output === '-' ? undefined : values.output,
      option: values.output === undefined ? `--reporter ${format}` : `--output ${values.output}`,
    });
  }
  if (targets.length === 0) targets.push({ format: 'human', path: undefined, option: '--reporter human' });
  const toStdout = targets.filter((target) => target.path === undefined);
  if (toStdout.length > 1)
    throw usage(
      `--report: ${toStdout.map((target) => target.format).join(' and ')} would both go to stdout; write all but one to a file`,
    );
  const byFile = new Map<string, ReportFormat>();
  for (const target of targets) {
    if (target.path === undefined) continue;
    const file = resolve(target.path);
    const other = byFile.get(file);
    if (other !== undefined)
      throw usage(
        `--report: ${other} and ${target.format} would both be written to ${target.path}; give each its own file`,
      );
    byFile.set(file, target.format);
  }
  return targets;
}

const formatList = reportFormatNames.join(', ');

/** `FORMAT=FILE`, `FORMAT=-` (stdout). */
function reportOption(text: string): ReportTarget {
  const equals = text.indexOf('=');
  if (equals === -1)
    throw usage(
      `--report ${JSON.stringify(text)}: write it as FORMAT=FILE (FORMAT one of ${formatList}; FILE - for stdout), e.g. --report junit=contract.xml`,
    );
  const format = text.slice(0, equals).trim();
  const path = text.slice(equals + 1);
  if (!isReportFormat(format)) throw usage(`--report ${JSON.stringify(text)}: "${format}" is not one of ${formatList}`);
  if (path === '') throw usage(`--report ${format}=: the file name is empty (- writes to stdout)`);
  return { format, path: path === '-' ? undefined : path, option: `--report ${text}` };
}

function usage(message: string): ContractRunError {
  return new ContractRunError('usage', `Failed to use ${message}`);
}

import { resolve } from 'node:path';
import { reportFilesProblem } from '../../spec/report-file.js';

/**
 * `--report` of petstore-mock, its proxy and its replay, read as petstore-contract reads its own:
 * `FORMAT=FILE`, repeatable; a bare FILE still picks its format by its ending (.xml JUnit, .md
 * Markdown where the command writes it, else JSON), as before.
 */
export type ServerReportFormat = 'json' | 'junit' | 'markdown';

export interface ServerReportTarget {
  format: ServerReportFormat;
  path: string;
}

/** Names petstore-contract knows: one of them before `=` is a format, never part of a file name. */
const knownFormats = new Set(['human', 'json', 'junit', 'markdown', 'html', 'sarif']);

/**
 * The reports `--report` asks for, or why it cannot be written as asked (one line).
 *
 * @example serverReportTargets(['junit=lab.xml', 'lab.json'], ['json', 'junit']) // [{ format: 'junit', path: 'lab.xml' }, { format: 'json', path: 'lab.json' }]
 */
export function serverReportTargets(
  values: readonly string[] | undefined,
  formats: readonly ServerReportFormat[],
): ServerReportTarget[] | string {
  const targets: ServerReportTarget[] = [];
  const byFile = new Map<string, string>();
  for (const value of values ?? []) {
    const equals = value.indexOf('=');
    const named = equals > 0 && knownFormats.has(value.slice(0, equals)) ? value.slice(0, equals) : undefined;
    const path = named === undefined ? value : value.slice(equals + 1);
    const format = (named ?? formatByEnding(path, formats)) as ServerReportFormat;
    if (!(formats as readonly string[]).includes(format))
      return `--report ${value}: this report is written as ${formats.join(', ')} (FORMAT=FILE, or FILE by its ending)`;
    if (path === '' || path === '-') return `--report ${value}: give a file name (the report is written at shutdown)`;
    const other = byFile.get(resolve(path));
    if (other !== undefined) return `--report: ${other} and ${format} would both be written to ${path}`;
    byFile.set(resolve(path), format);
    targets.push({ format, path });
  }
  return targets;
}

function formatByEnding(path: string, formats: readonly ServerReportFormat[]): ServerReportFormat {
  const lower = path.toLowerCase();
  if (lower.endsWith('.xml')) return 'junit';
  if (lower.endsWith('.md') && formats.includes('markdown')) return 'markdown';
  return 'json';
}

/**
 * Why the reports cannot be written where asked (a directory, a pipe nobody reads, one file by two
 * spellings, a file the command reads: its document, config, recording), in one line; checked at
 * start, so a run is never lost to a report it could not write at its end.
 *
 * @example await reportTargetsProblem([{ format: 'json', path: 'incident.har' }], ['incident.har']) // 'Failed to use --report json=incident.har: it is a file the run reads (incident.har); ...'
 */
export function reportTargetsProblem(
  targets: readonly ServerReportTarget[],
  readFiles: readonly (string | undefined)[],
): Promise<string | undefined> {
  return reportFilesProblem(
    targets.map((target) => ({ path: target.path, option: `--report ${target.format}=${target.path}` })),
    readFiles.filter((file): file is string => file !== undefined && file !== ''),
  );
}

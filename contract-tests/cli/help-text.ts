import type { KitOption } from '../runner/kit-option.js';
import { kitOptions, numberDefault } from '../runner/kit-option-table.js';

/** Each section's heading, in --help's order. */
const sectionHeadings: Record<KitOption['section'], string> = {
  Target: 'Target:',
  Document: 'Document:',
  Behaviour: 'Behaviour:',
  Report: 'Report (one run writes every report asked for, from the same results):',
};

/** Where an option's text starts: after `  --flag VALUE` and at least two spaces. */
const textColumn = 26;

/**
 * An option's lines in --help: the flag as it is typed (`-H, --header 'N: V'`), then its text,
 * each further line under the first; `{default}`, `{thorough}` and `{env}` filled from its row.
 *
 * @example optionLines(kitOption('timeout')) // ['  --timeout SECONDS       Time allowed per request (default 10)']
 */
export function optionLines(row: KitOption): string[] {
  const short = row.short !== undefined && row.shortHidden !== true ? `-${row.short}, ` : '';
  const flag = `  ${short}--${row.name}${row.value === undefined ? '' : ` ${row.value}`}`;
  const text = row.help.map((line) =>
    line
      .replace('{default}', String(numberDefault(row, false)))
      .replace('{thorough}', String(numberDefault(row, true)))
      .replace('{env}', `(env ${row.env})`),
  );
  return [
    `${flag.padEnd(textColumn - 2)}  ${text[0]}`,
    ...text.slice(1).map((line) => `${' '.repeat(textColumn)}${line}`),
  ];
}

/** Every section's heading and its options' lines, from the table. */
function optionSections(): string {
  return (Object.keys(sectionHeadings) as KitOption['section'][])
    .map((section) =>
      [sectionHeadings[section], ...kitOptions.filter((row) => row.section === section).flatMap(optionLines)].join(
        '\n',
      ),
    )
    .join('\n\n');
}

/** `petstore-contract --help`: what the kit is, its options (from kit-option-table.ts), output, exit codes. */
export const helpText = `petstore-contract: check that a server conforms to the Petstore service interface, rule by rule.

Usage: petstore-contract --base-url URL --api-key KEY [options]
       npm run contract -- --base-url URL --api-key KEY [options]

${optionSections()}

Output: each check's line streams to stderr as it finishes (colour on a terminal; NO_COLOR
turns it off, FORCE_COLOR on), and so does a line for each wait for a rate-limit window (a
countdown on a terminal). The report goes to stdout or --output: failures grouped by cause,
each with a curl that reproduces it (keys as $PETSTORE_API_KEY), the coverage matrix, where each
rule id is in the interface document (shipped as docs/petstore-service-interface.md), the
verdict; it lists every check too unless the live lines already reached its reader.

Exit codes: 0 the server conforms (no required check failed), 1 a required check failed (or a
SKIP with --fail-on-skip), 2 the run could not mean anything: a bad option, the server
unreachable, a key refused, no API at the base URL (one line, within seconds), Prism failing,
3 INCONCLUSIVE: required checks could not run (rate-limited, deadline, server gone mid-run);
the report names what stopped them.

Before its first request that could create data, the run says how many categories it may
create at most (--read-only: none). They are named contract-test-<runId>-...: the interface has
no delete operation, so this is how to find (and clean up) what a run leaves behind.
`;

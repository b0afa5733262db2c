import type * as z from 'zod';
import { truncate } from '../../spec/interface/observed.js';
import { describeIssuePath } from '../../spec/issue-wording.js';
import { onFirstUse } from '../../spec/zod-module.js';
import { labReportParts } from './dashboard-schema.js';

// The lab's report (`GET /__mock/report`, the mock's and the replay's `--report`, `report()` of the MSW
// setups, the judging proxy's `client`), written once: buildLabReport is typed by this schema and does
// not run it (the mock answers it on every poll of a CI job); lab-report-schema.test.ts parses what the
// mock really answers; schemas/lab-report.v1.schema.json publishes it. Its verdicts, counts, clock and
// coverage are the dashboard's (dashboard-schema.ts). A change to a field's meaning is a new `version`.

/** The version the lab's report carries as `version` (the dashboard's spelling); a reader refuses any other. */
export const labReportVersion = 1;

/** One client of the report: who it is, its budget, what it sent and the lab's verdicts. */
const clientReportSchema = onFirstUse((z) => {
  const { verdict, requestCounts } = labReportParts();
  return z.object({
    /** The masked key (demo keys in full), a replay pseudonym, or "anonymous <address>". */
    client: z.string(),
    kind: z.enum(['key', 'anonymous']),
    /** 'free' | 'pro' | ... | 'custom' | 'anonymous' ('unknown': a key the judging proxy saw no plan of). */
    plan: z.string(),
    /** Requests per minute and per day (0: the judging proxy saw no budget announced). */
    limits: z.object({ perMinute: z.int().min(0), perDay: z.int().min(0) }),
    requests: requestCounts,
    /** One per rule, in the rules' order. */
    verdicts: z.array(verdict),
  });
});

/**
 * The lab's report of one session. Clients are ordered by their first request, then by name. Fields a
 * later version-1 writer adds are ignored by `parseLabReport`.
 *
 * @example
 * {"version":1,"session":"default","generatedAt":"2026-01-01T00:01:00.000Z",
 *  "clock":{"now":"2026-01-01T00:01:00.000Z","epochSeconds":1767225660,"offsetSeconds":0},
 *  "clients":[{"client":"demo-free","kind":"key","plan":"free","limits":{"perMinute":60,"perDay":1000},
 *    "requests":{"total":3,"byStatus":{"200":3},"refused429":0},"verdicts":[…]}],"coverage":{…}}
 */
export const labReportSchema = onFirstUse((z) => {
  const { coverage, clock } = labReportParts();
  return z.object({
    version: z.literal(labReportVersion),
    session: z.string(),
    /** ISO, virtual clock: `clock.now`. */
    generatedAt: z.string(),
    clock,
    clients: z.array(clientReportSchema()),
    coverage,
  });
});

/** `GET /__mock/report`, as written and as read. */
export type LabReport = z.output<ReturnType<typeof labReportSchema>>;
export type ClientReport = z.output<ReturnType<typeof clientReportSchema>>;

/**
 * A lab report, parsed (the body of `GET /__mock/report`, the text of a `--report` JSON file); throws one
 * short line naming the first field that is wrong, or the version when the report is of another.
 *
 * @example
 * const report = parseLabReport(await (await fetch(`${origin}/__mock/report`)).text());
 * // Error: Failed to read the lab report: version: expected 1, got 2 (a report of another petstore-mock)
 */
export function parseLabReport(text: string): LabReport {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`Failed to read the lab report: not JSON (${truncate((error as Error).message, 100)})`);
  }
  // What stands in the version's place, a key in a path or a message quoting one is shown cut: one short line.
  const version = (value as { version?: unknown } | null)?.version;
  if (version !== labReportVersion) {
    const shown = truncate(JSON.stringify(version) ?? 'none', 40);
    throw new Error(
      `Failed to read the lab report: version: expected ${labReportVersion}, got ${shown} (a report of another petstore-mock)`,
    );
  }
  const result = labReportSchema().safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const where = issue.path.length > 0 ? describeIssuePath(issue.path) : '(root)';
  throw new Error(`Failed to read the lab report: ${where}: ${truncate(issue.message, 200)}`);
}

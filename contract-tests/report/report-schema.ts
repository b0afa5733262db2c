import type * as z from 'zod';
import { truncate } from '../../spec/interface/observed.js';
import { describeIssuePath } from '../../spec/issue-wording.js';
import { onFirstUse } from '../../spec/zod-module.js';
import { type Dimension, dimensions } from '../lib/rule-matrix.js';

// The JSON report (`--report json=FILE`), written once: the runner builds a `ContractReport` typed by
// this schema (report-model.ts) and does not run it; a test parses real reports with it, and
// schemas/contract-report.v1.schema.json publishes it for the tools that read a report. A change to
// a field's meaning is a new `reportVersion`.

/** The version the JSON report carries as `reportVersion`; a reader refuses any other. */
export const reportVersion = 1;

const checkStatusList = ['PASS', 'FAIL', 'SKIP', 'INFO', 'WARN'] as const;

/** One check's parts and the run's parts a report is made of, made when a report is first parsed. */
const reportParts = onFirstUse((z) => {
  const checkStatus = z.enum(checkStatusList);
  const evidence = z.object({
    request: z.string(),
    /** The exchange's `seq`, when the evidence is one request: the report rebuilds it as a curl. */
    seq: z.int().optional(),
    status: z.int().optional(),
    header: z.string().optional(),
    field: z.string().optional(),
    detail: z.string(),
  });
  const checkResult = z.object({
    /** Stable id (`auth.missing-key:listCategories`), used by expectation files. */
    id: z.string(),
    /** The interface rule (`§5.3`). */
    rule: z.string(),
    title: z.string(),
    operation: z.string().optional(),
    /** The group it belongs to (`Authentication (§5)`). */
    area: z.string(),
    status: checkStatus,
    /** Why it failed or was skipped, what it found (INFO), or a note on a pass. */
    message: z.string().optional(),
    evidence: z.array(evidence),
    requests: z.int(),
    /** Deterministic cases the check sent (coverage phase), when it counts them. */
    cases: z.int().optional(),
    /** SKIP because something outside the rule stopped it (rate limits, deadline, server gone): the run is INCONCLUSIVE. */
    inconclusive: z.boolean().optional(),
    /** When the check started, in ms after the run started. */
    startMs: z.number().optional(),
    durationMs: z.number(),
  });
  /**
   * Failures grouped by cause (failure-groups.ts): one broken behaviour usually fails many checks (a 401
   * without an Error body fails 48 auth probes), and a reader wants the behaviour once, with the places
   * it showed up and one request that shows it again.
   */
  const failureGroup = z.object({
    /** What is wrong, in the checks' words: their message when they all say it alike, else what they share. */
    cause: z.string(),
    /** The failures' shared message with what varies taken out; the group's key. */
    signature: z.string(),
    /** Rule ids of the group's checks, in the order they first appear. */
    rules: z.array(z.string()),
    /** Operations hit (`METHOD /path`; `(every response)` for checks over the whole run). */
    operations: z.array(z.string()),
    checks: z.array(checkResult.pick({ id: true, rule: true, title: true, operation: true })),
    /** The first piece of evidence of the group's first check. */
    evidence: evidence.optional(),
    /** A curl that sends the evidence's request again (the keys as shell variables), when the run kept it. */
    curl: z.string().optional(),
  });
  return { checkStatus, evidence, checkResult, failureGroup };
});

type Counts = Record<(typeof checkStatusList)[number], z.ZodOptional<z.ZodInt>>;

/** The run's requests per key and the coverage matrices, as the report writes them. */
const reportPictures = onFirstUse((z) => {
  const { checkStatus } = reportParts();
  /** One request: sent `atMs` after the timeline's start; `status` undefined when no answer came. */
  const timedRequest = z.object({
    atMs: z.number(),
    status: z.int().optional(),
    /** The Error body's `code`, when the answer had one (`rate_limited`, `key_banned`). */
    code: z.string().optional(),
    /** The wait a 429 asked for (Retry-After), in seconds. */
    retryAfterSeconds: z.number().optional(),
  });
  /** One key's requests, in the order sent. */
  const keyTimeline = z.object({
    /** The key as `requestsByKey` names it (masked): `main key demo…(8)`, `no key (auth probes)`. */
    key: z.string(),
    /** The smallest X-RateLimit-Limit the server announced on this key (its per-minute budget), when it did. */
    announcedLimit: z.number().optional(),
    requests: z.array(timedRequest),
  });
  /**
   * The run's requests per key, as sent: when, and what came back. Compact (a run sends about a
   * thousand): times are ms after `fromMs`, and only what the timeline draws is kept.
   */
  const requestTimeline = z.object({ fromMs: z.number(), toMs: z.number(), keys: z.array(keyTimeline) });
  const matrixCell = z.object({
    /** The worst status of the cell's checks: FAIL > SKIP > WARN > INFO > PASS. */
    status: checkStatus,
    /** How many of the cell's checks ended in each status (statuses none ended in are left out). */
    counts: z.object(Object.fromEntries(checkStatusList.map((status) => [status, z.int().optional()])) as Counts),
    /** Deterministic cases sent by the cell's checks. */
    cases: z.int(),
    /** Why the cell's first SKIP was skipped. */
    skipReason: z.string().optional(),
  });
  const dimensionIds = dimensions.map((dimension) => dimension.id) as [Dimension, ...Dimension[]];
  const dimensionCell = z.object({
    status: z.enum([...checkStatusList, 'INCONCLUSIVE', 'n/a', 'not run']),
    checks: z.array(z.string()),
    reason: z.string().optional(),
  });
  const dimensionMatrix = z.object({
    columns: z.array(z.object({ id: z.enum(dimensionIds), title: z.string() })),
    rows: z.array(
      z.object({ rule: z.string(), says: z.string(), cells: z.record(z.enum(dimensionIds), dimensionCell) }),
    ),
  });
  const coverageMatrix = z.object({
    /** Column names: operations as `METHOD /path`, then `(every response)` for checks over all exchanges. */
    operations: z.array(z.string()),
    rows: z.array(z.object({ rule: z.string(), cells: z.record(z.string(), matrixCell) })),
    /** Rule x dimension (lib/rule-matrix.ts): each cell as this run judged it. */
    dimensions: dimensionMatrix,
  });
  return { requestTimeline, matrixCell, dimensionCell, dimensionMatrix, coverageMatrix };
});

/** Where each rule id of the report points in the interface document (interface-links.ts). */
const interfaceLinksSchema = onFirstUse((z) =>
  z.object({
    /** Path inside the package: `docs/petstore-service-interface.md`. */
    document: z.string(),
    /** For a terminal: the shipped file, relative to the working directory when under it, else a file:// URL. */
    local: z.string(),
    /** For a web page (a CI job summary): the document at the tag of the kit's version. */
    web: z.string(),
    /** Rule id -> the heading of its section and the heading's anchor (`#8-limits`). */
    sections: z.record(z.string(), z.object({ heading: z.string(), anchor: z.string() })),
    /** Rule ids of other documents the kit checks against (`RFC 9110 §9.3.2`) -> their address. */
    external: z.record(z.string(), z.string()).optional(),
  }),
);

/**
 * The JSON report: the run's `ContractReport` and its coverage matrix. `settings` states every resolved
 * number and flag of the run by its option's name (report-model.ts types them from the options), the
 * keys and credential-like header values masked.
 */
export const jsonReportSchema = onFirstUse((z) => {
  const { checkStatus, checkResult, failureGroup } = reportParts();
  const { requestTimeline, coverageMatrix } = reportPictures();
  const count = z.int().min(0);
  const settings = z
    .object({
      apiKey: z.string(),
      rateLimitKey: z.string().optional(),
      namePrefix: z.string(),
      /** -H headers, credential values masked. */
      extraHeaders: z.record(z.string(), z.string()).optional(),
    })
    .catchall(z.union([z.number(), z.boolean()]));
  return z.object({
    reportVersion: z.literal(reportVersion),
    tool: z.object({ name: z.literal('petstore-contract'), version: z.string() }),
    runId: z.string(),
    target: z.object({ baseUrl: z.string(), viaPrism: z.boolean(), prismUrl: z.string().optional() }),
    spec: z.object({ path: z.string(), title: z.string(), version: z.string() }),
    startedAt: z.string(),
    durationMs: z.number(),
    settings,
    /** Requests sent, by the key they drew on (masked), e.g. { 'main key demo…(8)': 120, anonymous: 60 }. */
    requestsByKey: z.record(z.string(), count).optional(),
    /** Every request of the run on the key it drew on, with its time and answer: the HTML report's timeline. */
    requestTimeline: requestTimeline.optional(),
    /** Categories the run created on the server (the interface has no delete). */
    createdCategories: count.optional(),
    /** The most it could have created: the bound printed before its first request that could create data. */
    mayCreateCategories: count.optional(),
    verdict: z.enum(['CONFORMS', 'DOES NOT CONFORM', 'INCONCLUSIVE']).optional(),
    /** What stopped required checks, when the verdict is INCONCLUSIVE. */
    stoppedBy: z.array(z.string()).optional(),
    /** Tolerance used to judge time (server Date vs. headers). */
    timeTolerance: z.string().optional(),
    /** The failures grouped by cause, each with a curl that sends its evidence's request again. */
    failureGroups: z.array(failureGroup).optional(),
    /** Where each rule id of the report points in the interface document (shipped in the package). */
    interface: interfaceLinksSchema().optional(),
    results: z.array(checkResult),
    summary: z.object({
      ...Object.fromEntries(checkStatusList.map((s) => [s, count])),
      total: count,
      requests: count,
    }) as z.ZodObject<Record<z.infer<typeof checkStatus> | 'total' | 'requests', typeof count>>,
    /** Messages the run printed while it ran (waits for rate-limit windows, Prism). */
    log: z.array(z.string()),
    /** True when no required check failed. */
    conforms: z.boolean(),
    exitCode: z.union([z.literal(0), z.literal(1), z.literal(3)]),
    /** Rule x operation and rule x dimension: what the run proved, and where it proved nothing. */
    coverage: coverageMatrix,
  });
});

type Parts = ReturnType<typeof reportParts>;
type Pictures = ReturnType<typeof reportPictures>;
/** The JSON report, as written and as read. */
export type JsonReport = z.output<ReturnType<typeof jsonReportSchema>>;
export type CheckStatus = z.output<Parts['checkStatus']>;
export type Evidence = z.output<Parts['evidence']>;
export type CheckResult = z.output<Parts['checkResult']>;
export type FailureGroup = z.output<Parts['failureGroup']>;
export type RequestTimeline = z.output<Pictures['requestTimeline']>;
export type KeyTimeline = RequestTimeline['keys'][number];
export type TimedRequest = KeyTimeline['requests'][number];
export type MatrixCell = z.output<Pictures['matrixCell']>;
export type DimensionCell = z.output<Pictures['dimensionCell']>;
export type DimensionMatrix = z.output<Pictures['dimensionMatrix']>;
export type CoverageMatrix = z.output<Pictures['coverageMatrix']>;
export type InterfaceLinks = z.output<ReturnType<typeof interfaceLinksSchema>>;
export { checkStatusList };

/**
 * A JSON report, parsed (the text of `--report json=FILE`); throws one line naming the first field
 * that is wrong, or the version when the report is of another.
 */
export function parseJsonReport(text: string): JsonReport {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`Failed to read the report: not JSON (${truncate((error as Error).message, 100)})`);
  }
  // What stands in the version's place, a key in a path (`requestsByKey`, `settings` are records) or a
  // message quoting one (an unknown dimension) is shown cut: the refusal stays one short line.
  const version = (value as { reportVersion?: unknown } | null)?.reportVersion;
  if (version !== reportVersion) {
    const shown = truncate(JSON.stringify(version) ?? 'none', 40);
    throw new Error(
      `Failed to read the report: reportVersion: expected ${reportVersion}, got ${shown} (a report of another petstore-contract)`,
    );
  }
  const result = jsonReportSchema().safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const where = issue.path.length > 0 ? describeIssuePath(issue.path) : '(root)';
  throw new Error(`Failed to read the report: ${where}: ${truncate(issue.message, 200)}`);
}

import { type ClientJudgeState, clientVerdicts, createClientJudgeState, observeClient } from './client-judge.js';
import {
  type CoverageState,
  type CoveredOperation,
  coverageReport,
  createCoverageState,
  missingCoverage,
  observeCoverage,
} from './coverage.js';
import { type ClientReport, type LabReport, labReportVersion } from './lab-report-schema.js';
import { isoOf, type LabBanPolicy, type LabClockState, type LabObservation, type Verdict } from './lab-types.js';

/**
 * All the lab keeps of one session: a judge state per client and the coverage. Plain data, bounded:
 * at most `maxClients` clients are judged (anonymous addresses are unbounded in number); requests of
 * clients past it are still in the coverage and counted in `untrackedRequests`.
 *
 * @example
 * const lab = createLabSessionState();
 * observeLab(lab, observation);
 * const report = buildLabReport(lab, { session: 'default', clock, banPolicy });
 * const xml = labReportJunit(report);
 */
export interface LabSessionState {
  clients: Record<string, ClientJudgeState>;
  clientCount: number;
  maxClients: number;
  untrackedRequests: number;
  coverage: CoverageState;
}

export function createLabSessionState(options: { maxClients?: number } = {}): LabSessionState {
  return {
    clients: Object.create(null) as Record<string, ClientJudgeState>,
    clientCount: 0,
    maxClients: options.maxClients ?? 10_000,
    untrackedRequests: 0,
    coverage: createCoverageState(),
  };
}

/**
 * Folds one request into the session's lab state (in place); `operation` is the operation that
 * answered it, or its path in the spec (`observeCoverage`).
 */
export function observeLab(
  state: LabSessionState,
  observation: LabObservation,
  operation?: string | CoveredOperation,
): LabSessionState {
  return observeLabOf(state, observation, operation, state.clients[observation.clientId ?? observation.client]);
}

/** `observeLab` with the client's state already looked up (undefined for a client not judged yet): the core looks it up once per request. */
export function observeLabOf(
  state: LabSessionState,
  observation: LabObservation,
  operation: string | CoveredOperation | undefined,
  known: ClientJudgeState | undefined,
): LabSessionState {
  if (observation.outcome === 'other') return state;
  observeCoverage(state.coverage, observation, operation);
  const id = observation.clientId ?? observation.client;
  let client = known;
  if (!client) {
    if (state.clientCount >= state.maxClients) {
      state.untrackedRequests += 1;
      return state;
    }
    client = state.clients[id] = createClientJudgeState(observation);
    state.clientCount += 1;
  }
  observeClient(client, observation);
  return state;
}

export function clientReport(state: ClientJudgeState, banPolicy: LabBanPolicy): ClientReport {
  const byStatus: Record<string, number> = {};
  for (const status of Object.keys(state.byStatus).sort((a, b) => Number(a) - Number(b)))
    byStatus[status] = state.byStatus[status]!;
  return {
    client: state.client,
    kind: state.kind,
    plan: state.plan,
    limits: { ...state.limits },
    requests: { total: state.total, byStatus, refused429: state.refused429 },
    verdicts: clientVerdicts(state, banPolicy),
  };
}

/**
 * The report of `GET /__mock/report` (typed by lab-report-schema.ts, which it does not run). Clients are
 * ordered by their first request, then by name, so the same traffic gives the same bytes.
 */
export function buildLabReport(
  state: LabSessionState,
  context: { session: string; clock: LabClockState | number; banPolicy: LabBanPolicy },
): LabReport {
  const clock = typeof context.clock === 'number' ? clockStateAt(context.clock) : context.clock;
  const clients = Object.values(state.clients)
    .sort((a, b) => a.firstAtMs - b.firstAtMs || (a.client < b.client ? -1 : a.client > b.client ? 1 : 0))
    .map((client) => clientReport(client, context.banPolicy));
  const coverage = coverageReport(state.coverage);
  return { version: labReportVersion, session: context.session, generatedAt: clock.now, clock, clients, coverage };
}

/** A clock state at a virtual time with no offset (replays: the recorded time is the clock). */
export function clockStateAt(ms: number, offsetMs = 0): LabClockState {
  return { now: isoOf(ms), epochSeconds: Math.floor(ms / 1000), offsetSeconds: offsetMs / 1000 };
}

/**
 * The report as JUnit XML: one testsuite per client, one testcase per rule. `fail` is a <failure>
 * with the evidence, `not-exercised` is <skipped message>, `pass` and `info` pass with the summary in
 * <system-out>. Coverage gates, when given, are one more testsuite.
 *
 * @example labReportJunit(report, { requiredSituations: ['429'] })
 */
export function labReportJunit(report: LabReport, options: { requiredSituations?: readonly string[] } = {}): string {
  const lines: string[] = [];
  let tests = 0;
  let failures = 0;
  let skipped = 0;
  const suites: string[] = [];
  for (const client of report.clients) {
    const cases: string[] = [];
    let suiteFailures = 0;
    let suiteSkipped = 0;
    for (const verdict of client.verdicts) {
      cases.push(junitCase(`${client.client}: ${verdict.rule}`, `petstore-mock.lab.${client.kind}`, verdict));
      if (verdict.outcome === 'fail') suiteFailures += 1;
      if (verdict.outcome === 'not-exercised') suiteSkipped += 1;
    }
    tests += client.verdicts.length;
    failures += suiteFailures;
    skipped += suiteSkipped;
    suites.push(
      `  <testsuite name="${xmlEscape(`client ${client.client} (${client.plan})`)}" tests="${client.verdicts.length}" failures="${suiteFailures}" errors="0" skipped="${suiteSkipped}" timestamp="${xmlEscape(report.generatedAt.replace(/Z$/, ''))}">\n${cases.join('\n')}\n  </testsuite>`,
    );
  }
  if (options.requiredSituations && options.requiredSituations.length > 0) {
    const cases: string[] = [];
    let suiteFailures = 0;
    for (const name of options.requiredSituations) {
      const situation = report.coverage.situations[name as keyof typeof report.coverage.situations];
      const met = situation?.met === true;
      if (!met) suiteFailures += 1;
      cases.push(
        met
          ? `    <testcase name="${xmlEscape(`situation ${name}`)}" classname="petstore-mock.lab.coverage">\n      <system-out>${xmlEscape(`met ${situation!.count} times, first at ${situation!.firstAt}`)}</system-out>\n    </testcase>`
          : `    <testcase name="${xmlEscape(`situation ${name}`)}" classname="petstore-mock.lab.coverage">\n      <failure message="${xmlEscape(`situation ${name} was never served`)}" type="coverage"/>\n    </testcase>`,
      );
    }
    tests += cases.length;
    failures += suiteFailures;
    suites.push(
      `  <testsuite name="coverage" tests="${cases.length}" failures="${suiteFailures}" errors="0" skipped="0">\n${cases.join('\n')}\n  </testsuite>`,
    );
  }
  lines.push('<?xml version="1.0" encoding="UTF-8"?>');
  lines.push(
    `<testsuites name="${xmlEscape(`petstore-mock lab, session ${report.session}`)}" tests="${tests}" failures="${failures}" errors="0" skipped="${skipped}">`,
  );
  lines.push(...suites);
  lines.push('</testsuites>');
  return `${lines.join('\n')}\n`;
}

function junitCase(name: string, classname: string, verdict: Verdict): string {
  const head = `    <testcase name="${xmlEscape(name)}" classname="${xmlEscape(classname)}">`;
  const summary = verdict.evidence.summary;
  switch (verdict.outcome) {
    case 'fail':
      return `${head}\n      <failure message="${xmlEscape(summary)}" type="${verdict.rule}">${xmlEscape(JSON.stringify(verdict.evidence, null, 2))}</failure>\n    </testcase>`;
    case 'not-exercised':
      return `${head}\n      <skipped message="${xmlEscape(summary)}"/>\n    </testcase>`;
    default:
      return `${head}\n      <system-out>${xmlEscape(`${verdict.outcome}: ${summary}`)}</system-out>\n    </testcase>`;
  }
}

/**
 * Escapes text for XML content and attribute values; characters XML 1.0 cannot carry at all
 * (controls other than tab, newline, return; lone surrogates; U+FFFE/FFFF) become U+FFFD.
 */
export function xmlEscape(text: string): string {
  return text
    .replace(
      /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
      '\ufffd',
    )
    .replace(/[&<>"']/g, (character) => xmlEntities[character]!);
}

const xmlEntities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/**
 * The vitest-friendly check of a report (the MSW setups and `--min-coverage` use it): throws one
 * Error listing every failed verdict (client, rule, summary) and every required situation never met;
 * returns quietly otherwise. Unknown situation names throw too (listing the known ones).
 *
 * @example
 * expectWellBehaved(await mock.report(), { minCoverage: ['429', '401'] });
 * // Error: The mock's report found 1 problem:
 * //   demo-free: retry-after-honoured failed: 3 of 3 requests after a 429 came early; ...
 */
export function expectWellBehaved(
  report: LabReport,
  options: { minCoverage?: readonly string[]; clients?: readonly string[] } = {},
): void {
  const problems: string[] = [];
  for (const client of report.clients) {
    if (options.clients && !options.clients.includes(client.client)) continue;
    for (const verdict of client.verdicts) {
      if (verdict.outcome === 'fail')
        problems.push(`${client.client}: ${verdict.rule} failed: ${verdict.evidence.summary}`);
    }
  }
  for (const name of missingCoverage(report, options.minCoverage ?? []))
    problems.push(`coverage: situation ${name} was never served`);
  if (problems.length > 0)
    throw new Error(
      `The mock's report found ${problems.length} problem${problems.length === 1 ? '' : 's'}:\n  ${problems.join('\n  ')}`,
    );
}

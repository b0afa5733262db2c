/**
 * `petstore-mock replay FILE` (Node only: it reads and writes files). The CLI wires it with one line:
 * `if (argv[0] === 'replay') return runReplayCommand(argv.slice(1));`
 */
import { readBoundedText } from '../../spec/bounded-file.js';
import { readSpecFile } from '../../spec/load-spec.js';
import { writeReportFile } from '../../spec/report-file.js';
import { sanitiseForTerminal, sanitiseLinesForTerminal } from '../../spec/terminal-text.js';
import { targetPath, targetQuery } from '../../spec/url-parts.js';
import { demoKeys, type MockConfig, parseMockConfig } from '../core/config/mock-config.js';
import { createMockApp } from '../core/mock-app.js';
import { createRouter } from '../core/spec/router.js';
import type { Clock } from '../core/types.js';
import { labReportJunit } from '../lab/lab-report.js';
import { type ReplayResult, type ReplayTarget, replay } from '../lab/replay.js';
import {
  displayKey,
  maxReplayFileBytes,
  parseKeyMapping,
  parseRecording,
  type Recording,
  ReplayInputError,
} from '../lab/replay-input.js';
import { formatDuration, renderTimelineSvg } from '../lab/timeline-svg.js';
import { readConfigFile } from '../server/config-file.js';
import { helpLines, type OptionRow, type OptionValues, parseCommandLine, readOptionValues } from './option-table.js';
import { reportTargetsProblem, serverReportTargets } from './report-option.js';

export interface ReplayCommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
  readFile(path: string): Promise<string>;
  writeFile(path: string, text: string): Promise<void>;
}

const nodeIo: ReplayCommandIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readFile: (path) =>
    readBoundedText(path, {
      maxBytes: maxReplayFileBytes,
      expected: 'a HAR file or a JSON-lines export of the API requests',
    }),
  writeFile: (path, text) => writeReportFile(path, text),
};

/** `petstore-mock replay`'s options, each declared once (decision 048). */
export const replayOptions = {
  key: {
    type: 'string',
    multiple: true,
    value: 'KEY=PLAN',
    help: [
      'The plan of a recorded key (HAR) or pseudonym (export); PLAN is a plan name',
      'or perMinute/perDay, e.g. --key sk_live_abc=pro --key client-5e3f0c2a9b1d=10/100',
      '(repeatable)',
    ],
  },
  'default-plan': {
    type: 'string',
    value: 'PLAN',
    help: ['The plan of every HAR key not given with --key (demo keys keep theirs)'],
  },
  config: {
    type: 'string',
    value: 'FILE',
    help: ["The mock's config (plans, anonymous budget, ban policy), as for the server"],
  },
  report: {
    type: 'string',
    multiple: true,
    value: 'FORMAT=FILE',
    help: [
      'Write the lab report as json or junit (repeatable; a bare FILE is JUnit XML',
      'when it ends in .xml, else JSON)',
    ],
  },
  timeline: {
    type: 'string',
    value: 'FILE.svg',
    parse: (path: string) => {
      if (!/\.svg$/i.test(path)) throw new Error(`--timeline ${path}: the file name must end in .svg`);
      return path;
    },
    help: ['Draw the requests per client over time (status, limits, bans) as SVG'],
  },
  help: { type: 'boolean', help: ['Show this help'] },
} as const satisfies Record<string, OptionRow>;

export const replayHelp = `petstore-mock replay FILE [options]: replay recorded traffic against a fresh in-memory mock.

FILE is a HAR 1.2 recording (real keys: map them to plans) or the mock's own request log exported
with GET /__mock/requests?format=jsonl (clients under pseudonyms with their plans: no mapping needed).
The virtual clock follows the recorded times, as fast as the machine allows; same input, same output.

Options:
${helpLines(replayOptions, 'options', 28)}

Exit status: 0 when replayed, 2 when the command line or the recording is not usable.
`;

const helpHint = '\nRun petstore-mock replay --help for the options.';

/**
 * Runs the replay command; resolves to the exit status.
 *
 * @example process.exitCode = await runReplayCommand(['incident.har', '--default-plan', 'free', '--timeline', 'incident.svg']);
 */
export async function runReplayCommand(argv: string[], io: ReplayCommandIo = nodeIo): Promise<number> {
  // Everything printed is escaped for the terminal: a recording's URLs, keys and plans, and paths.
  const print = (text: string) => io.stdout(sanitiseLinesForTerminal(text));
  const fail = (message: string, hint = '') => {
    io.stderr(`petstore-mock replay: ${sanitiseForTerminal(message)}${hint}\n`);
    return 2;
  };
  const parsed = parseCommandLine(argv, replayOptions);
  if (parsed.error !== undefined) return fail(parsed.error, parsed.usage ? helpHint : '');
  if (parsed.values.help) {
    print(replayHelp);
    return 0;
  }
  if (parsed.positionals.length !== 1) {
    return fail(
      `expected one recording (a HAR file or a JSON-lines export), got ${parsed.positionals.length}`,
      helpHint,
    );
  }
  const read = readOptionValues(replayOptions, parsed.values);
  if (read.error !== undefined) return fail(read.error);
  const { values } = read;
  const recordingPath = parsed.positionals[0]!;
  const reports = serverReportTargets(values.report, ['json', 'junit']);
  if (typeof reports === 'string') return fail(reports);
  // The recording and the config are read: a report over one would destroy it.
  const reportProblem = await reportTargetsProblem(reports, [recordingPath, values.config]);
  if (reportProblem !== undefined) return fail(reportProblem);
  try {
    const result = await replayRecording(recordingPath, values, io);
    print(formatReplaySummary(result));
    for (const target of reports) {
      const body =
        target.format === 'junit' ? labReportJunit(result.report) : `${JSON.stringify(result.report, null, 2)}\n`;
      await io.writeFile(target.path, body);
      print(`Report written to ${sanitiseForTerminal(target.path)}\n`);
    }
    if (values.timeline !== undefined) {
      await io.writeFile(values.timeline, renderTimelineSvg(result.timeline, { width: 1100 }));
      print(`Timeline written to ${sanitiseForTerminal(values.timeline)}\n`);
    }
    return 0;
  } catch (error) {
    return fail((error as Error).message);
  }
}

/** Reads the config, the key mappings and the recording, and replays it; a problem is thrown in one line. */
async function replayRecording(
  path: string,
  values: OptionValues<typeof replayOptions>,
  io: ReplayCommandIo,
): Promise<ReplayResult> {
  const config: MockConfig = values.config ? await readConfigFile(values.config) : parseMockConfig({});
  const keyPlans = new Map<string, string>();
  for (const mapping of values.key ?? []) {
    const [key, plan] = parseKeyMapping(mapping);
    keyPlans.set(key, plan);
  }
  let text: string;
  try {
    text = await io.readFile(path);
  } catch (error) {
    throw new ReplayInputError(
      `Failed to read ${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
    );
  }
  const demo = config.demoKeys ? Object.fromEntries(demoKeys.map((entry) => [entry.key, entry.plan!])) : {};
  const recording = parseRecording(text, {
    plans: config.plans,
    keyPlans,
    ...(values['default-plan'] !== undefined ? { defaultPlan: values['default-plan'] } : {}),
    demoKeys: demo,
  });
  const spec = await readSpecFile();
  const replanned = new Set([...keyPlans.keys()].flatMap((key) => [key, displayKey(key, demo)]));
  return replayAgainstMockApp(recording.requests, config, spec, {
    title: path,
    recording,
    replannedClients: replanned,
  });
}

/** What a replay knows besides its requests, config and spec. */
interface ReplayContext {
  /** What was replayed (a file name): the timeline's title is "Replay of TITLE". */
  title?: string;
  recording?: Pick<Recording, 'format' | 'start'>;
  replannedClients?: ReadonlySet<string>;
}

/** Replays against a fresh `createMockApp` of `spec` with `config` (the command's engine, also for tests and the bench). */
export async function replayAgainstMockApp(
  requests: Parameters<typeof replay>[0],
  config: MockConfig,
  spec: Parameters<typeof createMockApp>[0]['spec'],
  context: ReplayContext = {},
): Promise<ReplayResult> {
  let route: ReturnType<typeof createRouter> | undefined;
  let basePath = '';
  return replay(requests, {
    createApp(clock: Clock): ReplayTarget {
      // No fault rules of the config: the recorded faults are asked for again, request by request (Prefer), not drawn anew.
      const { faults: _drawnAnew, ...withoutFaults } = config;
      const app = createMockApp({ spec, config: withoutFaults, clock, seed: 1 });
      route = createRouter(app.spec.operations);
      basePath = app.basePath;
      // respond(): the in-memory mock answers at once, so a replay awaits nothing per request.
      return {
        handle: (request) => app.respond(request),
        addKey: (input) => app.controls.addKey(input),
        applyScenario: (scenario) => app.controls.applyScenario(scenario),
      };
    },
    operationOf(method, target) {
      const path = targetPath(target);
      if (!route || (basePath !== '' && path !== basePath && !path.startsWith(`${basePath}/`))) return null;
      const match = route(method, path.slice(basePath.length) || '/', targetQuery(target));
      return match.kind === 'operation'
        ? {
            operationId: match.operation.operationId,
            pathTemplate: match.operation.pathTemplate,
            method: match.operation.method,
          }
        : null;
    },
    banPolicy: {
      enabled: config.ban.enabled,
      threshold: config.ban.threshold,
      durationMs: config.ban.durationSeconds * 1000,
    },
    anonymousLimits: config.anonymous,
    ...(context.title !== undefined ? { title: `Replay of ${context.title}` } : {}),
    ...(context.recording !== undefined ? { recording: context.recording } : {}),
    ...(context.replannedClients !== undefined ? { replannedClients: context.replannedClients } : {}),
  });
}

/** Clients shown in the summary's table; the report (--report) has every one. */
const maxClientRows = 50;

/** The summary the command prints: totals, a table per client, and how the statuses compare with the recording. */
export function formatReplaySummary(result: ReplayResult): string {
  const recorded = (ms: number) => iso(ms - result.timeShiftMs);
  const lines: string[] = [];
  // What the recording says (clients, plans, methods, URLs) is escaped: it may hold any character.
  lines.push(
    `Replayed ${count(result.requests)} requests recorded from ${recorded(result.fromMs)} to ${recorded(result.toMs)} (${formatDuration(result.toMs - result.fromMs)} of virtual time)`,
  );
  if (result.warning !== null) lines.push(`Warning: ${result.warning}`);
  else if (result.startingState?.applied)
    lines.push(
      `Starting state applied before request #${result.startingState.beforeIndex + 1} (budgets, bans, keys and categories as the mock had them)`,
    );
  if (result.timeShiftMs !== 0)
    lines.push(
      `Recorded before 1970: replayed ${count(result.timeShiftMs / 86_400_000)} days later, from ${iso(result.fromMs)} (the report and the timeline show those times)`,
    );
  lines.push(
    `Statuses: ${Object.entries(result.byStatus)
      .map(([status, n]) => `${status} x ${count(n)}`)
      .join(', ')}`,
  );
  lines.push('', ...clientTable(result), '');
  const { compared, same, differences, causes } = result.recorded;
  if (compared > 0) {
    lines.push(`Recorded statuses: ${count(same)} of ${count(compared)} the same`);
    if (compared !== same) {
      lines.push('Differences by cause:');
      for (const [cause, n] of Object.entries(causes).sort((a, b) => b[1] - a[1]))
        lines.push(`  ${count(n)} x ${cause}`);
      lines.push('First differences:');
    }
    for (const difference of differences.slice(0, 5))
      lines.push(
        `  #${difference.index + 1} ${recorded(difference.atMs)} ${sanitiseForTerminal(difference.method)} ${sanitiseForTerminal(difference.url)}: recorded ${difference.recorded}, replayed ${difference.replayed} (${difference.cause})`,
      );
  }
  return `${lines.join('\n')}\n`;
}

/** The busiest clients, one line each: requests by status class, bans and failed verdicts. */
function clientTable(result: ReplayResult): string[] {
  const header = ['client', 'plan', 'requests', '2xx', '4xx', '429', '5xx', 'bans', 'verdicts'];
  const reports = new Map(result.report.clients.map((report) => [report.client, report]));
  const shown = [...result.clients].sort((a, b) => b.requests - a.requests).slice(0, maxClientRows);
  const rows = shown.map((client) => {
    const by = (test: (status: number) => boolean) =>
      Object.entries(client.byStatus).reduce((sum, [status, n]) => sum + (test(Number(status)) ? n : 0), 0);
    const failed =
      reports
        .get(client.client)
        ?.verdicts.filter((verdict) => verdict.outcome === 'fail')
        .map((verdict) => verdict.rule) ?? [];
    return [
      sanitiseForTerminal(client.client),
      sanitiseForTerminal(client.plan),
      count(client.requests),
      count(by((status) => status < 400)),
      count(by((status) => status >= 400 && status < 500 && status !== 429)),
      count(client.refused429),
      count(by((status) => status >= 500)),
      count(client.bans),
      failed.length > 0 ? `FAIL ${sanitiseForTerminal(failed.join(', '))}` : 'ok',
    ];
  });
  const widths = header.map((title, column) =>
    rows.reduce((width, row) => Math.max(width, row[column]!.length), title.length),
  );
  const numeric = new Set([2, 3, 4, 5, 6, 7]);
  const render = (row: string[]) =>
    row
      .map((cell, column) =>
        column === row.length - 1
          ? cell
          : numeric.has(column)
            ? cell.padStart(widths[column]!)
            : cell.padEnd(widths[column]!),
      )
      .join('  ');
  const more = result.clients.length - shown.length;
  return [
    render(header),
    ...rows.map(render),
    ...(more > 0 ? [`… and ${count(more)} more clients with fewer requests (--report FILE lists every one)`] : []),
  ];
}

function count(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

import { maskCredentialPatterns } from '../../spec/credential-masking.js';
import { readSpecFile } from '../../spec/load-spec.js';
import { writeReportFile } from '../../spec/report-file.js';
import { sanitiseForTerminal } from '../../spec/terminal-text.js';
import { type FaultSettings, faultSettingsSchema } from '../core/config/fault-config.js';
import type { AllowedHosts } from '../core/controls/control-access.js';
import type { Logger } from '../core/types.js';
import { createConsoleLogger } from '../server/console-logger.js';
import { proxyReportJunit, proxyReportMarkdown } from '../server/proxy-report.js';
import { type RunningProxyServer, startProxyServer } from '../server/proxy-server.js';
import { allowedHostsOption } from './allowed-hosts-option.js';
import {
  choiceOption,
  helpLines,
  integerOption,
  type OptionRow,
  parseCommandLine,
  readOptionValues,
} from './option-table.js';
import { reportTargetsProblem, type ServerReportTarget, serverReportTargets } from './report-option.js';
import { awaitEndOfRun, commandAfterTerminator, commandProblem, defaultPort, howItStops } from './wrapped-command.js';

/** `petstore-mock proxy`'s options, each declared once (decision 048). */
export const proxyOptions = {
  port: {
    type: 'string',
    short: 'p',
    value: 'N',
    default: '4010',
    parse: integerOption(0, 65_535),
    help: ['Port to listen on (default 4010, or a free one with -- COMMAND; 0 picks a free port)'],
  },
  host: {
    type: 'string',
    short: 'h',
    value: 'HOST',
    default: '127.0.0.1',
    help: ['Address to bind (default 127.0.0.1; another one is said in one line)'],
  },
  spec: { type: 'string', value: 'FILE', help: ["The document to judge against (default the kit's Petstore spec)"] },
  report: {
    type: 'string',
    multiple: true,
    value: 'FORMAT=FILE',
    help: [
      'On shutdown, write the report as json, junit or markdown (repeatable; a bare',
      'FILE by its ending: .xml JUnit XML, .md Markdown, else JSON)',
    ],
  },
  'fail-on': {
    type: 'string',
    value: 'SIDE',
    parse: choiceOption(['server', 'client', 'any']),
    help: ['Exit 1 at shutdown when SIDE broke a rule: server, client or any'],
  },
  'max-body-bytes': {
    type: 'string',
    value: 'N',
    default: '1048576',
    parse: integerOption(1, 64 * 1024 * 1024),
    help: [
      'Bytes of an answer kept for judging (default 1048576); longer ones are forwarded',
      'whole and reported as too large to judge',
    ],
  },
  'upstream-timeout': {
    type: 'string',
    value: 'S',
    default: '30',
    parse: integerOption(1, 3_600),
    help: ['Seconds the upstream has to answer (default 30); then 502'],
  },
  'allowed-hosts': {
    type: 'string',
    multiple: true,
    value: 'NAME',
    help: [
      'Also serve /__mock/* under Host NAME (repeatable; .NAME adds subdomains; all: any);',
      'by default only loopback names and the bound address (DNS rebinding is 403)',
    ],
  },
  latency: {
    type: 'string',
    value: 'RANGE',
    // Read into fault settings at once: a latency that does not read is refused before the proxy starts.
    parse: (latency: string, flag: string) => faultsWithLatency(undefined, latency, flag),
    help: [
      'Every answer reaches the client this much later: 200ms, 1.5s or 50-300ms (faults',
      'per operation and key: "faults:" in the config; docs/proxy.md)',
    ],
  },
  verbose: { type: 'boolean', help: ['Log every forwarded request (keys never shown)'] },
  quiet: { type: 'boolean', help: ['Print nothing but errors'] },
  help: { type: 'boolean', help: ['Show this help'] },
} as const satisfies Record<string, OptionRow>;

export const proxyHelp = `petstore-mock proxy: forward real traffic to a server and judge both sides against the interface.

Usage: petstore-mock proxy UPSTREAM [options]
       petstore-mock proxy UPSTREAM [options] -- COMMAND [ARGS]   run COMMAND (a test run) through the proxy,
                           then stop: it gets PETSTORE_BASE_URL; the exit code is its own, or 1 when it
                           passed and --fail-on failed; the port is a free one unless --port says
       petstore-mock --config FILE          (with "proxy: UPSTREAM" in the config)

  UPSTREAM                 The server's API base URL, version prefix included (https://staging.example.com/v1)

Options:
${helpLines(proxyOptions, 'options', 27)}

Served beside the forwarded API (under /v1 as the mock): GET /__mock/report (?format=junit|markdown),
GET /__mock/requests?format=jsonl (the traffic for petstore-mock replay, keys as pseudonyms),
GET /__mock/ui (the dashboard), GET /__mock/health. Nothing is added, dropped or retried; an upstream
that cannot be reached is a 502 {code, message, status}.
`;

export type FailOn = 'server' | 'client' | 'any';

/**
 * `petstore-mock proxy UPSTREAM`: runs the judging proxy until SIGINT or SIGTERM, then writes
 * `--report` and applies `--fail-on`. Returns the exit code (2 for a usage error, one line).
 *
 * @example await runProxyCommand(['https://staging.example.com/v1', '--report', 'proxy.xml', '--fail-on', 'any'])
 */
export async function runProxyCommand(argv: string[]): Promise<number> {
  const parsed = parseCommandLine(argv, proxyOptions);
  if (parsed.error !== undefined) {
    if (parsed.usage) return usage(parsed.error);
    printError(parsed.error);
    return 2;
  }
  if (parsed.values.help) {
    process.stdout.write(proxyHelp);
    return 0;
  }
  const command = commandAfterTerminator(parsed, argv);
  const positionals = parsed.positionals.slice(0, parsed.positionals.length - (command?.length ?? 0));
  if (positionals.length !== 1)
    return usage('expected one upstream base URL, e.g. petstore-mock proxy https://staging.example.com/v1');
  const unusableCommand = commandProblem(command);
  if (unusableCommand !== undefined) return usage(unusableCommand);
  const read = readOptionValues(proxyOptions, parsed.values, {
    defaults: command === undefined ? {} : { port: defaultPort(command, '4010') },
  });
  if (read.error !== undefined) return usage(read.error);
  const { values } = read;
  const reports = serverReportTargets(values.report, ['json', 'junit', 'markdown']);
  if (typeof reports === 'string') return usage(reports);
  const reportProblem = await reportTargetsProblem(reports, [values.spec, process.argv[1]]);
  if (reportProblem !== undefined) return usage(reportProblem);
  const logger = createConsoleLogger({ verbose: values.verbose, quiet: values.quiet });
  return runProxy({
    upstream: positionals[0]!,
    port: values.port,
    host: values.host,
    specPath: values.spec,
    maxJudgedBodyBytes: values['max-body-bytes'],
    upstreamTimeoutMs: values['upstream-timeout'] * 1000,
    reports,
    failOn: values['fail-on'],
    ...(values['allowed-hosts'] ? { allowedHosts: allowedHostsOption(values['allowed-hosts'], undefined) } : {}),
    ...(values.latency !== undefined ? { faults: values.latency } : {}),
    command,
    logger,
  });
}

/**
 * The config's fault settings with `--latency` over them (decision 042); throws one line naming
 * `flag` (where the text was read: `--latency`, or an environment variable) when it cannot be read.
 */
export function faultsWithLatency(
  faults: FaultSettings | undefined,
  latency: string | undefined,
  flag = '--latency',
): FaultSettings | undefined {
  if (latency === undefined) return faults;
  const decoded = faultSettingsSchema().safeParse({ ...faults, latency });
  if (!decoded.success) throw new Error(`${flag}: ${decoded.error.issues[0]?.message ?? 'not a latency'}`);
  return decoded.data;
}

/** Starts the proxy and waits for a signal; shared by the subcommand and `proxy:` in the config. */
export async function runProxy(settings: {
  upstream: string;
  port: number;
  host: string;
  specPath?: string | undefined;
  maxJudgedBodyBytes?: number;
  upstreamTimeoutMs?: number;
  /** Written at shutdown (report-option.ts). */
  reports?: readonly ServerReportTarget[];
  failOn?: FailOn | undefined;
  allowedHosts?: AllowedHosts;
  /** Latency and faults towards the client (decision 042), drawn from `seed`. */
  faults?: FaultSettings | undefined;
  seed?: number;
  /** `-- COMMAND`: run it through the proxy, then stop (wrapped-command.ts). */
  command?: string[] | undefined;
  logger: Logger;
}): Promise<number> {
  const { logger } = settings;
  let proxy: RunningProxyServer;
  try {
    proxy = await startProxyServer({
      upstream: settings.upstream,
      port: settings.port,
      host: settings.host,
      ...(settings.specPath !== undefined ? { spec: await readSpecFile(settings.specPath) } : {}),
      ...(settings.maxJudgedBodyBytes !== undefined ? { maxJudgedBodyBytes: settings.maxJudgedBodyBytes } : {}),
      ...(settings.upstreamTimeoutMs !== undefined ? { upstreamTimeoutMs: settings.upstreamTimeoutMs } : {}),
      ...(settings.allowedHosts !== undefined ? { allowedHosts: settings.allowedHosts } : {}),
      ...(settings.faults !== undefined ? { faults: settings.faults, seed: settings.seed ?? 1 } : {}),
      logger,
    });
  } catch (error) {
    printError((error as Error).message);
    return 2;
  }
  const untilEnd = awaitEndOfRun(settings.command);
  const stop = () =>
    proxy
      .close()
      .then(() => finish(proxy, settings.reports ?? [], settings.failOn, logger))
      .catch((error: unknown) => {
        logger.error(`Failed to write the proxy report: ${(error as Error).message}`);
        return 1;
      });
  const report = proxy.report();
  logger.info(`Judging proxy of ${report.upstream} listening on ${proxy.baseUrl}`);
  if (!isLoopback(settings.host))
    logger.info(
      `Listening on ${settings.host}, not loopback: other machines can send traffic through this proxy and read its report`,
    );
  logger.info(
    `Report at ${proxy.origin}/__mock/report; dashboard: ${proxy.origin}/__mock/ui. ${howItStops(settings.command)}`,
  );
  return untilEnd({ baseUrl: proxy.baseUrl, logger, finish: stop });
}

async function finish(
  proxy: RunningProxyServer,
  reports: readonly ServerReportTarget[],
  failOn: FailOn | undefined,
  logger: Logger,
): Promise<number> {
  const report = proxy.report();
  for (const target of reports) {
    await writeReportFile(
      target.path,
      target.format === 'junit'
        ? proxyReportJunit(report)
        : target.format === 'markdown'
          ? proxyReportMarkdown(report)
          : `${JSON.stringify(report, null, 2)}\n`,
    );
    logger.info(`Wrote the proxy report to ${target.path}`);
  }
  const broken = (['server', 'client'] as const).filter(
    (side) => (failOn === side || failOn === 'any') && proxy.judge.broke(side),
  );
  logger.info(`Server: ${report.server.outcome.toUpperCase()}; client: ${report.client.outcome.toUpperCase()}`);
  if (broken.length === 0) return 0;
  logger.error(`--fail-on ${failOn}: the ${broken.join(' and the ')} broke a rule (see the report)`);
  return 1;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

function usage(message: string): number {
  printError(message, '\nRun petstore-mock proxy --help for the options.');
  return 2;
}

function printError(message: string, hint = ''): void {
  // What a line quotes of the command line (a URL's `?token=`) is masked: a CI log is read by many.
  process.stderr.write(`petstore-mock proxy: ${sanitiseForTerminal(maskCredentialPatterns(message))}${hint}\n`);
}

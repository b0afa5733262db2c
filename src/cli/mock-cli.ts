#!/usr/bin/env node
import { type FSWatcher, readFileSync } from 'node:fs';
import { maskCredentialPatterns } from '../../spec/credential-masking.js';
import { allowUnsafePatterns } from '../../spec/linear-patterns.js';
import { defaultSpecPath } from '../../spec/load-spec.js';
import { writeReportFile } from '../../spec/report-file.js';
import { sanitiseForTerminal } from '../../spec/terminal-text.js';
import { describeFaults } from '../core/config/fault-config.js';
import { type MockConfig, parseMockConfig } from '../core/config/mock-config.js';
import { mergeScenarios, parseScenario, type Scenario } from '../core/config/scenario-file.js';
import { prepareScenario } from '../core/controls/scenario.js';
import type { MockApp } from '../core/mock-app.js';
import { createAuthenticator } from '../core/pipeline/auth.js';
import type { Logger } from '../core/types.js';
import { missingCoverage } from '../lab/coverage.js';
import { labReportJunit } from '../lab/lab-report.js';
import type { SituationName } from '../lab/lab-types.js';
import { readYamlFileText } from '../server/config-file.js';
import { createConsoleLogger } from '../server/console-logger.js';
import { type RunningMockServer, readConfigFile, startMockServer } from '../server/start-server.js';
import { allowedHostsOption } from './allowed-hosts-option.js';
import { credentialsLine } from './credentials-banner.js';
import { mockHelp, mockOptions } from './mock-options.js';
import { type OptionValues, optionsConfig, parseCommandLine, readOptionValues } from './option-table.js';
import { type PrismHabits, readPrismHabits } from './prism-habits.js';
import { runReplayCommand } from './replay-command.js';
import {
  reportTargetsProblem,
  type ServerReportFormat,
  type ServerReportTarget,
  serverReportTargets,
} from './report-option.js';
import { scenarioBanner } from './scenario-banner.js';
import { describeStoreUrl, watchSpec } from './watch-spec.js';
import { awaitEndOfRun, commandAfterTerminator, commandProblem, defaultPort, howItStops } from './wrapped-command.js';

/** The package's version, read from its package.json (the same relative path from src/cli and dist/bin). */
function packageVersion(): string {
  try {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      name?: string;
      version?: string;
    };
    if (manifest.name === 'petstore-kit' && typeof manifest.version === 'string') return manifest.version;
  } catch {
    // Fall through: a copied bin without its package still answers --version.
  }
  return 'unknown';
}

/** The command line once read: every option's value, the spec, the wrapped command and Prism's habits. */
interface MockCommandLine {
  values: OptionValues<typeof mockOptions>;
  specPath: string | undefined;
  command: string[] | undefined;
  prism: PrismHabits;
}

/** What the start step hands the banner and the end of the run. */
interface StartedMock {
  mock: RunningMockServer;
  /** The scenario the default session starts from, and the files it came from, for the banner. */
  startScenario: { scenario: Scenario; sources: string[] } | undefined;
  labReports: ServerReportTarget[];
}

/**
 * The mock's run in named steps: read the command line (Prism's habits, the table's options), read the
 * config file, start the mock (or the proxy it asks for), print the banner, and wait for the end.
 */
async function main(given: string[]): Promise<number> {
  const prism = readPrismHabits(given);
  if ('error' in prism) return usageError(prism.error);
  const { argv } = prism;
  if (argv[0] === 'replay') return runReplayCommand(argv.slice(1));
  // Loaded only when asked for: the mock's own start-up pays nothing for the proxy.
  if (argv[0] === 'proxy') return (await import('./proxy-command.js')).runProxyCommand(argv.slice(1));
  const line = readCommandLine(argv, prism);
  if (typeof line === 'number') return line;
  const logger = createConsoleLogger({ verbose: line.values.verbose, quiet: line.values.quiet });
  for (const note of prism.notes) logger.info(note);
  let fileConfig: MockConfig | undefined;
  let started: StartedMock;
  try {
    fileConfig = line.values.config ? await readConfigFile(line.values.config) : undefined;
    const upstream = line.values.proxy ?? fileConfig?.proxy;
    if (upstream !== undefined) return await runAsProxy(line, upstream, fileConfig, logger);
    started = await startMock(line, fileConfig, logger);
  } catch (error) {
    return usageError((error as Error).message);
  }
  try {
    await started.mock.app.ready;
  } catch (error) {
    await started.mock.close().catch(() => undefined);
    return usageError((error as Error).message);
  }
  return serveUntilEnd(line, started, logger);
}

/**
 * Reads the options (after Prism's habits are translated): the parser's and the table's problems,
 * --help and --version, the wrapped command and the spec. A number is the exit code of a run that ends here.
 */
function readCommandLine(argv: string[], prism: PrismHabits): MockCommandLine | number {
  const parsed = parseCommandLine(argv, mockOptions);
  if (parsed.error !== undefined) {
    // -h is --host, as in Prism; someone typing -h alone most likely wanted the help.
    const hint = /'-h, --host <value>' argument missing/.test(parsed.error)
      ? ' (-h is --host, as in Prism; --help shows the options)'
      : '';
    return parsed.usage ? usageError(`${parsed.error}${hint}`, helpHint) : usageError(parsed.error);
  }
  if (parsed.values.help) {
    process.stdout.write(mockHelp());
    return 0;
  }
  if (parsed.values.version) {
    process.stdout.write(`petstore-mock ${packageVersion()}\n`);
    return 0;
  }
  const command = commandAfterTerminator(parsed, argv);
  const unusableCommand = commandProblem(command);
  if (unusableCommand !== undefined) return usageError(unusableCommand);
  const positionals = parsed.positionals.slice(0, parsed.positionals.length - (command?.length ?? 0));
  const specPath = specPathGiven(positionals, parsed.values.spec as string | undefined);
  if (typeof specPath === 'object') return specPath.exit;
  // Before the spec is read: the audit then admits patterns RE2 cannot run, each match under a budget.
  if (parsed.values['unsafe-patterns']) allowUnsafePatterns();
  // With a command, $PORT is not read: a CI job's PORT is often another server's, and the command is told the address.
  const read = readOptionValues(mockOptions, parsed.values, {
    env: process.env,
    defaults: command === undefined ? {} : { port: defaultPort(command, '4010') },
  });
  if (read.error !== undefined) return usageError(read.error);
  return { values: read.values, specPath, command, prism };
}

/** The spec named by SPEC or --spec (one of them, a file); an object holds the exit code of a refusal. */
function specPathGiven(positionals: string[], flag: string | undefined): string | undefined | { exit: number } {
  if (positionals.length > 1)
    return {
      exit: usageError(`expected at most one spec file, got ${positionals.length}: ${positionals.join(' ')}`, helpHint),
    };
  if (positionals.length === 1 && flag !== undefined && positionals[0] !== flag)
    return { exit: usageError(`two specs given (${positionals[0]} and --spec ${flag}); give one`) };
  const specPath = positionals[0] ?? flag;
  // Prism fetches a document given by URL; the mock reads files only (a spec does not fetch at start).
  if (specPath !== undefined && /^https?:\/\//i.test(specPath))
    return {
      exit: usageError(
        `the spec must be a file, got the URL ${specPath}: download it first (curl -fsSLo openapi.yaml URL)`,
      ),
    };
  return specPath;
}

/** --proxy URL (or `proxy:` in the config): the judging proxy runs instead of the mock. */
async function runAsProxy(
  { values, specPath, command }: MockCommandLine,
  upstream: string,
  fileConfig: MockConfig | undefined,
  logger: Logger,
): Promise<number> {
  const { runProxy, faultsWithLatency } = await import('./proxy-command.js');
  const reports = reportsAsked(values.report, ['json', 'junit', 'markdown']);
  const reportProblem = await reportTargetsProblem(reports, [specPath, values.config, process.argv[1]]);
  if (reportProblem !== undefined) throw new Error(reportProblem);
  return await runProxy({
    faults: faultsWithLatency(fileConfig?.faults, values.latency),
    seed: values.seed,
    upstream,
    port: values.port,
    host: values.host,
    specPath,
    reports,
    failOn: values['fail-on'],
    // The controls answer the names the mock's would: the config's and --allowed-hosts.
    ...(values['allowed-hosts'] || fileConfig?.allowedHosts
      ? { allowedHosts: allowedHostsOption(values['allowed-hosts'] ?? [], fileConfig?.allowedHosts) }
      : {}),
    command,
    logger,
  });
}

/** Builds the config (the file's, Prism's habits, the options' over them), plans the scenarios and starts the server. */
async function startMock(
  line: MockCommandLine,
  fileConfig: MockConfig | undefined,
  logger: Logger,
): Promise<StartedMock> {
  const { values, specPath } = line;
  const config: Record<string, unknown> = {
    ...(fileConfig ?? {}),
    ...line.prism.config,
    ...optionsConfig(mockOptions, values, fileConfig),
  };
  const startScenario = await startingScenario(values, fileConfig, config);
  if (startScenario !== undefined) config.scenario = startScenario.scenario;
  const labReports = reportsAsked(values.report, ['json', 'junit']);
  // A report over the document, the config or a scenario would destroy it at shutdown: refused now.
  const labReportProblem = await reportTargetsProblem(labReports, [
    specPath,
    values.config,
    ...(values.scenario ?? []),
    process.argv[1],
  ]);
  if (labReportProblem !== undefined) throw new Error(labReportProblem);
  const mock = await startMockServer({
    port: values.port,
    host: values.host,
    specPath,
    allowRemoteRefs: values['allow-remote-refs'],
    allowRefsOutside: values['allow-refs-outside'],
    config,
    seed: values.seed,
    logger,
  });
  return { mock, startScenario, labReports };
}

/**
 * The scenario the default session starts from: the config's, then each --scenario file merged in
 * order, each planned against the config so a problem names the file it is in.
 */
async function startingScenario(
  values: MockCommandLine['values'],
  fileConfig: MockConfig | undefined,
  config: Record<string, unknown>,
): Promise<StartedMock['startScenario']> {
  if (values.scenario === undefined && fileConfig?.scenario === undefined) return undefined;
  const merged = parseMockConfig(config);
  // Planned here too, so a problem names the file it is in (the app would only say "scenario").
  if (fileConfig?.scenario !== undefined)
    prepareScenario(
      { config: merged, auth: createAuthenticator(merged) },
      fileConfig.scenario,
      `config ${values.config}: scenario`,
    );
  const scenarios = await readScenarioFiles(values.scenario ?? [], merged);
  const fromConfig = fileConfig?.scenario ? [fileConfig.scenario] : [];
  return {
    scenario: scenarios.length > 0 ? mergeScenarios([...fromConfig, ...scenarios]) : fileConfig!.scenario!,
    sources: [...(fileConfig?.scenario ? [`config ${values.config}`] : []), ...(values.scenario ?? [])],
  };
}

/** Prints the banner, starts --watch, and waits for a signal (or the wrapped command); then writes the lab report. */
async function serveUntilEnd(line: MockCommandLine, started: StartedMock, logger: Logger): Promise<number> {
  const { values, command } = line;
  const { mock } = started;
  // Signal handlers first: a supervisor (or a test) may send SIGTERM as soon as it reads the banner.
  const untilEnd = awaitEndOfRun(command);
  let watcher: FSWatcher | undefined;
  const finish = async () => {
    let exitCode = 0;
    watcher?.close();
    await mock
      .close(undefined, async () => {
        exitCode = await finishLab(mock.app, started.labReports, values['min-coverage'] ?? [], logger);
      })
      .catch((error: unknown) => {
        logger.error(`Failed to write the lab report: ${(error as Error).message}`);
        exitCode = 1;
      });
    return exitCode;
  };
  await printBanner(started, logger);
  if (values.watch)
    watcher = watchSpec(line.specPath ?? defaultSpecPath, mock.app, logger, {
      allowRemoteRefs: values['allow-remote-refs'] === true,
      allowRefsOutside: values['allow-refs-outside'],
    });
  logger.info(
    `State: ${mock.app.store.kind === 'redis' ? `Redis ${describeStoreUrl(mock.app.config.store?.url ?? '')} (shared by every replica on it)` : 'in memory'}; sessions: X-Mock-Session: <name>`,
  );
  logger.info(
    `Controls at ${mock.origin}/__mock (reset, clock, keys, scenario, requests, report, sessions); dashboard: ${mock.origin}/__mock/ui. ${howItStops(command)}`,
  );
  return untilEnd({ baseUrl: mock.baseUrl, logger, finish });
}

/** The banner's first lines: where the mock listens, its keys, the scenario applied, latency and faults. */
async function printBanner({ mock, startScenario }: StartedMock, logger: Logger): Promise<void> {
  logger.info(`Petstore mock (${mock.app.spec.title} ${mock.app.spec.version}) listening on ${mock.baseUrl}`);
  logger.info(credentialsLine(mock.app.spec));
  for (const entry of mock.app.startupKeys) {
    logger.info(
      `  ${entry.display.padEnd(18)} ${entry.plan.padEnd(11)} ${entry.limits.perMinute}/min, ${entry.limits.perDay}/day`,
    );
  }
  if (startScenario !== undefined) {
    try {
      for (const line of await scenarioBanner(mock.app, startScenario.scenario, startScenario.sources))
        logger.info(line);
    } catch (error) {
      logger.warn(`Failed to read back the scenario applied: ${(error as Error).message}`);
    }
  }
  const faults = mock.app.config.faults;
  if (faults !== undefined) logger.info(`Latency and faults: ${describeFaults(faults)} (GET /__mock/faults)`);
}

/** The reports --report asks for; a usage problem is thrown (and printed as one line). */
function reportsAsked(
  values: readonly string[] | undefined,
  formats: readonly ServerReportFormat[],
): ServerReportTarget[] {
  const targets = serverReportTargets(values, formats);
  if (typeof targets === 'string') throw new Error(targets);
  return targets;
}

/**
 * On shutdown: writes the lab report (--report, JUnit when the name ends in .xml) and applies the
 * --min-coverage gate (exit 1 when a listed situation was never served). The report is read after
 * the server stopped, so it holds every request that was answered.
 */
async function finishLab(
  app: MockApp,
  reports: readonly ServerReportTarget[],
  required: readonly SituationName[],
  logger: Logger,
): Promise<number> {
  if (reports.length === 0 && required.length === 0) return 0;
  const report = await app.controls.report();
  for (const target of reports) {
    await writeReportFile(
      target.path,
      target.format === 'junit'
        ? labReportJunit(report, { requiredSituations: required })
        : `${JSON.stringify(report, null, 2)}\n`,
    );
    logger.info(`Wrote the lab report to ${target.path}`);
  }
  const missing = missingCoverage(report, required);
  if (missing.length > 0) {
    logger.error(
      `--min-coverage: never served: ${missing.join(', ')} (${report.clients.length} client${report.clients.length === 1 ? '' : 's'} seen)`,
    );
    return 1;
  }
  return 0;
}

/**
 * Reads, validates and plans each `--scenario FILE` against the config (an unknown plan, a key the
 * mock does not know): any problem is one line naming the file and the field. Files are read as
 * configs are (bounded, UTF-8, never quoted).
 */
async function readScenarioFiles(
  paths: readonly string[],
  config: ReturnType<typeof parseMockConfig>,
): Promise<Scenario[]> {
  const auth = createAuthenticator(config);
  const scenarios: Scenario[] = [];
  for (const path of paths) {
    let text: string;
    try {
      text = await readYamlFileText(path, 'scenario');
    } catch (error) {
      throw new Error(`Failed to load scenario ${path}: ${(error as Error).message}`);
    }
    const scenario = parseScenario(text, `scenario ${path}`);
    prepareScenario({ config, auth }, scenario, `scenario ${path}`);
    scenarios.push(scenario);
  }
  return scenarios;
}

const helpHint = '\nRun petstore-mock --help for the options.';

/** One line of the CLI's own on stderr (and a hint line); whatever it quotes, a path or a spec's title, is escaped. */
function printError(message: string, hint = ''): void {
  // What a line quotes of the command line (a URL's `?token=`) is masked: a CI log is read by many.
  process.stderr.write(`petstore-mock: ${sanitiseForTerminal(maskCredentialPatterns(message))}${hint}\n`);
}

/** A usage problem: one line (and a hint line) on stderr, exit code 2. */
function usageError(message: string, hint = ''): number {
  printError(message, hint);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    printError((error as Error).message);
    process.exitCode = 1;
  },
);

#!/usr/bin/env node
import { type FSWatcher, readFileSync, watch } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { maskCredentialPatterns } from '../../spec/credential-masking.js';
import { allowUnsafePatterns } from '../../spec/linear-patterns.js';
import { defaultSpecPath, type LoadSpecOptions, readSpecFile } from '../../spec/load-spec.js';
import { parseArgsMessage, repeatedOption } from '../../spec/repeated-options.js';
import { writeReportFile } from '../../spec/report-file.js';
import { sanitiseForTerminal } from '../../spec/terminal-text.js';
import { describeFaults, parseLatency } from '../core/config/fault-config.js';
import { parseMockConfig } from '../core/config/mock-config.js';
import { describeScenarioPresets, mergeScenarios, parseScenario, type Scenario } from '../core/config/scenario-file.js';
import { prepareScenario } from '../core/controls/scenario.js';
import type { MockApp } from '../core/mock-app.js';
import { createAuthenticator } from '../core/pipeline/auth.js';
import type { Logger } from '../core/types.js';
import { missingCoverage, parseSituationList } from '../lab/coverage.js';
import { labReportJunit } from '../lab/lab-report.js';
import type { SituationName } from '../lab/lab-types.js';
import { readYamlFileText } from '../server/config-file.js';
import { createConsoleLogger } from '../server/console-logger.js';
import { readConfigFile, startMockServer } from '../server/start-server.js';
import { allowedHostsOption } from './allowed-hosts-option.js';
import { credentialsLine } from './credentials-banner.js';
import { readPrismHabits } from './prism-habits.js';
import type { FailOn } from './proxy-command.js';
import { runReplayCommand } from './replay-command.js';
import {
  reportTargetsProblem,
  type ServerReportFormat,
  type ServerReportTarget,
  serverReportTargets,
} from './report-option.js';
import { scenarioBanner } from './scenario-banner.js';
import { awaitEndOfRun, commandAfterTerminator, commandProblem, defaultPort, howItStops } from './wrapped-command.js';

const help = `petstore-mock: a stateful mock of the Petstore API (auth, validation, rate limits, bans).

Usage: petstore-mock [SPEC] [options]        (npm start -- [SPEC] [options])
       petstore-mock [SPEC] [options] -- COMMAND [ARGS]   run COMMAND (a test run) against the mock, then stop:
                           it gets PETSTORE_BASE_URL; the exit code is its own, or 1 when it passed and a
                           --min-coverage or --fail-on gate failed; the port is a free one unless --port says
       petstore-mock mock SPEC [options]    the same, as Prism says it; Prism's options are read too
                           (--errors, --cors, -m, --verboseLevel: docs/mock.md, From Prism)
       petstore-mock replay FILE [options]  replay a HAR or an exported log (petstore-mock replay --help)
       petstore-mock proxy URL [options]    judge real traffic to a server (petstore-mock proxy --help)

  SPEC                     OpenAPI document to serve, YAML or JSON: OpenAPI 3.1, 3.0 or Swagger 2.0 (read
                           as 3.1); $refs to other files are read relative to it (default: the kit's
                           own Petstore spec); --spec FILE says the same
      --allow-remote-refs  Also follow $refs to http(s) URLs (off: a spec does not fetch at start)
      --allow-refs-outside DIR  Also read $refs to files in DIR (repeatable; default: only the spec's folder)
      --unsafe-patterns    Serve patterns RE2 cannot run (lookaround, backreferences), each match under a
                           50 ms budget (a value that spends it is a 400); default: such a spec is refused

Options:
  -p, --port N             Port to listen on (default 4010, or $PORT; 0 picks a free port)
  -h, --host HOST          Address to bind (default 127.0.0.1)
      --seed N             Seed of the fake data; same seed, same data (default 1)
  -d, --dynamic            Draw generated data afresh for every answer (default: the same request answers
                           the same bytes, the document's examples first; Prefer: dynamic=true for one)
      --config FILE        YAML config: plans, keys, ban policy, limits (docs/configuration.md)
      --store URL          Keep the state in Redis (redis://HOST:PORT/DB) so several replicas share it;
                           needs npm install redis (default: in memory, one process)
      --memory-budget SIZE Memory for the state of every session in this process, e.g. 256MiB or 1GiB
                           (default 256MiB); past it the least recently used named session is forgotten
      --request-log-size N Requests each session's log keeps for GET /__mock/requests and its export
                           (default 500, at most 100000); the export says how many older ones it dropped
      --scenario FILE      Set up the default session before the first request: keys with budgets already
                           spent, bans, the clock (say past the sunset date), categories (YAML; docs/scenarios.md).
                           Repeatable: files are merged in order, after the config's scenario
      --latency RANGE      Every answer waits this long: 200ms, 1.5s or a range drawn from the seed, 50-300ms
                           (faults too: "faults:" in the config, Prefer: fault=KIND; docs/mock.md)
      --watch              Reload the spec when its file changes; keys, counters, bans and data are kept.
                           An edit that does not load keeps the previous spec serving
      --control-token TOKEN  Require X-Mock-Control-Token on /__mock/* controls
      --allow-remote-control Serve /__mock/* to non-loopback clients too
      --allowed-hosts NAME Also serve /__mock/* under Host NAME (repeatable; .NAME adds subdomains; all: any)
      --report FORMAT=FILE On shutdown, write the rate-limit lab's report of the default session (client
                           verdicts and coverage): json or junit (repeatable; a bare FILE is JUnit XML
                           when it ends in .xml, else JSON; with --proxy, markdown too)
      --proxy URL          Run as the judging proxy of URL instead of the mock (also "proxy:" in the config)
      --fail-on SIDE       With --proxy: exit 1 at shutdown when server, client or any side broke a rule
      --min-coverage LIST  On shutdown, exit 1 when a listed situation was never served
                           (401,400,429,ban,deprecated-call,window-reset), e.g. --min-coverage 429,401,400
      --verbose            Log every request (API keys masked)
      --quiet              Print nothing but errors
      --help               Show this help
  -v, --version            Print "petstore-mock <version>"

The API is served under /v1 (http://127.0.0.1:4010/v1). Controls, never rate limited:
  POST /__mock/reset                      back to the seeded state
  GET  /__mock/clock, POST /__mock/clock  read / advance the virtual clock {"advanceSeconds": 60}
  GET  /__mock/keys,  POST /__mock/keys   list / add keys {"key": "k", "plan": "pro"}
  GET  /__mock/requests                   recent requests (keys masked); ?format=jsonl exports them for replay
  GET  /__mock/report                     the lab's client verdicts and coverage; ?format=junit for CI
  GET  /__mock/ui                         the live dashboard (open it in a browser); its data: GET /__mock/dashboard
  GET  /__mock/health                     readiness
  GET  /__mock/sessions                   live sessions
Every request and control acts on the session named by "X-Mock-Session: NAME" (default: the default one):
isolated counters, bans, categories, clock, keys and log, for parallel CI jobs sharing one mock.
Per request: "Prefer: code=429" forces a declared status; "Prefer: example=NAME" picks an example.
  POST /__mock/scenario                   apply a scenario (YAML or JSON body) to the caller's session
  GET  /__mock/scenario/presets           the presets below

Scenario presets (presets: [NAME] in a scenario file):
${describeScenarioPresets()}
`;

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

const options = {
  port: { type: 'string', short: 'p' },
  host: { type: 'string', short: 'h' },
  spec: { type: 'string' },
  seed: { type: 'string' },
  dynamic: { type: 'boolean', short: 'd' },
  config: { type: 'string' },
  store: { type: 'string' },
  'memory-budget': { type: 'string' },
  'request-log-size': { type: 'string' },
  scenario: { type: 'string', multiple: true },
  latency: { type: 'string' },
  watch: { type: 'boolean' },
  'allow-remote-refs': { type: 'boolean' },
  'allow-refs-outside': { type: 'string', multiple: true },
  'unsafe-patterns': { type: 'boolean' },
  'control-token': { type: 'string' },
  'allow-remote-control': { type: 'boolean' },
  'allowed-hosts': { type: 'string', multiple: true },
  report: { type: 'string', multiple: true },
  'min-coverage': { type: 'string' },
  proxy: { type: 'string' },
  'fail-on': { type: 'string' },
  verbose: { type: 'boolean' },
  quiet: { type: 'boolean' },
  help: { type: 'boolean' },
  version: { type: 'boolean', short: 'v' },
} as const;

async function main(given: string[]): Promise<number> {
  const prism = readPrismHabits(given);
  if ('error' in prism) {
    printError(prism.error);
    return 2;
  }
  const { argv } = prism;
  if (argv[0] === 'replay') return runReplayCommand(argv.slice(1));
  // Loaded only when asked for: the mock's own start-up pays nothing for the proxy.
  if (argv[0] === 'proxy') return (await import('./proxy-command.js')).runProxyCommand(argv.slice(1));
  let values;
  let positionals: string[];
  let command: string[] | undefined;
  let repeated: string | undefined;
  try {
    const parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: true, tokens: true });
    ({ values } = parsed);
    repeated = repeatedOption(parsed.tokens, options);
    command = commandAfterTerminator(parsed, argv);
    positionals = parsed.positionals.slice(0, parsed.positionals.length - (command?.length ?? 0));
  } catch (error) {
    const message = parseArgsMessage((error as Error).message, options);
    // -h is --host, as in Prism; someone typing -h alone most likely wanted the help.
    const hint = /'-h, --host <value>' argument missing/.test(message)
      ? ' (-h is --host, as in Prism; --help shows the options)'
      : '';
    printError(`${message}${hint}`, '\nRun petstore-mock --help for the options.');
    return 2;
  }
  if (repeated !== undefined) {
    printError(repeated);
    return 2;
  }
  if (values.help) {
    process.stdout.write(help);
    return 0;
  }
  if (values.version) {
    process.stdout.write(`petstore-mock ${packageVersion()}\n`);
    return 0;
  }
  const unusableCommand = commandProblem(command);
  if (unusableCommand !== undefined) {
    printError(unusableCommand);
    return 2;
  }
  if (positionals.length > 1) {
    printError(
      `expected at most one spec file, got ${positionals.length}: ${positionals.join(' ')}`,
      '\nRun petstore-mock --help for the options.',
    );
    return 2;
  }
  if (positionals.length === 1 && values.spec !== undefined && positionals[0] !== values.spec) {
    printError(`two specs given (${positionals[0]} and --spec ${values.spec}); give one`);
    return 2;
  }
  const specPath = positionals[0] ?? values.spec;
  // Prism fetches a document given by URL; the mock reads files only (a spec does not fetch at start).
  if (specPath !== undefined && /^https?:\/\//i.test(specPath)) {
    printError(`the spec must be a file, got the URL ${specPath}: download it first (curl -fsSLo openapi.yaml URL)`);
    return 2;
  }
  // Before the spec is read: the audit then admits patterns RE2 cannot run, each match under a budget.
  if (values['unsafe-patterns']) allowUnsafePatterns();
  // With a command, $PORT is not read: a CI job's PORT is often another server's, and the command is told the address.
  const port = parseInteger(
    values.port ?? defaultPort(command, process.env.PORT?.trim() || '4010'),
    values.port === undefined && command === undefined && process.env.PORT?.trim() ? 'PORT' : '--port',
    0,
    65_535,
  );
  const seed = parseInteger(values.seed ?? '1', '--seed', 0, 2 ** 31 - 1);
  if (typeof port === 'string' || typeof seed === 'string') {
    printError(typeof port === 'string' ? port : (seed as string));
    return 2;
  }
  if (values.latency !== undefined) {
    try {
      parseLatency(values.latency);
    } catch (error) {
      printError(`--latency: ${(error as Error).message}`);
      return 2;
    }
  }
  const memoryBudget =
    values['memory-budget'] === undefined ? undefined : parseByteSize(values['memory-budget'], '--memory-budget');
  if (typeof memoryBudget === 'string') {
    printError(memoryBudget);
    return 2;
  }
  const requestLogSize =
    values['request-log-size'] === undefined
      ? undefined
      : parseInteger(values['request-log-size'], '--request-log-size', 1, 100_000);
  if (typeof requestLogSize === 'string') {
    printError(requestLogSize);
    return 2;
  }
  let requiredSituations: SituationName[] = [];
  if (values['min-coverage'] !== undefined) {
    try {
      requiredSituations = parseSituationList(values['min-coverage']);
    } catch (error) {
      printError((error as Error).message);
      return 2;
    }
  }
  const logger = createConsoleLogger({ verbose: values.verbose, quiet: values.quiet });
  for (const note of prism.notes) logger.info(note);

  let mock;
  // The scenario the default session starts from, and the files it came from, for the banner.
  let startScenario: { scenario: Scenario; sources: string[] } | undefined;
  let labReports: ServerReportTarget[] = [];
  try {
    const fileConfig = values.config ? await readConfigFile(values.config) : undefined;
    const upstream = values.proxy ?? fileConfig?.proxy;
    if (upstream !== undefined) {
      const failOn = values['fail-on'];
      if (failOn !== undefined && !['server', 'client', 'any'].includes(failOn))
        throw new Error(`--fail-on must be server, client or any, got "${failOn}"`);
      const { runProxy, faultsWithLatency } = await import('./proxy-command.js');
      const proxyReports = reportsAsked(values.report, ['json', 'junit', 'markdown']);
      const proxyReportProblem = await reportTargetsProblem(proxyReports, [specPath, values.config, process.argv[1]]);
      if (proxyReportProblem !== undefined) throw new Error(proxyReportProblem);
      return await runProxy({
        faults: faultsWithLatency(fileConfig?.faults, values.latency),
        seed,
        upstream,
        port,
        host: values.host ?? '127.0.0.1',
        specPath,
        reports: proxyReports,
        failOn: failOn as FailOn | undefined,
        // The controls answer the names the mock's would: the config's and --allowed-hosts.
        ...(values['allowed-hosts'] || fileConfig?.allowedHosts
          ? { allowedHosts: allowedHostsOption(values['allowed-hosts'] ?? [], fileConfig?.allowedHosts) }
          : {}),
        command,
        logger,
      });
    }
    const config = {
      ...(fileConfig ?? {}),
      ...prism.config,
      ...(values['control-token'] ? { controlToken: values['control-token'] } : {}),
      ...(values['allow-remote-control'] ? { allowRemoteControl: true } : {}),
      ...(values.dynamic ? { dynamic: true } : {}),
      ...(values['allowed-hosts']
        ? { allowedHosts: allowedHostsOption(values['allowed-hosts'], fileConfig?.allowedHosts) }
        : {}),
      // --store replaces the config's URL and keeps its other store settings (prefix, timeout).
      ...(values.store !== undefined ? { store: { ...fileConfig?.store, url: values.store } } : {}),
      ...(memoryBudget !== undefined ? { memoryBudgetBytes: memoryBudget } : {}),
      ...(requestLogSize !== undefined ? { requestLogSize } : {}),
      // --latency replaces the config's latency and keeps its fault rules.
      ...(values.latency !== undefined ? { faults: { ...fileConfig?.faults, latency: values.latency } } : {}),
    };
    if (values.scenario !== undefined || fileConfig?.scenario !== undefined) {
      const merged = parseMockConfig({ ...(fileConfig ?? {}), ...config });
      // Planned here too, so a problem names the file it is in (the app would only say "scenario").
      if (fileConfig?.scenario !== undefined)
        prepareScenario(
          { config: merged, auth: createAuthenticator(merged) },
          fileConfig.scenario,
          `config ${values.config}: scenario`,
        );
      const scenarios = await readScenarioFiles(values.scenario ?? [], merged);
      if (scenarios.length > 0)
        Object.assign(config, {
          scenario: mergeScenarios([...(fileConfig?.scenario ? [fileConfig.scenario] : []), ...scenarios]),
        });
      startScenario = {
        scenario: (config as { scenario?: Scenario }).scenario ?? fileConfig!.scenario!,
        sources: [...(fileConfig?.scenario ? [`config ${values.config}`] : []), ...(values.scenario ?? [])],
      };
    }
    labReports = reportsAsked(values.report, ['json', 'junit']);
    // A report over the document, the config or a scenario would destroy it at shutdown: refused now.
    const labReportProblem = await reportTargetsProblem(labReports, [
      specPath,
      values.config,
      ...(values.scenario ?? []),
      process.argv[1],
    ]);
    if (labReportProblem !== undefined) throw new Error(labReportProblem);
    mock = await startMockServer({
      port,
      host: values.host ?? '127.0.0.1',
      specPath,
      allowRemoteRefs: values['allow-remote-refs'],
      allowRefsOutside: values['allow-refs-outside'],
      config: fileConfig ? { ...fileConfig, ...config } : config,
      seed,
      logger,
    });
  } catch (error) {
    printError((error as Error).message);
    return 2;
  }
  try {
    await mock.app.ready;
  } catch (error) {
    await mock.close().catch(() => undefined);
    printError((error as Error).message);
    return 2;
  }

  // Signal handlers first: a supervisor (or a test) may send SIGTERM as soon as it reads the banner.
  const untilEnd = awaitEndOfRun(command);
  let watcher: FSWatcher | undefined;
  const finish = async () => {
    let exitCode = 0;
    watcher?.close();
    await mock
      .close(undefined, async () => {
        exitCode = await finishLab(mock.app, labReports, requiredSituations, logger);
      })
      .catch((error: unknown) => {
        logger.error(`Failed to write the lab report: ${(error as Error).message}`);
        exitCode = 1;
      });
    return exitCode;
  };

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
  if (values.watch)
    watcher = watchSpec(specPath ?? defaultSpecPath, mock.app, logger, {
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

/** A store URL without its password, for the banner. */
function describeStoreUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'redis';
  }
}

/**
 * --watch: reloads the spec into the running app when its file changes. The folder is watched,
 * not the file, because editors save by writing a new file and renaming it over the old one (a
 * watch on the old file would go quiet). Changes are debounced: one save is often several events.
 * A spec that fails to load or compile leaves the previous one serving, with one line saying why.
 */
function watchSpec(path: string, app: MockApp, logger: Logger, reading: LoadSpecOptions): FSWatcher {
  const file = resolve(path);
  const name = basename(file);
  let timer: NodeJS.Timeout | undefined;
  let reloading = Promise.resolve();
  const reload = async () => {
    try {
      app.replaceSpec(await readSpecFile(file, reading));
      logger.info(
        `Reloaded ${path}: ${app.spec.title} ${app.spec.version}, ${app.spec.operations.length} operations under ${app.basePath}; state kept`,
      );
    } catch (error) {
      logger.error(`${(error as Error).message.split('\n')[0]}; still serving the previous spec`);
    }
  };
  const watcher = watch(dirname(file), (_event, changed) => {
    if (changed !== null && changed !== name) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      reloading = reloading.then(reload);
    }, 100);
  });
  watcher.on('error', (error) => logger.error(`Failed to watch ${path}: ${error.message}; --watch is off`));
  logger.info(`Watching ${path} for changes`);
  return watcher;
}

function parseInteger(text: string, flag: string, min: number, max: number): number | string {
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max)
    return `${flag} must be an integer from ${min} to ${max}, got "${text}"`;
  return Number(text);
}

const byteUnits: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gib: 1024 ** 3,
};

/** A size in bytes: a whole number, optionally with a binary unit (KiB, MiB, GiB; K, M, G say the same). */
function parseByteSize(text: string, flag: string): number | string {
  const match = /^(\d{1,15})\s*([a-z]*)$/i.exec(text.trim());
  const unit = match === null ? undefined : byteUnits[match[2]!.toLowerCase()];
  if (match === null || unit === undefined)
    return `${flag} must be a size such as 268435456, 256MiB or 1GiB, got "${text}"`;
  return Number(match[1]) * unit;
}

/** One line of the CLI's own on stderr (and a hint line); whatever it quotes, a path or a spec's title, is escaped. */
function printError(message: string, hint = ''): void {
  // What a line quotes of the command line (a URL's `?token=`) is masked: a CI log is read by many.
  process.stderr.write(`petstore-mock: ${sanitiseForTerminal(maskCredentialPatterns(message))}${hint}\n`);
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

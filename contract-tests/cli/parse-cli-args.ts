import { type ParseArgsConfig, parseArgs } from 'node:util';
import { repeatedOption } from '../../spec/repeated-options.js';
import { profiles } from '../lib/run-profile.js';
import { reportFormatNames, reportFormats } from '../report/report-formats.js';
import { type ContractOptions, defaults } from '../runner/contract-options.js';
import { ContractRunError } from '../runner/contract-run-error.js';
import { type ReportTarget, reportTargets } from './report-targets.js';

/** What the command line asks for. */
export type CliCommand =
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'run'; options: ContractOptions; reports: ReportTarget[] };

export const helpText = `petstore-contract: check that a server conforms to the Petstore service interface, rule by rule.

Usage: petstore-contract --base-url URL --api-key KEY [options]
       npm run contract -- --base-url URL --api-key KEY [options]

Target:
  --base-url URL          Base URL including the version prefix, e.g. https://staging.example.com/v1
                          (env PETSTORE_BASE_URL)
  --api-key KEY           Key used by the checks (env PETSTORE_API_KEY)
  --rate-limit-key KEY    A second key the 429 checks may exhaust: the kit reads its
                          X-RateLimit-Remaining, sends exactly one request more, expects 429 with
                          Retry-After, then never uses it again (env PETSTORE_RATE_LIMIT_KEY).
                          Without it the 429 checks are skipped.

Document:
  --spec FILE             The OpenAPI document (3.1, 3.0 or Swagger 2.0; YAML or JSON) the checks
                          derive from (default: the Petstore interface shipped with the kit). Every
                          operation gets the generic layer: credentials refused (401), a valid
                          request answered as declared, invalid requests answered 4xx. On a
                          document that is not the Petstore interface, its rule checks do not run.
  --allow-refs-outside DIR  Also read the document's $refs to files in DIR (repeatable; default:
                          only the document's folder and below)
  --unsafe-patterns       Judge with patterns RE2 cannot run (lookaround, backreferences), each
                          match under a 50 ms budget; default: such a document is refused
  --allow-destructive     Let the generic layer send PUT, PATCH, DELETE and POST to a resource
                          path to resources this run did not create (a throwaway server only);
                          without it they go only to what the run created, or are skipped
  --invalid-cases N       Most invalid requests per operation of the generic layer (default ${defaults.invalidCases})
  --operation ID          Check only this operation in the generic layer (repeatable): its
                          operationId, or 'METHOD /path' as the document writes it

Behaviour:
  --read-only             Send no POST, so nothing can be created; creation and validation
                          checks are reported SKIP
  --max-requests N        Most requests the 429 check may send (default ${defaults.maxRequests})
  --max-wait SECONDS      Most time the run may wait, in total, for rate-limit windows to reset
                          before reporting the remaining checks inconclusive (default ${defaults.maxWaitSeconds})
  --window-wait SECONDS   Most time the run may also wait on purpose, to see a rate-limit window
                          roll over and a Retry-After honoured; checks that need more say
                          INCONCLUSIVE for their cell only (default ${defaults.windowWaitSeconds})
  --timeout SECONDS       Time allowed per request (default ${defaults.timeoutSeconds})
  --concurrency N         Requests in flight at once (default ${defaults.concurrency})
  --strict                Failures of operations marked x-stability experimental/beta fail the
                          run (otherwise they are warnings)
  --via-prism             Route the checks through Prism's validating proxy
                          (prism proxy spec/petstore.openapi.yaml URL) and report its violations
  --seed N                Seed of every random pick (generated values, fast-check); printed at
                          the start of each run, the same seed repeats its picks (default: fresh)
  --thorough              The nightly profile: waits windows out (--window-wait 480), sends every
                          variant of every generated class, a 600 s --deadline; options given
                          explicitly win. Without it, cells that need time are INCONCLUSIVE and
                          listed at the end with the flag that would check them
  --exhaust-main-key      With --thorough: the main key may be spent into its 429
  -H, --header 'N: V'     Add a header to every request (repeatable), e.g. a gateway's tenant
                          header; never overrides a header a check sets. Values of credential-like
                          names (Authorization, Cookie, *Key*, *Token*, *Session*) are masked.
  --deadline SECONDS      Whole-run deadline; checks not finished by then are INCONCLUSIVE and
                          the report is still written (default ${defaults.deadlineSeconds})
  --max-body-bytes N      Read at most N bytes of a response body, discard the rest; the check
                          says so (default ${defaults.maxBodyBytes})
  --create-budget N       Most categories the whole run may create (there is no delete): each check
                          its share, "list shows all" what is left to cross page sizes; what it
                          cannot afford is INCONCLUSIVE (default ${defaults.createBudget}, with
                          --thorough ${profiles.thorough.createBudget})
  --fail-on-skip          A SKIP fails the run (exit 1): proof, not silence

Report (one run writes every report asked for, from the same results):
  --report FORMAT=FILE    Write the report in FORMAT to FILE; FORMAT=- writes it to stdout (one
                          report at most). Repeatable: --report junit=contract.xml
                          --report sarif=contract.sarif --report markdown=-. FORMAT is one of:
${reportFormatNames.map((name) => `                            ${name.padEnd(9)} ${reportFormats[name].purpose}`).join('\n')}
  --reporter NAME         The short form of one report: NAME to stdout, or to --output FILE
  --output FILE           Write the --reporter report (default human) to FILE (- is stdout)
                          With every report in a file, stdout gets the verdict line and where each went.
  --help                  Show this help
  -v, --version           Print "petstore-contract <version>"

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

/** The flags, for node:util's parseArgs (values are checked after parsing, with messages of our own). */
export const cliOptions = {
  'base-url': { type: 'string' },
  'api-key': { type: 'string' },
  'rate-limit-key': { type: 'string' },
  'read-only': { type: 'boolean' },
  'max-requests': { type: 'string' },
  'max-wait': { type: 'string' },
  'window-wait': { type: 'string' },
  reporter: { type: 'string' },
  output: { type: 'string' },
  report: { type: 'string', multiple: true },
  timeout: { type: 'string' },
  concurrency: { type: 'string' },
  strict: { type: 'boolean' },
  'via-prism': { type: 'boolean' },
  seed: { type: 'string' },
  thorough: { type: 'boolean' },
  'exhaust-main-key': { type: 'boolean' },
  header: { type: 'string', short: 'H', multiple: true },
  deadline: { type: 'string' },
  'max-body-bytes': { type: 'string' },
  'create-budget': { type: 'string' },
  'fail-on-skip': { type: 'boolean' },
  spec: { type: 'string' },
  'allow-refs-outside': { type: 'string', multiple: true },
  'unsafe-patterns': { type: 'boolean' },
  'allow-destructive': { type: 'boolean' },
  'invalid-cases': { type: 'string' },
  operation: { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const satisfies ParseArgsConfig['options'];

/**
 * Turns argv (and the PETSTORE_* environment variables as fallbacks) into a command. Throws
 * `ContractRunError('usage', ...)` naming the bad flag.
 *
 * @example parseCliArgs(['--base-url', 'http://127.0.0.1:4010/v1', '--api-key', 'demo-pro'], {})
 * // { kind: 'run', options: { baseUrl: 'http://127.0.0.1:4010/v1', apiKey: 'demo-pro', ... }, reports: [{ format: 'human', path: undefined }] }
 */
export function parseCliArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): CliCommand {
  let values;
  let repeated: string | undefined;
  try {
    const parsed = parseArgs({
      args: [...argv],
      options: cliOptions,
      strict: true,
      allowPositionals: false,
      tokens: true,
    });
    ({ values } = parsed);
    repeated = repeatedOption(parsed.tokens, cliOptions);
  } catch (error) {
    throw new ContractRunError(
      'usage',
      `Failed to read the command line: ${describeParseError(error as Error & { code?: string })}`,
    );
  }

  if (repeated !== undefined) throw new ContractRunError('usage', `Failed to read the command line: ${repeated}`);
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };

  const reports = reportTargets(values);
  const baseUrl = values['base-url'] ?? nonEmpty(env.PETSTORE_BASE_URL);
  const apiKey = values['api-key'] ?? nonEmpty(env.PETSTORE_API_KEY);
  const rateLimitKey = values['rate-limit-key'] ?? nonEmpty(env.PETSTORE_RATE_LIMIT_KEY);
  if (baseUrl === undefined)
    throw new ContractRunError('usage', 'Failed to start: --base-url is required (or set PETSTORE_BASE_URL)');
  if (apiKey === undefined)
    throw new ContractRunError('usage', 'Failed to start: --api-key is required (or set PETSTORE_API_KEY)');
  const options: ContractOptions = {
    baseUrl,
    apiKey,
    ...(rateLimitKey === undefined ? {} : { rateLimitKey }),
    readOnly: values['read-only'] ?? false,
    strict: values.strict ?? false,
    viaPrism: values['via-prism'] ?? false,
    ...optionalNumber(values['max-requests'], 'maxRequests', '--max-requests', 'integer'),
    ...optionalNumber(values['max-wait'], 'maxWaitSeconds', '--max-wait', 'seconds'),
    ...optionalNumber(values['window-wait'], 'windowWaitSeconds', '--window-wait', 'seconds'),
    ...optionalNumber(values.timeout, 'timeoutSeconds', '--timeout', 'seconds'),
    ...optionalNumber(values.concurrency, 'concurrency', '--concurrency', 'integer'),
    ...optionalNumber(values.seed, 'seed', '--seed', 'integer'),
    ...optionalNumber(values.deadline, 'deadlineSeconds', '--deadline', 'seconds'),
    ...optionalNumber(values['max-body-bytes'], 'maxBodyBytes', '--max-body-bytes', 'integer'),
    ...optionalNumber(values['create-budget'], 'createBudget', '--create-budget', 'integer'),
    ...(values.header === undefined ? {} : { headers: values.header }),
    failOnSkip: values['fail-on-skip'] ?? false,
    ...(values.spec === undefined ? {} : { specPath: values.spec }),
    ...(values['allow-refs-outside'] === undefined ? {} : { allowRefsOutside: values['allow-refs-outside'] }),
    ...(values['unsafe-patterns'] === true ? { unsafePatterns: true } : {}),
    ...(values['allow-destructive'] === true ? { allowDestructive: true } : {}),
    ...(values.thorough === true ? { thorough: true } : {}),
    ...(values['exhaust-main-key'] === true ? { exhaustMainKey: true } : {}),
    ...(values.operation === undefined ? {} : { operations: values.operation }),
    ...optionalNumber(values['invalid-cases'], 'invalidCases', '--invalid-cases', 'integer'),
  };
  if (values.spec === '') throw new ContractRunError('usage', 'Failed to use --spec: the file name is empty');
  return { kind: 'run', options, reports };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

function optionalNumber<K extends keyof ContractOptions>(
  text: string | undefined,
  key: K,
  flag: string,
  kind: 'integer' | 'seconds',
): Partial<Record<K, number>> {
  if (text === undefined) return {};
  const pattern = kind === 'integer' ? /^-?\d+$/ : /^\d+(\.\d+)?$/;
  if (!pattern.test(text.trim())) {
    throw new ContractRunError(
      'usage',
      `Failed to use ${flag}: ${JSON.stringify(text)} is not ${kind === 'integer' ? 'an integer' : 'a number of seconds'}`,
    );
  }
  return { [key]: Number(text) } as Partial<Record<K, number>>;
}

/**
 * node:util's parseArgs messages as one line in the kit's words: the multi-line "ambiguous"
 * hint and the positional-argument advice do not fit a one-line error, and a near miss of an
 * option name gets a suggestion.
 */
function describeParseError(error: Error & { code?: string }): string {
  const option = /'(-{1,2}[^' =]+)/.exec(error.message)?.[1];
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      const suggestion = option === undefined ? undefined : closestOption(option);
      return `unknown option ${option ?? error.message}${suggestion === undefined ? '' : ` (did you mean ${suggestion}?)`}`;
    }
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument ${JSON.stringify(/'([^']*)'/.exec(error.message)?.[1] ?? '')}: every value follows its option (--base-url URL), and a value with spaces needs quotes`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (/does not take an argument/.test(error.message)) return `${option} takes no value`;
      if (/ambiguous/.test(error.message))
        return `${option} needs a value; a value starting with "-" is written ${option}=-VALUE`;
      return `${option} needs a value`;
    default:
      return error.message.split('\n')[0]!;
  }
}

/** The option a mistyped one most likely meant (edit distance up to 2, or a unique prefix). */
function closestOption(typed: string): string | undefined {
  const names = Object.keys(cliOptions).map((name) => `--${name}`);
  const word = typed.replace(/^-+/, '');
  const prefixed = names.filter((name) => word.length >= 3 && name.slice(2).startsWith(word));
  if (prefixed.length === 1) return prefixed[0];
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = editDistance(word, name.slice(2));
    if (distance <= 2 && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1)
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}

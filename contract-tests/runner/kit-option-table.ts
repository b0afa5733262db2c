import { profileDefaults } from '../lib/run-profile.js';
import { reportFormatNames, reportFormats } from '../report/report-formats.js';
import type { ContractOptions } from './contract-options-api.js';
import { behaviourOptions } from './kit-behaviour-options.js';
import type { KitOption } from './kit-option.js';

/** The rows of --help's "Target" section: the server and its keys. */
const targetOptions: readonly KitOption[] = [
  {
    name: 'base-url',
    type: 'text',
    value: 'URL',
    key: 'baseUrl',
    env: 'PETSTORE_BASE_URL',
    required: true,
    section: 'Target',
    help: ['Base URL including the version prefix, e.g. https://staging.example.com/v1', '{env}'],
  },
  {
    name: 'api-key',
    type: 'text',
    value: 'KEY',
    key: 'apiKey',
    env: 'PETSTORE_API_KEY',
    required: true,
    section: 'Target',
    help: ['Key used by the checks {env}'],
  },
  {
    name: 'rate-limit-key',
    type: 'text',
    value: 'KEY',
    key: 'rateLimitKey',
    env: 'PETSTORE_RATE_LIMIT_KEY',
    section: 'Target',
    help: [
      'A second key the 429 checks may exhaust: the kit reads its',
      'X-RateLimit-Remaining, sends exactly one request more, expects 429 with',
      'Retry-After, then never uses it again {env}.',
      'Without it the 429 checks are skipped.',
    ],
  },
];

/** The rows of --help's "Document" section: the document the checks derive from, and its generic layer. */
const documentOptions: readonly KitOption[] = [
  {
    name: 'spec',
    type: 'text',
    value: 'FILE',
    key: 'specPath',
    problem: (file) => (file === '' ? 'the file name is empty' : undefined),
    section: 'Document',
    help: [
      'The OpenAPI document (3.1, 3.0 or Swagger 2.0; YAML or JSON) the checks',
      'derive from (default: the Petstore interface shipped with the kit). Every',
      'operation gets the generic layer: credentials refused (401), a valid',
      'request answered as declared, invalid requests answered 4xx. On a',
      'document that is not the Petstore interface, its rule checks do not run.',
    ],
  },
  {
    name: 'allow-refs-outside',
    type: 'texts',
    value: 'DIR',
    key: 'allowRefsOutside',
    section: 'Document',
    help: [
      "Also read the document's $refs to files in DIR (repeatable; default:",
      "only the document's folder and below)",
    ],
  },
  {
    name: 'unsafe-patterns',
    type: 'flag',
    key: 'unsafePatterns',
    section: 'Document',
    help: [
      'Judge with patterns RE2 cannot run (lookaround, backreferences), each',
      'match under a 50 ms budget; default: such a document is refused',
    ],
  },
  {
    name: 'allow-destructive',
    type: 'flag',
    key: 'allowDestructive',
    section: 'Document',
    help: [
      'Let the generic layer send PUT, PATCH, DELETE and POST to a resource',
      'path to resources this run did not create (a throwaway server only);',
      'without it they go only to what the run created, or are skipped',
    ],
  },
  {
    name: 'invalid-cases',
    type: 'integer',
    value: 'N',
    key: 'invalidCases',
    default: 6,
    range: [0, 1_000],
    section: 'Document',
    help: ['Most invalid requests per operation of the generic layer (default {default})'],
  },
  {
    name: 'operation',
    type: 'texts',
    value: 'ID',
    key: 'operations',
    section: 'Document',
    help: [
      'Check only this operation in the generic layer (repeatable): its',
      "operationId, or 'METHOD /path' as the document writes it",
    ],
  },
];

/**
 * The rows the command line reads itself, with no `ContractOptions` key: which reports to write
 * (cli/report-targets.ts), --help and --version.
 */
const reportOptions: readonly KitOption[] = [
  {
    name: 'report',
    type: 'texts',
    value: 'FORMAT=FILE',
    section: 'Report',
    help: [
      'Write the report in FORMAT to FILE; FORMAT=- writes it to stdout (one',
      'report at most). Repeatable: --report junit=contract.xml',
      '--report sarif=contract.sarif --report markdown=-. FORMAT is one of:',
      ...reportFormatNames.map((name) => `  ${name.padEnd(9)} ${reportFormats[name].purpose}`),
    ],
  },
  {
    name: 'reporter',
    type: 'text',
    value: 'NAME',
    section: 'Report',
    help: ['The short form of one report: NAME to stdout, or to --output FILE'],
  },
  {
    name: 'output',
    type: 'text',
    value: 'FILE',
    section: 'Report',
    help: [
      'Write the --reporter report (default human) to FILE (- is stdout)',
      'With every report in a file, stdout gets the verdict line and where each went.',
    ],
  },
];

/** --help and --version, the last lines of its "Report" section. */
const commandOptions: readonly KitOption[] = [
  { name: 'help', short: 'h', shortHidden: true, type: 'flag', section: 'Report', help: ['Show this help'] },
  { name: 'version', short: 'v', type: 'flag', section: 'Report', help: ['Print "petstore-contract <version>"'] },
];

/**
 * Every option of `petstore-contract`. --help shows them by section, each section in this order;
 * the order also decides which of two equally near options a mistyped one is said to mean, and
 * which of two bad numbers is named first.
 */
export const kitOptions: readonly KitOption[] = [
  ...targetOptions,
  ...behaviourOptions,
  ...reportOptions,
  ...documentOptions,
  ...commandOptions,
];

/**
 * The row of a `ContractOptions` key, for the code that names its flag in a message.
 *
 * @example kitOption('maxBodyBytes').name // 'max-body-bytes'
 */
export function kitOption(key: keyof ContractOptions): KitOption {
  const row = kitOptions.find((option) => option.key === key);
  if (row === undefined) throw new Error(`no option sets ${key}`);
  return row;
}

/**
 * A number's default in a run of this profile; undefined for the seed (fresh each run) and options
 * that are no number.
 *
 * @example numberDefault(kitOption('createBudget'), true) // 440
 */
export function numberDefault(row: KitOption, thorough: boolean): number | undefined {
  if (typeof row.default === 'number') return row.default;
  if (row.default !== 'profile') return undefined;
  const profile: Readonly<Record<string, number>> = profileDefaults(thorough);
  const value = profile[row.key!];
  if (value === undefined) throw new Error(`the profiles set no ${row.key} for --${row.name}`);
  return value;
}

/**
 * The line for a required option neither the flag nor its variable gives.
 *
 * @example missingMessage(kitOption('apiKey')) // 'Failed to start: --api-key is required (or set PETSTORE_API_KEY)'
 */
export function missingMessage(row: KitOption): string {
  return `Failed to start: --${row.name} is required${row.env === undefined ? '' : ` (or set ${row.env})`}`;
}

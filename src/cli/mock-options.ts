/**
 * `petstore-mock`'s options, each declared once (decision 048): the parser, the help's option lines,
 * the reading of each value and what it sets in the config are all made from this table.
 */

import { parseLatency } from '../core/config/fault-config.js';
import type { MockConfig } from '../core/config/mock-config.js';
import { describeScenarioPresets } from '../core/config/scenario-file.js';
import { parseSituationList } from '../lab/coverage.js';
import { allowedHostsOption } from './allowed-hosts-option.js';
import { byteSizeOption, choiceOption, helpLines, integerOption, type OptionRow } from './option-table.js';

/** A row's `config` is handed the config file's settings (undefined without --config). */
type FileConfig = MockConfig | undefined;

export const mockOptions = {
  spec: { type: 'string', section: 'none', help: [] },
  'allow-remote-refs': {
    type: 'boolean',
    section: 'spec',
    help: ['Also follow $refs to http(s) URLs (off: a spec does not fetch at start)'],
  },
  'allow-refs-outside': {
    type: 'string',
    multiple: true,
    value: 'DIR',
    section: 'spec',
    help: ["Also read $refs to files in DIR (repeatable; default: only the spec's folder)"],
  },
  'unsafe-patterns': {
    type: 'boolean',
    section: 'spec',
    help: [
      'Serve patterns RE2 cannot run (lookaround, backreferences), each match under a',
      '50 ms budget (a value that spends it is a 400); default: such a spec is refused',
    ],
  },
  port: {
    type: 'string',
    short: 'p',
    value: 'N',
    default: '4010',
    env: 'PORT',
    parse: integerOption(0, 65_535),
    help: ['Port to listen on (default 4010, or $PORT; 0 picks a free port)'],
  },
  host: {
    type: 'string',
    short: 'h',
    value: 'HOST',
    default: '127.0.0.1',
    help: ['Address to bind (default 127.0.0.1)'],
  },
  seed: {
    type: 'string',
    value: 'N',
    default: '1',
    parse: integerOption(0, 2 ** 31 - 1),
    help: ['Seed of the fake data; same seed, same data (default 1)'],
  },
  dynamic: {
    type: 'boolean',
    short: 'd',
    config: () => ({ dynamic: true }),
    help: [
      'Draw generated data afresh for every answer (default: the same request answers',
      "the same bytes, the document's examples first; Prefer: dynamic=true for one)",
    ],
  },
  config: {
    type: 'string',
    value: 'FILE',
    help: ['YAML config: plans, keys, ban policy, limits (docs/configuration.md)'],
  },
  store: {
    type: 'string',
    value: 'URL',
    // --store replaces the config's URL and keeps its other store settings (prefix, timeout).
    config: (url: string, file: FileConfig) => ({ store: { ...file?.store, url } }),
    help: [
      'Keep the state in Redis (redis://HOST:PORT/DB) so several replicas share it;',
      'needs npm install redis (default: in memory, one process)',
    ],
  },
  'memory-budget': {
    type: 'string',
    value: 'SIZE',
    parse: byteSizeOption,
    config: (memoryBudgetBytes: number) => ({ memoryBudgetBytes }),
    help: [
      'Memory for the state of every session in this process, e.g. 256MiB or 1GiB',
      '(default 256MiB); past it the least recently used named session is forgotten',
    ],
  },
  'request-log-size': {
    type: 'string',
    value: 'N',
    parse: integerOption(1, 100_000),
    config: (requestLogSize: number) => ({ requestLogSize }),
    help: [
      "Requests each session's log keeps for GET /__mock/requests and its export",
      '(default 500, at most 100000); the export says how many older ones it dropped',
    ],
  },
  scenario: {
    type: 'string',
    multiple: true,
    value: 'FILE',
    help: [
      'Set up the default session before the first request: keys with budgets already',
      'spent, bans, the clock (say past the sunset date), categories (YAML; docs/scenarios.md).',
      "Repeatable: files are merged in order, after the config's scenario",
    ],
  },
  latency: {
    type: 'string',
    value: 'RANGE',
    parse: (text: string, flag: string) => {
      try {
        parseLatency(text);
      } catch (error) {
        throw new Error(`${flag}: ${(error as Error).message}`);
      }
      return text;
    },
    // --latency replaces the config's latency and keeps its fault rules.
    config: (latency: string, file: FileConfig) => ({ faults: { ...file?.faults, latency } }),
    help: [
      'Every answer waits this long: 200ms, 1.5s or a range drawn from the seed, 50-300ms',
      '(faults too: "faults:" in the config, Prefer: fault=KIND; docs/mock.md)',
    ],
  },
  watch: {
    type: 'boolean',
    help: [
      'Reload the spec when its file changes; keys, counters, bans and data are kept.',
      'An edit that does not load keeps the previous spec serving',
    ],
  },
  'control-token': {
    type: 'string',
    value: 'TOKEN',
    config: (controlToken: string) => (controlToken ? { controlToken } : {}),
    help: ['Require X-Mock-Control-Token on /__mock/* controls'],
  },
  'allow-remote-control': {
    type: 'boolean',
    config: () => ({ allowRemoteControl: true }),
    help: ['Serve /__mock/* to non-loopback clients too'],
  },
  'allowed-hosts': {
    type: 'string',
    multiple: true,
    value: 'NAME',
    config: (names: string[], file: FileConfig) => ({ allowedHosts: allowedHostsOption(names, file?.allowedHosts) }),
    help: ['Also serve /__mock/* under Host NAME (repeatable; .NAME adds subdomains; all: any)'],
  },
  report: {
    type: 'string',
    multiple: true,
    value: 'FORMAT=FILE',
    help: [
      "On shutdown, write the rate-limit lab's report of the default session (client",
      'verdicts and coverage): json or junit (repeatable; a bare FILE is JUnit XML',
      'when it ends in .xml, else JSON; with --proxy, markdown too)',
    ],
  },
  proxy: {
    type: 'string',
    value: 'URL',
    help: ['Run as the judging proxy of URL instead of the mock (also "proxy:" in the config)'],
  },
  'fail-on': {
    type: 'string',
    value: 'SIDE',
    parse: choiceOption(['server', 'client', 'any']),
    help: ['With --proxy: exit 1 at shutdown when server, client or any side broke a rule'],
  },
  'min-coverage': {
    type: 'string',
    value: 'LIST',
    parse: parseSituationList,
    help: [
      'On shutdown, exit 1 when a listed situation was never served',
      '(401,400,429,ban,deprecated-call,window-reset), e.g. --min-coverage 429,401,400',
    ],
  },
  verbose: { type: 'boolean', help: ['Log every request (API keys masked)'] },
  quiet: { type: 'boolean', help: ['Print nothing but errors'] },
  help: { type: 'boolean', help: ['Show this help'] },
  version: { type: 'boolean', short: 'v', help: ['Print "petstore-mock <version>"'] },
} as const satisfies Record<string, OptionRow>;

/** `petstore-mock --help`: the prose around the table's lines. */
export function mockHelp(): string {
  return `petstore-mock: a stateful mock of the Petstore API (auth, validation, rate limits, bans).

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
${helpLines(mockOptions, 'spec', 27)}

Options:
${helpLines(mockOptions, 'options', 27)}

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
}

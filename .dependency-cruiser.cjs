// The import rules of the kit, checked by `test/architecture/import-rules.test.ts` (part of `npm test`)
// and by hand with `npx depcruise src mocks spec contract-tests`. docs/architecture.md draws the same
// picture; docs/decisions/018-pipeline-and-rooms.md says why.
//
// One line: spec -> src/core -> src/server | src/cli | mocks, and contract-tests -> spec + an HTTP
// client. What the mock, the kit and the judging proxy share lives below all three, in spec/: the
// interface's facts and its rule catalogue (spec/interface/, decision 033) and the terminal-text
// sanitiser (spec/terminal-text.ts). src/ and mocks/ import nothing of contract-tests/. Inside
// src/core each room may import only the rooms below it:
//
//   base files (types, errors, clock)
//   config   <- state <- wire <- pipeline <- controls <- mock-app.ts (the assembler)
//   config   <- spec (compiled spec, router, fake data)  <- pipeline
//
// Tests (`*.test.ts`) and test support may import anything; they are not cruised for these rules.

/** A rule: nothing in `from` imports anything in `to`. */
const forbid = (name, comment, from, to) => ({
  name,
  comment,
  severity: 'error',
  from: { path: from, pathNot: '\\.test\\.ts$' },
  to: { path: to },
});

const rooms = '(config|spec|state|wire|pipeline|controls)';

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment:
        'Imports never go in a circle, type-only imports included: a cycle is two modules that can only be understood together.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    forbid(
      'spec-is-the-bottom',
      'spec/ is read by the mock and the contract kit alike; it imports neither.',
      '^spec/',
      '^(src|mocks|contract-tests|test|bench)/',
    ),
    forbid(
      'contract-kit-tests-the-interface',
      'The contract suite knows the spec and an HTTP client, never the mock it may be pointed at.',
      '^contract-tests/',
      '^(src|mocks|test|bench)/',
    ),
    forbid(
      'core-knows-no-transport',
      'The core runs in Node and in a page: no server, CLI, MSW or Node module.',
      '^src/core/',
      '^(src/(server|cli)/|mocks/|test/|bench/)|^spec/load-spec\\.ts$',
    ),
    {
      ...forbid(
        'core-uses-no-node-module',
        'The core runs in Node and in a page (src/core/wire/utf8.ts feels for Buffer, it imports nothing).',
        '^src/core/',
        '',
      ),
      to: { dependencyTypes: ['core'] },
    },
    {
      ...forbid(
        'browser-mocks-use-no-node-module',
        'mocks/handlers.ts and mocks/browser.ts run in a page.',
        '^mocks/(handlers|handlers-browser|browser|unhandled-requests)\\.ts$',
        '',
      ),
      to: { dependencyTypes: ['core'] },
    },
    {
      ...forbid(
        'zod-loads-on-first-use',
        'zod is loaded when a schema is first used (spec/zod-module.ts): a value import of it elsewhere would load it with every mock. Only spec/zod-for-pages.ts, which the entries a page loads import, does.',
        '',
        '',
      ),
      from: {
        path: '^(src|mocks|spec|contract-tests)/',
        pathNot: '\\.test\\.ts$|^spec/zod-for-pages\\.ts$',
      },
      to: { path: '(^|/)node_modules/zod/', dependencyTypesNot: ['type-only'] },
    },
    {
      ...forbid(
        'zod-for-pages-only-in-page-entries',
        "spec/zod-for-pages.ts loads zod as it loads: only the entries a page imports (the handlers' browser entry, the lab) may import it, or Node's start would load zod again.",
        '',
        '^spec/zod-for-pages\\.ts$',
      ),
      from: {
        path: '^(src|mocks|spec|contract-tests)/',
        pathNot: '\\.test\\.ts$|^mocks/handlers-browser\\.ts$|^src/lab/index\\.ts$',
      },
    },
    forbid(
      'core-knows-no-redis',
      'The browser bundle never holds a Redis client: the Redis store is src/server/redis-store.ts.',
      '^src/core/|^mocks/(?!node\\.ts$)',
      '(^|/)node_modules/(redis|@redis)/|^src/server/redis-store\\.ts$',
    ),
    forbid(
      'only-controls-reach-the-lab-and-ui',
      'The lab and the dashboard are served by the controls; the request path knows neither.',
      '^src/core/(?!controls/|mock-app\\.ts$)',
      '^src/(lab|ui)/',
    ),
    forbid(
      'base-files-import-no-room',
      'types.ts, errors.ts and clock.ts are what every room shares.',
      '^src/core/(types|errors|clock)\\.ts$',
      `^src/core/(${rooms}/|mock-app\\.ts$)`,
    ),
    forbid(
      'config-is-the-lowest-room',
      'The config is decoded before anything runs.',
      '^src/core/config/',
      '^src/core/(spec|state|wire|pipeline|controls)/|^src/core/mock-app\\.ts$',
    ),
    forbid(
      'spec-room-reads-the-spec-only',
      'The compiled spec, the router and fake data need no state and no wire format.',
      '^src/core/spec/',
      '^src/core/(state|wire|pipeline|controls)/|^src/core/mock-app\\.ts$',
    ),
    forbid(
      'state-knows-no-request',
      'The stores keep state; they do not read requests or write answers.',
      '^src/core/state/',
      '^src/core/(spec|wire|pipeline|controls)/|^src/core/mock-app\\.ts$',
    ),
    forbid(
      'wire-knows-no-pipeline',
      'Reading bodies and writing answers is independent of the order of the stages.',
      '^src/core/wire/',
      '^src/core/(spec|pipeline|controls)/|^src/core/mock-app\\.ts$',
    ),
    forbid(
      'pipeline-knows-no-controls',
      'The request path is given its control handler and observers by the assembler.',
      '^src/core/pipeline/',
      '^src/core/controls/|^src/core/mock-app\\.ts$',
    ),
    forbid(
      'controls-below-the-assembler',
      'The controls are built by the assembler, not the other way round.',
      '^src/core/controls/',
      '^src/core/mock-app\\.ts$',
    ),
    forbid(
      'lab-is-a-library',
      "The lab judges observations; it may read the core's types, config and state, never the request path.",
      '^src/lab/',
      '^src/(core/(spec|wire|pipeline|controls)/|core/mock-app\\.ts$|server/|cli/|ui/)',
    ),
    forbid('ui-is-a-page', "The dashboard page reads the lab's types only.", '^src/ui/', '^src/(core|server|cli)/'),
    forbid(
      'mocks-stay-browser-safe',
      'The MSW handlers run in a page: no server, CLI or Node-only loader (mocks/node.ts is the Node setup).',
      '^mocks/(handlers|handlers-browser|browser|unhandled-requests)\\.ts$',
      '^(src/(server|cli)/|spec/load-spec\\.ts$)',
    ),
    forbid('src-ships-no-test-support', 'Test support lives under test/.', '^(src|mocks|spec)/', '^test/'),
    forbid(
      'mock-and-proxy-import-nothing-of-the-kit',
      "The mock, the MSW handlers and the judging proxy read the interface's facts and rules from spec/interface/ and print through spec/terminal-text.ts: nothing of the contract kit is theirs.",
      '^(src|mocks)/',
      '^contract-tests/',
    ),
    forbid(
      'interface-room-is-a-leaf',
      "spec/interface/ holds the interface's facts and its rule catalogue: it reads the rest of spec/ only, so sharing it shares nothing else.",
      '^spec/interface/',
      '^(src|mocks|contract-tests|test|bench)/|^spec/load-spec\\.ts$',
    ),
    forbid(
      'core-prints-nothing',
      'Terminal text is for the transports and the CLI: the core runs in a page too.',
      '^src/(core|lab|ui)/',
      '^spec/terminal-text\\.ts$',
    ),
    forbid(
      'terminal-text-is-a-leaf',
      'The sanitiser the mock shares with the kit imports nothing, so sharing it shares nothing else.',
      '^spec/terminal-text\\.ts$',
      '',
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
  },
};

import { maskHeaderValue, maskSecret } from '../../spec/credential-masking.js';
import type { RunState } from '../lib/run-state.js';
import type { SentRequest } from '../report/curl-command.js';
import { type CheckResult, type ContractReport, summarise, type Verdict } from '../report/report-model.js';
import { requestTimeline } from '../report/request-timeline.js';
import { type ResolvedContractOptions, reportedOptions } from './contract-options.js';
import { kitVersion } from './kit-version.js';
import { failureGroupsWithCurl, reportInterfaceLinks, secretVariables } from './report-extras.js';
import type { SpecLayers } from './spec-layers.js';

/** How the kit judges time against the server's `Date` header (stated in every report). */
export const timeTolerance =
  'server Date ± 2 s (Date has 1 s resolution and servers round Reset either way); local clock ± 60 s when the server sends no Date';

/** What a finished run hands its report: its settings and identity, what it read, sent and found. */
export interface FinishedRun {
  settings: ResolvedContractOptions;
  runId: string;
  started: number;
  prismUrl: string | undefined;
  layers: SpecLayers;
  state: RunState;
  results: CheckResult[];
  mayCreate: number;
  logLines: string[];
  /** The request of each exchange as sent (unmasked), for the reproducing curl of each failure group. */
  sent: (seq: number) => SentRequest | undefined;
}

/** The verdict the results imply, and its exit code (0 conforms, 1 fails, 3 inconclusive). */
function verdictOf(results: CheckResult[], failOnSkip: boolean): { verdict: Verdict; exitCode: 0 | 1 | 3 } {
  const summary = summarise(results);
  const inconclusive = results.filter((result) => result.inconclusive);
  const skipped = results.filter((result) => result.status === 'SKIP');
  const verdict: Verdict =
    summary.FAIL > 0 || (failOnSkip && skipped.length > 0)
      ? 'DOES NOT CONFORM'
      : inconclusive.length > 0
        ? 'INCONCLUSIVE'
        : 'CONFORMS';
  return { verdict, exitCode: verdict === 'CONFORMS' ? 0 : verdict === 'INCONCLUSIVE' ? 3 : 1 };
}

/** The run's report, before its secrets are masked (the caller masks every string of it). */
export async function contractReport(run: FinishedRun): Promise<ContractReport> {
  const { settings, runId, started, layers, state, results } = run;
  const { spec } = layers;
  const summary = summarise(results);
  const { verdict, exitCode } = verdictOf(results, settings.failOnSkip);
  const masked = (key: string) => maskSecret(key);
  const keyNames = {
    main: `main key ${masked(settings.apiKey)}`,
    anonymous: 'no key (auth probes)',
    'rate-limit': `rate-limit key ${masked(settings.rateLimitKey ?? '')}`,
  };
  return {
    tool: { name: 'petstore-contract', version: kitVersion },
    runId,
    target: { baseUrl: settings.baseUrl, viaPrism: settings.viaPrism, prismUrl: run.prismUrl },
    spec: { path: settings.specPath, title: spec.title, version: spec.version },
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    settings: {
      ...reportedOptions(settings, masked, (name, value) => maskHeaderValue(name, value, layers.credentialPlaces)),
      namePrefix: `contract-test-${runId}`,
    },
    requestsByKey: {
      [keyNames.main]: state.requestsByIdentity.main + 1,
      [keyNames.anonymous]: state.requestsByIdentity.anonymous,
      ...(settings.rateLimitKey === undefined
        ? {}
        : { [keyNames['rate-limit']]: state.requestsByIdentity['rate-limit'] }),
    },
    requestTimeline: requestTimeline(state.exchanges, keyNames),
    createdCategories: state.created,
    mayCreateCategories: run.mayCreate,
    results,
    summary,
    log: run.logLines,
    conforms: verdict === 'CONFORMS',
    exitCode,
    verdict,
    ...(verdict === 'INCONCLUSIVE' ? { stoppedBy: [...state.stoppers] } : {}),
    timeTolerance,
    failureGroups: failureGroupsWithCurl(results, run.sent, secretVariables(settings)),
    interface: await reportInterfaceLinks(results, kitVersion),
  };
}

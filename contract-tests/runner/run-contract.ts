import { randomBytes } from 'node:crypto';
import { access } from 'node:fs/promises';
import {
  type CredentialPlaces,
  createRedactor,
  looksLikeCredentialHeader,
  maskHeaderValue,
  maskSecret,
  redactDeep,
} from '../../spec/credential-masking.js';
import { allowUnsafePatterns } from '../../spec/linear-patterns.js';
import type { ContractTarget } from '../lib/contract-target.js';
import { ContractHttpClient } from '../lib/http-client.js';
import type { WaitNotice } from '../lib/rate-budget.js';
import { budgetLine, unaffordedCells } from '../lib/run-profile.js';
import { createRunState } from '../lib/run-state.js';
import { waitLine } from '../report/progress-text.js';
import { type CheckResult, type ContractReport, summarise, type Verdict } from '../report/report-model.js';
import { requestTimeline } from '../report/request-timeline.js';
import { callOf, listCategories } from '../suite/operations.js';
import { type ContractOptions, reportedOptions, resolveContractOptions, targetOptions } from './contract-options.js';
import { ContractRunError } from './contract-run-error.js';
import { creationBound, creationLine, creationShares, creationWanted } from './creation-bound.js';
import { kitVersion } from './kit-version.js';
import { assertRateLimitKeyAccepted, limitedKeyNotice, preflight } from './preflight.js';
import { type RunningPrism, startPrism } from './prism-process.js';
import { reachability } from './reachability.js';
import {
  createRequestRecorder,
  failureGroupsWithCurl,
  reportInterfaceLinks,
  secretVariables,
} from './report-extras.js';
import { runChecks } from './run-checks.js';
import { genericCreationLine, genericLayerLine, type SpecLayers, specLayers } from './spec-layers.js';

/** The outcome of a run: the report and the exit code it implies (0 conforms, 1 fails, 3 inconclusive). */
export interface ContractRun {
  report: ContractReport;
  exitCode: 0 | 1 | 3;
}

/** How the kit judges time against the server's `Date` header (stated in every report). */
export const timeTolerance =
  'server Date ± 2 s (Date has 1 s resolution and servers round Reset either way); local clock ± 60 s when the server sends no Date';

/**
 * Runs the contract suite against a server and returns the report. The programmatic face of
 * `petstore-contract`: the CLI is this plus argument parsing and printing. The checks run on the
 * kit's own scheduler (no test runner), results stream through `onResult` as each check
 * finishes, and the run always ends with a report by `--deadline`.
 *
 * Throws `ContractRunError` (exit code 2) for bad options, an unreachable server or Prism failing
 * to start; a server that breaks rules is a report with exit code 1, a run that could not reach a
 * verdict one with exit code 3. Every secret the kit was given is masked in the report.
 *
 * @example
 * const { report, exitCode } = await runContract({ baseUrl: 'http://127.0.0.1:4010/v1', apiKey: 'demo-pro', rateLimitKey: 'demo-free' });
 * console.log(renderHumanReport(report)); process.exitCode = exitCode;
 */
export async function runContract(options: ContractOptions): Promise<ContractRun> {
  const settings = resolveContractOptions(options);
  const secretsOf = (places?: CredentialPlaces) => [
    settings.apiKey,
    ...(settings.rateLimitKey === undefined ? [] : [settings.rateLimitKey]),
    ...Object.entries(settings.extraHeaders)
      .filter(([name]) => looksLikeCredentialHeader(name, places))
      .map(([, value]) => value),
  ];
  // Once the document is read, a -H header it names `apiKey in: header` is a secret too.
  let redact = createRedactor(secretsOf());
  const printLog = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const logLines: string[] = [];
  const log = (line: string) => {
    const safe = redact(line);
    logLines.push(safe);
    printLog(safe);
  };
  const runId = options.runId ?? randomBytes(4).toString('hex');
  const started = Date.now();
  try {
    await access(settings.specPath);
  } catch {
    throw new ContractRunError('usage', `Failed to load spec ${settings.specPath}: no such file`);
  }
  const timeoutMs = Math.round(settings.timeoutSeconds * 1000);
  const deadlineMs = Math.round(settings.deadlineSeconds * 1000);
  // The document decides what runs: the Petstore rule checks, the generic layer, or both (spec-layers.ts).
  let layers: SpecLayers;
  try {
    // Before the document is read: its audit then admits patterns RE2 cannot run, each match under a budget.
    if (settings.unsafePatterns) allowUnsafePatterns();
    layers = await specLayers(settings.specPath, settings.operations, { allowRefsOutside: settings.allowRefsOutside });
  } catch (error) {
    throw new ContractRunError('usage', (error as Error).message);
  }
  redact = createRedactor(secretsOf(layers.credentialPlaces));
  // A run that cannot mean anything (server unreachable, a key refused, no API at the base URL) stops
  // here or at the rate-limit key's first answer. On another document, only an unreachable server stops it.
  const probe = await (layers.petstoreRules
    ? preflight({ baseUrl: settings.baseUrl, apiKey: settings.apiKey, timeoutMs, extraHeaders: settings.extraHeaders })
    : reachability({
        baseUrl: settings.baseUrl,
        path: layers.probePath,
        timeoutMs,
        extraHeaders: settings.extraHeaders,
      })
  ).catch((error: unknown) => {
    throw error instanceof ContractRunError ? new ContractRunError(error.kind, redact(error.message)) : error;
  });
  if (!layers.petstoreRules) log(genericLayerLine(layers.genericOperations, settings));
  const notice = limitedKeyNotice(probe, settings.maxWaitSeconds);
  if (notice !== undefined) log(notice);

  let prism: RunningPrism | undefined;
  const deadline = new AbortController();
  const deadlineTimer = setTimeout(
    () => deadline.abort(`the run deadline was reached (--deadline ${settings.deadlineSeconds} s)`),
    Math.max(0, deadlineMs - (Date.now() - started)),
  );
  const onCancel = () => deadline.abort('the run was cancelled');
  options.signal?.addEventListener('abort', onCancel, { once: true });
  let client: ContractHttpClient | undefined;
  try {
    if (settings.viaPrism) {
      log(`petstore-contract: starting Prism's validating proxy in front of ${settings.baseUrl}`);
      prism = await startPrism({ mode: 'proxy', specPath: settings.specPath, upstream: settings.baseUrl });
      log(`petstore-contract: Prism listens on ${prism.url}`);
    }
    const clock = settings.clock;
    const target: ContractTarget = {
      ...targetOptions(settings),
      runId,
      baseUrl: prism?.url ?? settings.baseUrl,
      deadlineAtMs: started + deadlineMs,
      namePrefix: `contract-test-${runId}`,
      // The probe's own timestamp is real time; the budget is judged on the kit's clock.
      initialBudget: { remaining: probe.remaining, reset: probe.reset, receivedAtMs: clock.now() },
    };
    // The interface's rule catalogue judges every exchange of a run on the Petstore interface.
    const state = createRunState(
      layers.petstoreRules ? layers.spec : undefined,
      [settings.apiKey, settings.rateLimitKey].filter((key): key is string => key !== undefined),
    );
    const recorder = createRequestRecorder(settings.baseUrl);
    const onWait = (notice: WaitNotice) => {
      // The report keeps the line; the CLI shows it as it likes (a countdown on a terminal).
      logLines.push(redact(waitLine(notice)));
      if (options.onWait) options.onWait(notice);
      else printLog(redact(waitLine(notice)));
    };
    client = new ContractHttpClient(target, state, log, {
      signal: deadline.signal,
      hooks: { onSend: recorder.onSend, onWait },
    });
    if (settings.rateLimitKey !== undefined && layers.petstoreRules) {
      // The rate-limit key's budget before the main key spends anything: the independent-budget
      // check compares it with what the key reports later.
      const first = await client
        .send('rate.independent-budgets', {
          ...callOf(listCategories),
          authorization: `Bearer ${settings.rateLimitKey}`,
          identity: 'rate-limit',
        })
        .catch(() => undefined);
      if (first !== undefined) {
        try {
          assertRateLimitKeyAccepted(first, settings.rateLimitKey);
        } catch (error) {
          throw new ContractRunError('refused', redact((error as Error).message));
        }
        state.shared.set('rate-limit-start', first);
        state.mainRequestsAtRateLimitStart = state.requestsByIdentity.main;
      }
      // Without an answer, the checks that need it say so.
    }
    const { spec, areas } = layers;
    // --create-budget bounds what the Petstore's checks create; the generic layer's checks create what they declare.
    const shares = await creationShares(areas, layers.petstoreRules ? target : { ...target, createBudget: Infinity });
    const mayCreate = creationBound(shares);
    log(
      layers.petstoreRules
        ? creationLine({
            bound: mayCreate,
            wanted: creationWanted(shares),
            baseUrl: settings.baseUrl,
            namePrefix: target.namePrefix,
            createBudget: settings.createBudget,
            readOnly: settings.readOnly,
          })
        : genericCreationLine(mayCreate, settings),
    );
    log(budgetLine({ ...settings, mayCreate, rateLimitKey: settings.rateLimitKey !== undefined }));
    const results = await runChecks(areas, {
      target,
      spec,
      state,
      client,
      signal: deadline.signal,
      checkDeadlineMs: target.maxWaitMs + 20 * timeoutMs,
      startedAtMs: started,
      creationShares: shares,
      ...(options.onResult
        ? { onResult: (result: CheckResult) => options.onResult?.(redactDeep(result, redact)) }
        : {}),
    });
    // Cancelled (Ctrl-C): the checks not finished are INCONCLUSIVE ("the run was cancelled"), and the report still comes out.
    const unafforded = unaffordedCells(results, settings.thorough);
    if (unafforded.length > 0) log('petstore-contract: cells this run could not afford (INCONCLUSIVE, never PASS):');
    for (const line of unafforded) log(`  ${line}`);
    const summary = summarise(results);
    const inconclusive = results.filter((result) => result.inconclusive);
    const skipped = results.filter((result) => result.status === 'SKIP');
    const verdict: Verdict =
      summary.FAIL > 0 || (settings.failOnSkip && skipped.length > 0)
        ? 'DOES NOT CONFORM'
        : inconclusive.length > 0
          ? 'INCONCLUSIVE'
          : 'CONFORMS';
    const exitCode = verdict === 'CONFORMS' ? 0 : verdict === 'INCONCLUSIVE' ? 3 : 1;
    const masked = (key: string) => maskSecret(key);
    const keyNames = {
      main: `main key ${masked(settings.apiKey)}`,
      anonymous: 'no key (auth probes)',
      'rate-limit': `rate-limit key ${masked(settings.rateLimitKey ?? '')}`,
    };
    const report: ContractReport = {
      tool: { name: 'petstore-contract', version: kitVersion },
      runId,
      target: { baseUrl: settings.baseUrl, viaPrism: settings.viaPrism, prismUrl: prism?.url },
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
      mayCreateCategories: mayCreate,
      results,
      summary,
      log: logLines,
      conforms: verdict === 'CONFORMS',
      exitCode,
      verdict,
      ...(verdict === 'INCONCLUSIVE' ? { stoppedBy: [...state.stoppers] } : {}),
      timeTolerance,
      failureGroups: failureGroupsWithCurl(results, recorder.sent, secretVariables(settings)),
      interface: await reportInterfaceLinks(results, kitVersion),
    };
    // Every string of the report, evidence and server bodies included, with the secrets masked.
    return { report: redactDeep(report, redact), exitCode };
  } finally {
    clearTimeout(deadlineTimer);
    options.signal?.removeEventListener('abort', onCancel);
    await client?.close();
    await prism?.stop();
  }
}

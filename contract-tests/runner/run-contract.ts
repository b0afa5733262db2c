import { randomBytes } from 'node:crypto';
import { access } from 'node:fs/promises';
import { redactDeep } from '../../spec/credential-masking.js';
import { allowUnsafePatterns } from '../../spec/linear-patterns.js';
import type { ContractTarget } from '../lib/contract-target.js';
import { ContractHttpClient } from '../lib/http-client.js';
import type { WaitNotice } from '../lib/rate-budget.js';
import { budgetLine, unaffordedCells } from '../lib/run-profile.js';
import { createRunState, type RunState } from '../lib/run-state.js';
import type { CheckResult, ContractReport } from '../report/report-model.js';
import { callOf, listCategories } from '../suite/operations.js';
import {
  type ContractOptions,
  type ResolvedContractOptions,
  resolveContractOptions,
  targetOptions,
} from './contract-options.js';
import { ContractRunError } from './contract-run-error.js';
import { creationBound, creationLine, creationShares, creationWanted } from './creation-bound.js';
import { assertRateLimitKeyAccepted, limitedKeyNotice, preflight } from './preflight.js';
import { type RunningPrism, startPrism } from './prism-process.js';
import { reachability } from './reachability.js';
import { createRequestRecorder } from './report-extras.js';
import { runChecks } from './run-checks.js';
import { RunLog } from './run-log.js';
import { contractReport } from './run-report.js';
import { genericCreationLine, genericLayerLine, type SpecLayers, specLayers } from './spec-layers.js';

export { timeTolerance } from './run-report.js';

/** The outcome of a run: the report and the exit code it implies (0 conforms, 1 fails, 3 inconclusive). */
export interface ContractRun {
  report: ContractReport;
  exitCode: 0 | 1 | 3;
}

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
  const runLog = new RunLog(settings, options.log ?? ((line: string) => process.stderr.write(`${line}\n`)));
  const log = runLog.line;
  const runId = options.runId ?? randomBytes(4).toString('hex');
  const started = Date.now();
  const timeoutMs = Math.round(settings.timeoutSeconds * 1000);
  const deadlineMs = Math.round(settings.deadlineSeconds * 1000);
  const layers = await readLayers(settings);
  runLog.learnCredentialPlaces(layers.credentialPlaces);
  const probe = await probeServer(settings, layers, timeoutMs, runLog.redact);
  if (!layers.petstoreRules) log(genericLayerLine(layers.genericOperations, settings));
  const notice = limitedKeyNotice(probe, settings.maxWaitSeconds);
  if (notice !== undefined) log(notice);

  let prism: RunningPrism | undefined;
  const deadline = new RunDeadline(settings.deadlineSeconds, deadlineMs - (Date.now() - started), options.signal);
  let client: ContractHttpClient | undefined;
  try {
    if (settings.viaPrism) prism = await startValidatingProxy(settings, log);
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
    const keys = [settings.apiKey, settings.rateLimitKey].filter((key): key is string => key !== undefined);
    const state = createRunState(layers.petstoreRules ? layers.spec : undefined, keys);
    const recorder = createRequestRecorder(settings.baseUrl);
    const onWait = (waiting: WaitNotice) => runLog.waitNotice(waiting, options.onWait);
    client = new ContractHttpClient(target, state, log, {
      signal: deadline.signal,
      hooks: { onSend: recorder.onSend, onWait },
    });
    if (settings.rateLimitKey !== undefined && layers.petstoreRules)
      await sendRateLimitKeyFirst({ client, state, rateLimitKey: settings.rateLimitKey, redact: runLog.redact });
    const { spec, areas } = layers;
    const { shares, mayCreate } = await announceCreations({ layers, target, settings, log });
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
        ? { onResult: (result: CheckResult) => options.onResult?.(redactDeep(result, runLog.redactor)) }
        : {}),
    });
    // Cancelled (Ctrl-C): the checks not finished are INCONCLUSIVE ("the run was cancelled"), and the report still comes out.
    const unafforded = unaffordedCells(results, settings.thorough);
    if (unafforded.length > 0) log('petstore-contract: cells this run could not afford (INCONCLUSIVE, never PASS):');
    for (const line of unafforded) log(`  ${line}`);
    const report = await contractReport({
      settings,
      runId,
      started,
      prismUrl: prism?.url,
      layers,
      state,
      results,
      mayCreate,
      logLines: runLog.lines,
      sent: recorder.sent,
    });
    // Every string of the report, evidence and server bodies included, with the secrets masked.
    return { report: redactDeep(report, runLog.redactor), exitCode: report.exitCode };
  } finally {
    deadline.stop();
    await client?.close();
    await prism?.stop();
  }
}

/** The run's deadline (--deadline) and its cancellation (the caller's signal) as one signal that every wait and request obeys. */
class RunDeadline {
  readonly #controller = new AbortController();
  readonly #timer: NodeJS.Timeout;
  readonly #cancelled: AbortSignal | undefined;
  readonly #onCancel = () => this.#controller.abort('the run was cancelled');

  constructor(deadlineSeconds: number, leftMs: number, cancelled: AbortSignal | undefined) {
    this.#timer = setTimeout(
      () => this.#controller.abort(`the run deadline was reached (--deadline ${deadlineSeconds} s)`),
      Math.max(0, leftMs),
    );
    this.#cancelled = cancelled;
    cancelled?.addEventListener('abort', this.#onCancel, { once: true });
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#cancelled?.removeEventListener('abort', this.#onCancel);
  }
}

/** --via-prism: Prism's validating proxy in front of the server, which the run then sends through. */
async function startValidatingProxy(
  settings: ResolvedContractOptions,
  log: (line: string) => void,
): Promise<RunningPrism> {
  log(`petstore-contract: starting Prism's validating proxy in front of ${settings.baseUrl}`);
  const prism = await startPrism({ mode: 'proxy', specPath: settings.specPath, upstream: settings.baseUrl });
  log(`petstore-contract: Prism listens on ${prism.url}`);
  return prism;
}

/** The document, read: it decides what runs, the Petstore rule checks, the generic layer, or both (spec-layers.ts). */
async function readLayers(settings: ResolvedContractOptions): Promise<SpecLayers> {
  try {
    await access(settings.specPath);
  } catch {
    throw new ContractRunError('usage', `Failed to load spec ${settings.specPath}: no such file`);
  }
  try {
    // Before the document is read: its audit then admits patterns RE2 cannot run, each match under a budget.
    if (settings.unsafePatterns) allowUnsafePatterns();
    return await specLayers(settings.specPath, settings.operations, { allowRefsOutside: settings.allowRefsOutside });
  } catch (error) {
    throw new ContractRunError('usage', (error as Error).message);
  }
}

/**
 * A run that cannot mean anything (server unreachable, a key refused, no API at the base URL) stops
 * here or at the rate-limit key's first answer. On another document, only an unreachable server stops it.
 */
function probeServer(
  settings: ResolvedContractOptions,
  layers: SpecLayers,
  timeoutMs: number,
  redact: (text: string) => string,
): ReturnType<typeof preflight> {
  const { baseUrl, apiKey, extraHeaders } = settings;
  return (
    layers.petstoreRules
      ? preflight({ baseUrl, apiKey, timeoutMs, extraHeaders })
      : reachability({ baseUrl, path: layers.probePath, timeoutMs, extraHeaders })
  ).catch((error: unknown) => {
    throw error instanceof ContractRunError ? new ContractRunError(error.kind, redact(error.message)) : error;
  });
}

/**
 * The rate-limit key's budget before the main key spends anything: the independent-budget check
 * compares it with what the key reports later. Without an answer, the checks that need it say so.
 */
async function sendRateLimitKeyFirst(first: {
  client: ContractHttpClient;
  state: RunState;
  rateLimitKey: string;
  redact: (text: string) => string;
}): Promise<void> {
  const { client, state, rateLimitKey, redact } = first;
  const answer = await client
    .send('rate.independent-budgets', {
      ...callOf(listCategories),
      authorization: `Bearer ${rateLimitKey}`,
      identity: 'rate-limit',
    })
    .catch(() => undefined);
  if (answer === undefined) return;
  try {
    assertRateLimitKeyAccepted(answer, rateLimitKey);
  } catch (error) {
    throw new ContractRunError('refused', redact((error as Error).message));
  }
  state.shared.set('rate-limit-start', answer);
  state.mainRequestsAtRateLimitStart = state.requestsByIdentity.main;
}

/** Each check's share of what the run may create, and the bound the run prints before it sends anything. */
async function announceCreations(run: {
  layers: SpecLayers;
  target: ContractTarget;
  settings: ResolvedContractOptions;
  log: (line: string) => void;
}): Promise<{ shares: Awaited<ReturnType<typeof creationShares>>; mayCreate: number }> {
  const { layers, target, settings, log } = run;
  // --create-budget bounds what the Petstore's checks create; the generic layer's checks create what they declare.
  const shares = await creationShares(
    layers.areas,
    layers.petstoreRules ? target : { ...target, createBudget: Infinity },
  );
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
  return { shares, mayCreate };
}

import { randomBytes } from 'node:crypto';
import { access } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createVitest } from 'vitest/node';
import type { ContractSuiteInput } from '../lib/contract-target.js';
import { maskSecret } from '../lib/mask-secret.js';
import { loadSpecModel } from '../lib/spec-model.js';
import { summarise, type ContractReport } from '../report/report-model.js';
import { resolveContractOptions, type ContractOptions } from './contract-options.js';
import { ContractRunError } from './contract-run-error.js';
import { kitVersion } from './kit-version.js';
import { startPrism, type RunningPrism } from './prism-process.js';
import { probeServer } from './preflight.js';
import { ResultCollector } from './result-collector.js';
import { suiteVitestConfig } from './suite-config.js';

/** The outcome of a run: the report and the exit code it implies (0 conforms, 1 a required check failed). */
export interface ContractRun {
  report: ContractReport;
  exitCode: 0 | 1;
}

/**
 * Runs the contract suite against a server and returns the report. The programmatic face of
 * `petstore-contract`: the CLI is this plus argument parsing and printing.
 *
 * Throws `ContractRunError` (exit code 2) for bad options, an unreachable server, Prism failing to
 * start, or a suite that could not run; a server that breaks rules is a report with exit code 1.
 *
 * @example
 * const { report, exitCode } = await runContract({ baseUrl: 'http://127.0.0.1:4010/v1', apiKey: 'demo-pro', rateLimitKey: 'demo-free' });
 * console.log(renderHumanReport(report)); process.exitCode = exitCode;
 */
export async function runContract(options: ContractOptions): Promise<ContractRun> {
  const settings = resolveContractOptions(options);
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const runId = options.runId ?? randomBytes(4).toString('hex');
  const started = Date.now();
  try {
    await access(settings.specPath);
  } catch {
    throw new ContractRunError('usage', `Failed to load spec ${settings.specPath}: no such file`);
  }
  let spec;
  try {
    spec = await loadSpecModel(settings.specPath);
  } catch (error) {
    throw new ContractRunError('usage', (error as Error).message);
  }
  const timeoutMs = Math.round(settings.timeoutSeconds * 1000);
  const probe = await probeServer(settings.baseUrl, settings.apiKey, timeoutMs);
  if (probe.status === 404 && !/\/v\d+$/.test(settings.baseUrl)) {
    log(`petstore-contract: GET ${settings.baseUrl}/categories answered 404; does the base URL lack its version prefix (/v1)?`);
  }

  let prism: RunningPrism | undefined;
  const exitCodeBefore = process.exitCode;
  try {
    if (settings.viaPrism) {
      log(`petstore-contract: starting Prism's validating proxy in front of ${settings.baseUrl}`);
      prism = await startPrism({ mode: 'proxy', specPath: settings.specPath, upstream: settings.baseUrl });
      log(`petstore-contract: Prism listens on ${prism.url}`);
    }
    const input: ContractSuiteInput = {
      runId,
      directBaseUrl: settings.baseUrl,
      prismBaseUrl: prism?.url,
      viaPrism: settings.viaPrism,
      apiKey: settings.apiKey,
      rateLimitKey: settings.rateLimitKey,
      readOnly: settings.readOnly,
      strict: settings.strict,
      timeoutMs,
      concurrency: settings.concurrency,
      maxRequests: settings.maxRequests,
      maxWaitMs: Math.round(settings.maxWaitSeconds * 1000),
      seed: settings.seed,
      propertyRuns: settings.propertyRuns,
      specPath: settings.specPath,
      initialBudget: { remaining: probe.remaining, reset: probe.reset, receivedAtMs: probe.receivedAtMs },
    };
    const collector = new ResultCollector(log);
    const vitestOutput = new TextSink();
    await runSuite(input, collector, vitestOutput, options.signal);
    if (options.signal?.aborted) throw new ContractRunError('internal', 'Failed to finish the run: it was cancelled');
    if (collector.problems.length > 0 || collector.results.length === 0) {
      const detail = collector.problems.length > 0 ? collector.problems.join('; ') : vitestOutput.tail();
      throw new ContractRunError('internal', `Failed to run the contract suite: ${detail || 'no check ran'}`);
    }
    const summary = summarise(collector.results);
    const conforms = summary.FAIL === 0;
    const report: ContractReport = {
      tool: { name: 'petstore-contract', version: kitVersion },
      runId,
      target: { baseUrl: settings.baseUrl, viaPrism: settings.viaPrism, prismUrl: prism?.url },
      spec: { path: settings.specPath, title: spec.title, version: spec.version },
      startedAt: new Date(started).toISOString(),
      durationMs: Date.now() - started,
      settings: {
        apiKey: maskSecret(settings.apiKey),
        rateLimitKey: settings.rateLimitKey === undefined ? undefined : maskSecret(settings.rateLimitKey),
        readOnly: settings.readOnly,
        strict: settings.strict,
        seed: settings.seed,
        propertyRuns: settings.propertyRuns,
        concurrency: settings.concurrency,
        timeoutSeconds: settings.timeoutSeconds,
        maxRequests: settings.maxRequests,
        maxWaitSeconds: settings.maxWaitSeconds,
        namePrefix: `contract-test-${runId}`,
      },
      results: collector.results,
      summary,
      log: collector.log,
      conforms,
      exitCode: conforms ? 0 : 1,
    };
    return { report, exitCode: report.exitCode };
  } finally {
    // vitest sets process.exitCode when checks fail; the verdict is ours to give, not the suite's.
    process.exitCode = exitCodeBefore;
    await prism?.stop();
  }
}

async function runSuite(input: ContractSuiteInput, collector: ResultCollector, output: TextSink, signal: AbortSignal | undefined): Promise<void> {
  let vitest;
  try {
    // Vite's cache (vitest's results.json) goes to the temp directory, never next to the suite:
    // an installed kit may live in a read-only node_modules.
    vitest = await createVitest('test', suiteVitestConfig({ input, reporter: collector }), { cacheDir: join(tmpdir(), 'petstore-contract-vite') }, { stdout: output, stderr: output });
  } catch (error) {
    throw new ContractRunError('internal', `Failed to start the contract suite: ${(error as Error).message}`);
  }
  const cancel = () => void vitest.cancelCurrentRun('keyboard-input');
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    await vitest.start();
  } catch (error) {
    throw new ContractRunError('internal', `Failed to run the contract suite: ${(error as Error).message}${output.tail() ? `\n${output.tail()}` : ''}`);
  } finally {
    signal?.removeEventListener('abort', cancel);
    await vitest.close();
  }
}

/** Collects what vitest itself prints (startup errors), to quote it when the suite cannot run. */
class TextSink extends Writable {
  #text = '';

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.#text = (this.#text + chunk.toString()).slice(-8_000);
    callback();
  }

  tail(): string {
    return this.#text.replace(/\u001b\[[0-9;]*m/g, '').trim().split('\n').slice(-15).join('\n');
  }
}

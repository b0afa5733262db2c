import { Agent, request } from 'undici';
import { type ApiRequest, requestHeaders } from './api-request.js';
import { apiUrl } from './api-url.js';
import { CheckFailure, InconclusiveError, OverBudget } from './check-errors.js';
import type { ContractTarget } from './contract-target.js';
import { type Exchange, evidenceOf, type Identity, maskHeaders, truncate } from './exchange.js';
import {
  deadlineReason,
  describeTransportError,
  inChunks,
  isGone,
  parseViolations,
  prismOwnAnswer,
  readBounded,
  retryAtMs,
  showBytes,
  toResponse,
  wireHeaders,
} from './http-wire.js';
import type { KitClock } from './kit-clock.js';
import { RateBudget, WaitAllowance, type WaitNotice } from './rate-budget.js';
import type { RunState } from './run-state.js';
import { Semaphore } from './semaphore.js';

export type { ApiRequest } from './api-request.js';

/** What the runner may watch: each request as sent (unmasked, for a reproducing curl), each wait as it starts. */
export interface ClientHooks {
  onSend?: (
    exchange: Exchange,
    sent: { headers: Record<string, string>; body: string | Uint8Array | undefined },
  ) => void;
  onWait?: (notice: WaitNotice) => void;
}

/** What a run gives its client besides the target: the deadline's signal and what the runner watches. */
export interface ClientOptions {
  signal?: AbortSignal;
  hooks?: ClientHooks;
}

/** Requests kept in hand before the kit waits for a rate-limit window to reset. */
const reserve = 2;

/** Header names the checks set themselves: -H may not set them (it would change what a check tests). */
export const checkOwnedHeaders = new Set([
  'authorization',
  'content-type',
  'content-length',
  'host',
  'transfer-encoding',
  'connection',
  'accept',
  'user-agent',
]);

/**
 * The suite's HTTP client (undici): per-request timeout, a cap on requests in flight, pacing by
 * the rate-limit headers of each identity, and a record of every exchange in the run state.
 *
 * An unprovoked 429 (on any key but the rate-limit key) is recorded, makes the identity wait for
 * Retry-After, and throws `InconclusiveError` to the check that met it.
 *
 * @example
 * const client = new ContractHttpClient(target, runState(target.runId), console.warn);
 * const exchange = await client.send('list.ok', { operationId: 'listCategories', method: 'GET', path: '/categories', authorization: `Bearer ${target.apiKey}`, identity: 'main' });
 */
export class ContractHttpClient {
  readonly #target: ContractTarget;
  readonly #state: RunState;
  readonly #agent: Agent;
  readonly #slots: Semaphore;
  readonly #budgets: Map<Identity, RateBudget>;
  readonly #clock: KitClock;
  /** What the run may still wait on purpose (--window-wait). */
  readonly #windowWaits: WaitAllowance;
  readonly #log: (message: string) => void;

  readonly #signal: AbortSignal;
  readonly #hooks: ClientHooks;

  /**
   * `options.signal` aborts at the run's deadline: requests in flight are cut and waits end, so the
   * run always gets to write its report.
   */
  constructor(target: ContractTarget, state: RunState, log: (message: string) => void, options: ClientOptions = {}) {
    const { signal = new AbortController().signal, hooks = {} } = options;
    this.#target = target;
    this.#hooks = hooks;
    this.#state = state;
    this.#signal = signal;
    this.#clock = target.clock;
    this.#log = log;
    this.#windowWaits = new WaitAllowance(target.windowWaitMs);
    this.#agent = new Agent({
      connect: { timeout: target.timeoutMs },
      headersTimeout: target.timeoutMs,
      bodyTimeout: target.timeoutMs,
    });
    this.#slots = new Semaphore(target.concurrency);
    const allowance = new WaitAllowance(target.maxWaitMs);
    const sleep = (ms: number) => this.#sleep(ms);
    const budget = (label: string) =>
      new RateBudget({
        label,
        reserve,
        allowance,
        now: () => this.#clock.now(),
        sleep,
        log: (message) => log(`petstore-contract: ${message}`),
        ...(hooks.onWait ? { onWait: hooks.onWait } : {}),
      });
    this.#budgets = new Map([
      ['main', budget('the main key')],
      ['anonymous', budget('unauthenticated requests')],
    ]);
    const initial = target.initialBudget;
    if (initial) {
      this.#budgets.get('main')?.observe({
        status: 200,
        headers: { 'x-ratelimit-remaining': initial.remaining ?? '', 'x-ratelimit-reset': initial.reset ?? '' },
        receivedAtMs: initial.receivedAtMs,
      });
    }
  }

  /** Sends one request for check `checkId` and records the exchange. */
  async send(checkId: string, apiRequest: ApiRequest): Promise<Exchange> {
    if (this.#signal.aborted) throw new InconclusiveError(deadlineReason(this.#signal));
    if (this.#refusedAfter429(apiRequest)) {
      throw new Error(
        `Failed to send ${apiRequest.method} ${apiRequest.path}: the kit stopped using the rate-limit key after its 429 (the interface warns that keys which keep sending get banned)`,
      );
    }
    if (apiRequest.notBefore !== undefined) await this.#waitOnPurpose(apiRequest.notBefore);
    const budget = apiRequest.spendToLimit === true ? undefined : this.#budgets.get(apiRequest.identity);
    await this.#slots.acquire();
    try {
      if (this.#refusedAfter429(apiRequest)) {
        throw new Error(
          `Failed to send ${apiRequest.method} ${apiRequest.path}: the kit stopped using the rate-limit key after its 429`,
        );
      }
      if (apiRequest.identity === 'rate-limit') this.#state.rateLimitKeyStopped = false;
      await budget?.acquire();
      if (this.#signal.aborted) {
        budget?.release();
        throw new InconclusiveError(deadlineReason(this.#signal));
      }
      try {
        return await this.#exchange(checkId, apiRequest, budget);
      } finally {
        budget?.release();
      }
    } finally {
      this.#slots.release();
    }
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }

  /** The current time on the kit's clock. */
  now(): number {
    return this.#clock.now();
  }

  /** The rate-limit key is stopped after its 429 unless this request waits out that 429's Retry-After. */
  #refusedAfter429(apiRequest: ApiRequest): boolean {
    if (
      apiRequest.identity !== 'rate-limit' ||
      !this.#state.rateLimitKeyStopped ||
      apiRequest.keepSendingAfter429 === true
    )
      return false;
    const retryAt = this.#state.rateLimitRetryAtMs;
    return retryAt === undefined || apiRequest.notBefore === undefined || apiRequest.notBefore.atMs < retryAt;
  }

  /** A sleep on the kit's clock that the run's deadline cuts short (then the check is INCONCLUSIVE). */
  async #sleep(ms: number): Promise<void> {
    if (this.#signal.aborted) throw new InconclusiveError(deadlineReason(this.#signal));
    try {
      await this.#clock.sleep(ms, this.#signal);
    } catch {
      throw new InconclusiveError(deadlineReason(this.#signal));
    }
    if (this.#signal.aborted) throw new InconclusiveError(deadlineReason(this.#signal));
  }

  /** Waits until `atMs` on purpose, or throws `OverBudget` when --window-wait or --deadline cannot cover it. */
  async #waitOnPurpose(notBefore: { atMs: number; why: string }): Promise<void> {
    const ms = Math.ceil(notBefore.atMs - this.#clock.now());
    if (ms <= 0) return;
    const seconds = Math.ceil(ms / 1000);
    if (!this.#clock.virtual && Date.now() + ms > this.#target.deadlineAtMs) {
      throw new OverBudget(`${notBefore.why} needs ${seconds} s of waiting, past the run's --deadline`);
    }
    if (!this.#windowWaits.take(ms)) {
      const left = Math.floor((this.#windowWaits.maxMs - this.#windowWaits.spentMs) / 1000);
      throw new OverBudget(
        `${notBefore.why} needs ${seconds} s of waiting; --window-wait allows ${left} s more (--thorough, or --window-wait ${Math.ceil((this.#windowWaits.spentMs + ms) / 1000)}, checks this)`,
      );
    }
    if (this.#hooks.onWait)
      this.#hooks.onWait({ waitingFor: `${notBefore.why} (on purpose, --window-wait)`, ms, untilMs: notBefore.atMs });
    else this.#log(`petstore-contract: waiting ${seconds} s on purpose: ${notBefore.why}`);
    await this.#sleep(ms);
  }

  async #exchange(checkId: string, apiRequest: ApiRequest, budget: RateBudget | undefined): Promise<Exchange> {
    const outgoing = this.#outgoing(checkId, apiRequest);
    this.#hooks.onSend?.(outgoing.exchange, { headers: outgoing.headers, body: outgoing.body });
    const judged = this.#state.judge.sent(
      apiRequest.method,
      outgoing.headers,
      outgoing.exchange.request.url,
      outgoing.viaPrism,
    );
    await this.#transmit(outgoing, apiRequest, judged);
    return this.#settle(outgoing, apiRequest, budget, judged);
  }

  /** The request as it will be sent, and its exchange opened in the run's record (its sequence number taken). */
  #outgoing(checkId: string, apiRequest: ApiRequest): Outgoing {
    const bypassedPrism = this.#target.viaPrism && apiRequest.bypassPrism === true;
    const url = apiUrl(bypassedPrism ? this.#target.directBaseUrl : this.#target.baseUrl, apiRequest.path);
    const body = apiRequest.rawBody ?? (apiRequest.json === undefined ? undefined : JSON.stringify(apiRequest.json));
    const bodyText = typeof body === 'string' || body === undefined ? body : showBytes(body);
    const headers = requestHeaders(this.#target, apiRequest, body);
    this.#state.requestsByIdentity[apiRequest.identity] += 1;
    const exchange: Exchange = {
      seq: this.#state.nextSeq++,
      checkId,
      operationId: apiRequest.operationId,
      identity: apiRequest.identity,
      request: {
        method: apiRequest.method,
        url,
        path: apiRequest.path,
        headers: maskHeaders(headers),
        body: bodyText === undefined ? undefined : truncate(bodyText, 2_000),
      },
      sentAtMs: this.#clock.now(),
      receivedAtMs: 0,
      response: undefined,
      transportError: undefined,
      bypassedPrism,
      offInterface: apiRequest.offInterface === true,
      answeredByPrism: false,
      prismViolations: [],
    };
    return { exchange, headers, body, viaPrism: this.#target.viaPrism && !bypassedPrism };
  }

  /** Sends the request and reads its answer into the exchange; no answer is recorded and thrown (INCONCLUSIVE or FAIL). */
  async #transmit({ exchange, headers, body }: Outgoing, apiRequest: ApiRequest, judged: JudgedRequest): Promise<void> {
    const url = exchange.request.url;
    try {
      const response = await request(url, {
        method: apiRequest.method as 'GET',
        headers: wireHeaders(headers, apiRequest.authorizations),
        body: apiRequest.chunked === true && body !== undefined ? inChunks(body) : body,
        dispatcher: this.#agent,
        signal: AbortSignal.any([AbortSignal.timeout(this.#target.timeoutMs), this.#signal]),
      });
      const read = await readBounded(response.body, this.#target.maxBodyBytes);
      exchange.receivedAtMs = this.#clock.now();
      exchange.nextSeqAtAnswer = this.#state.nextSeq;
      exchange.response = toResponse(response.statusCode, response.headers, read.text, read.truncatedAtBytes);
    } catch (error) {
      exchange.receivedAtMs = this.#clock.now();
      this.#state.judge.failed(judged);
      if (this.#signal.aborted) {
        exchange.transportError = deadlineReason(this.#signal);
        this.#state.exchanges.push(exchange);
        throw new InconclusiveError(exchange.transportError);
      }
      exchange.transportError = describeTransportError(error, this.#target.timeoutMs);
      this.#state.exchanges.push(exchange);
      if (isGone(error)) {
        throw new InconclusiveError(
          `the server became unreachable mid-run: ${apiRequest.method} ${url}: ${exchange.transportError}`,
        );
      }
      throw new CheckFailure(`Failed to get a response to ${apiRequest.method} ${url}: ${exchange.transportError}`, [
        evidenceOf(exchange, `no response: ${exchange.transportError}`),
      ]);
    }
  }

  /**
   * The answer recorded, counted, paced on and judged by the whole catalogue; then whatever makes it
   * no answer of the server's to judge (Prism's own, cut short, an unprovoked 429) thrown as INCONCLUSIVE.
   */
  #settle(
    { exchange, viaPrism }: Outgoing,
    apiRequest: ApiRequest,
    budget: RateBudget | undefined,
    judged: JudgedRequest,
  ): Exchange {
    const response = exchange.response!;
    if (viaPrism) exchange.prismViolations = parseViolations(response.headers['sl-violations']);
    this.#state.exchanges.push(exchange);
    if (apiRequest.method === 'POST' && response.status === 201) this.#state.created += 1;
    budget?.observe({ status: response.status, headers: response.headers, receivedAtMs: exchange.receivedAtMs });

    const prismAnswer = viaPrism ? prismOwnAnswer(response) : undefined;
    // Every answer of the server's is judged by the whole catalogue, whatever the check sent it for.
    if (prismAnswer === undefined) this.#state.judge.answered(judged, exchange);
    else this.#state.judge.failed(judged);
    if (prismAnswer !== undefined) {
      exchange.answeredByPrism = true;
      throw new InconclusiveError(
        `Prism answered ${apiRequest.method} ${apiRequest.path} itself (${prismAnswer}), so the server was not tested by it`,
      );
    }
    if (response.truncatedAtBytes !== undefined) {
      // A body the kit did not read whole cannot be judged either way: neither PASS nor FAIL.
      throw new InconclusiveError(
        `body too long: the answer to ${apiRequest.method} ${apiRequest.path} (${response.status}) was longer than --max-body-bytes ${response.truncatedAtBytes}; only that much was read, the rest discarded, not judged (raise --max-body-bytes to judge it)`,
      );
    }
    if (response.status === 429) {
      if (apiRequest.identity === 'rate-limit') {
        this.#state.rateLimitKeyStopped = true;
        this.#state.rateLimitRetryAtMs = retryAtMs(response, exchange.receivedAtMs);
      } else if (apiRequest.spendToLimit !== true) {
        throw new InconclusiveError(
          `rate-limited, inconclusive: ${apiRequest.method} ${apiRequest.path} was answered 429 (Retry-After ${response.headers['retry-after'] ?? 'missing'}) although the kit paced itself by the rate-limit headers`,
        );
      }
    }
    return exchange;
  }
}

/** A request ready to send: its exchange in the record, its headers unmasked, its body, and whether it goes through Prism. */
interface Outgoing {
  exchange: Exchange;
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
  viaPrism: boolean;
}

type JudgedRequest = ReturnType<RunState['judge']['sent']>;

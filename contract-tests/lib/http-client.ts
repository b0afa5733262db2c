import { Readable } from 'node:stream';
import { Agent, request } from 'undici';
import { parseRetryAfter, serverClock } from '../../spec/interface/rate-limit-headers.js';
import { apiUrl } from './api-url.js';
import { CheckFailure, InconclusiveError, OverBudget } from './check-errors.js';
import type { ContractTarget } from './contract-target.js';
import {
  type Exchange,
  type ExchangeResponse,
  evidenceOf,
  type Identity,
  maskHeaders,
  type PrismViolation,
  truncate,
} from './exchange.js';
import type { KitClock } from './kit-clock.js';
import { RateBudget, WaitAllowance, type WaitNotice } from './rate-budget.js';
import type { RunState } from './run-state.js';
import { Semaphore } from './semaphore.js';

/** One request as a check describes it. */
export interface ApiRequest {
  operationId: string;
  /** GET and POST for the operations; other methods for the 405 probes. */
  method: string;
  /** Spec path with parameters filled in: `/categories`, `/pets/1`; may carry a query string. */
  path: string;
  /** More headers for this request (a key offered in a cookie); they win over -H headers. */
  headers?: Record<string, string>;
  /** The Authorization header value; undefined sends none. */
  authorization?: string;
  /** The rate budget this request draws on. */
  identity: Identity;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as is: malformed JSON as text, or bytes no JSON writer produces (invalid UTF-8). */
  rawBody?: string | Uint8Array;
  /** The Accept header; default `application/json`, null sends none. */
  accept?: string | null;
  /** Default `application/json` when a body is sent. */
  contentType?: string;
  /** Frame the body with `Transfer-Encoding: chunked` instead of Content-Length (the generators vary framing). */
  chunked?: boolean;
  /** Send these Authorization headers as separate field lines (two credentials in one request); wins over `authorization`. */
  authorizations?: readonly string[];
  /** Send straight to the server even when the run goes through Prism (Prism cannot forward it). */
  bypassPrism?: boolean;
  /** The request is outside what the interface describes (a non-JSON media type): which 4xx answers it is open. */
  offInterface?: boolean;
  /**
   * Send no earlier than this instant of the kit's clock: the kit waits on purpose first (out of
   * --window-wait, within --deadline), with the semaphore free. A wait that does not fit throws
   * `OverBudget`, so the check ends INCONCLUSIVE for its cell. A request of the rate-limit key
   * that waits at least until its last 429's Retry-After may be sent again.
   */
  notBefore?: { atMs: number; why: string };
  /**
   * Send with the rate-limit key although its last 429 has not been waited out: only for the
   * check that sees what keeping on sending gets (interface section 8, rule 3).
   */
  keepSendingAfter429?: boolean;
  /**
   * Spend the main key to its 429 on purpose (--exhaust-main-key): no pacing by its budget, and
   * its 429 is returned to the check instead of ending it INCONCLUSIVE.
   */
  spendToLimit?: boolean;
}

/** What the runner may watch: each request as sent (unmasked, for a reproducing curl), each wait as it starts. */
export interface ClientHooks {
  onSend?: (
    exchange: Exchange,
    sent: { headers: Record<string, string>; body: string | Uint8Array | undefined },
  ) => void;
  onWait?: (notice: WaitNotice) => void;
}

/** Requests kept in hand before the kit waits for a rate-limit window to reset. */
const reserve = 2;
const maxStoredBody = 8_000;

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
   * `signal` aborts at the run's deadline: requests in flight are cut and waits end, so the run
   * always gets to write its report.
   */
  constructor(
    target: ContractTarget,
    state: RunState,
    log: (message: string) => void,
    signal: AbortSignal = new AbortController().signal,
    hooks: ClientHooks = {},
  ) {
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
    const bypassedPrism = this.#target.viaPrism && apiRequest.bypassPrism === true;
    const url = apiUrl(bypassedPrism ? this.#target.directBaseUrl : this.#target.baseUrl, apiRequest.path);
    const body = apiRequest.rawBody ?? (apiRequest.json === undefined ? undefined : JSON.stringify(apiRequest.json));
    const bodyText = typeof body === 'string' || body === undefined ? body : showBytes(body);
    const headers: Record<string, string> = {};
    // -H headers first: whatever the check sets below wins over them.
    for (const [name, value] of Object.entries(this.#target.extraHeaders)) headers[name.toLowerCase()] = value;
    for (const [name, value] of Object.entries(apiRequest.headers ?? {})) headers[name.toLowerCase()] = value;
    if (apiRequest.accept !== null) headers.accept = apiRequest.accept ?? 'application/json';
    headers['user-agent'] = `petstore-contract (run ${this.#target.runId})`;
    if (apiRequest.authorization !== undefined) headers.authorization = apiRequest.authorization;
    const contentType = apiRequest.contentType ?? (body === undefined ? undefined : 'application/json');
    if (contentType !== undefined) headers['content-type'] = contentType;
    if (apiRequest.authorizations !== undefined) headers.authorization = apiRequest.authorizations.join(', ');
    if (apiRequest.chunked === true && body !== undefined) headers['transfer-encoding'] = 'chunked';
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
    this.#hooks.onSend?.(exchange, { headers, body });
    const judged = this.#state.judge.sent(apiRequest.method, headers, url, this.#target.viaPrism && !bypassedPrism);
    try {
      const response = await request(url, {
        method: apiRequest.method as 'GET',
        headers: wireHeaders(headers, apiRequest),
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

    const response = exchange.response;
    if (this.#target.viaPrism && !bypassedPrism)
      exchange.prismViolations = parseViolations(response.headers['sl-violations']);
    this.#state.exchanges.push(exchange);
    if (apiRequest.method === 'POST' && response.status === 201) this.#state.created += 1;
    budget?.observe({ status: response.status, headers: response.headers, receivedAtMs: exchange.receivedAtMs });

    const prismAnswer = this.#target.viaPrism && !bypassedPrism ? prismOwnAnswer(response) : undefined;
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

/** The headers as undici sends them: repeated Authorization lines as an array; chunked framing left to undici. */
function wireHeaders(headers: Record<string, string>, apiRequest: ApiRequest): Record<string, string | string[]> {
  const { 'transfer-encoding': _framing, ...rest } = headers;
  return apiRequest.authorizations === undefined ? rest : { ...rest, authorization: [...apiRequest.authorizations] };
}

/** A body undici must frame as chunked (it does for an iterable of unknown length): two chunks, so a server joins them. */
function inChunks(body: string | Uint8Array): Readable {
  const bytes = Buffer.from(body);
  const middle = Math.floor(bytes.length / 2);
  return Readable.from([bytes.subarray(0, middle), bytes.subarray(middle)]);
}

/** Bytes as the report shows them: their UTF-8 text, or, when they are not valid UTF-8, that text with U+FFFD and a note. */
function showBytes(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return `${new TextDecoder('utf-8').decode(bytes)} (${bytes.length} bytes, not valid UTF-8)`;
  }
}

/** When a 429 says the client may retry, on the kit's clock; undefined without a usable Retry-After. */
function retryAtMs(response: ExchangeResponse, receivedAtMs: number): number | undefined {
  const clock = serverClock(response.headers, receivedAtMs);
  const retry = parseRetryAfter(response.headers['retry-after'], clock.nowMs);
  return retry.ok ? receivedAtMs + retry.delayMs : undefined;
}

/**
 * Reads a response body up to `maxBytes` and discards the rest (the connection is dropped), so a
 * 100 MB or endless chunked body never fills the kit's memory. `truncatedAtBytes` says it was cut.
 */
async function readBounded(
  body: AsyncIterable<Buffer> & { destroy(error?: Error): unknown },
  maxBytes: number,
): Promise<{ text: string; truncatedAtBytes: number | undefined }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const room = maxBytes - size;
    if (chunk.length > room) {
      chunks.push(chunk.subarray(0, Math.max(0, room)));
      size = maxBytes;
      body.destroy();
      return { text: Buffer.concat(chunks).toString('utf8'), truncatedAtBytes: maxBytes };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { text: Buffer.concat(chunks).toString('utf8'), truncatedAtBytes: undefined };
}

function deadlineReason(signal: AbortSignal): string {
  return typeof signal.reason === 'string' ? signal.reason : 'the run was stopped';
}

/** Connection refused or reset: the server is gone, which says nothing about the rule being checked. */
function isGone(error: unknown): boolean {
  const code = (error as { cause?: NodeJS.ErrnoException }).cause?.code ?? (error as NodeJS.ErrnoException).code;
  return code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE';
}

function toResponse(
  status: number,
  rawHeaders: Record<string, string | string[] | undefined>,
  text: string,
  truncatedAtBytes: number | undefined,
): ExchangeResponse {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(rawHeaders)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  let hasJson = false;
  let json: unknown;
  if (text.trim() !== '' && truncatedAtBytes === undefined) {
    try {
      json = JSON.parse(text);
      hasJson = true;
    } catch {
      // Not JSON: the checks that care say so, with the body as evidence.
    }
  }
  return { status, headers, bodyText: truncate(text, maxStoredBody), hasJson, json, truncatedAtBytes };
}

function describeTransportError(error: unknown, timeoutMs: number): string {
  const name = (error as Error | undefined)?.name;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (
    name === 'TimeoutError' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  ) {
    return `no answer within --timeout ${timeoutMs / 1000} s`;
  }
  const cause = (error as { cause?: NodeJS.ErrnoException } | undefined)?.cause;
  const detail = cause?.code ?? code ?? name ?? 'error';
  return `${detail}: ${(cause ?? (error as Error)).message ?? String(error)}`;
}

function parseViolations(header: string | undefined): PrismViolation[] {
  if (header === undefined) return [];
  try {
    const parsed = JSON.parse(header) as unknown;
    if (!Array.isArray(parsed)) return [];
    return parsed.flatMap((item: unknown) => {
      if (item === null || typeof item !== 'object') return [];
      const record = item as Record<string, unknown>;
      return [
        {
          location: Array.isArray(record.location) ? record.location.map(String) : [],
          severity: typeof record.severity === 'string' ? record.severity : 'Error',
          ...(typeof record.code === 'string' || typeof record.code === 'number' ? { code: record.code } : {}),
          message: typeof record.message === 'string' ? record.message : JSON.stringify(item),
        },
      ];
    });
  } catch {
    return [{ location: [], severity: 'Error', message: `unreadable sl-violations header: ${truncate(header, 200)}` }];
  }
}

/** Prism's own problem+json answers (it refused to forward) look like this; undefined for forwarded ones. */
function prismOwnAnswer(response: ExchangeResponse): string | undefined {
  if (!(response.headers['content-type'] ?? '').startsWith('application/problem+json') || !response.hasJson)
    return undefined;
  const body = response.json as { type?: unknown; title?: unknown };
  if (typeof body?.type !== 'string' || !body.type.startsWith('https://stoplight.io/prism/errors#')) return undefined;
  return `${body.type.split('#')[1] ?? body.type}: ${typeof body.title === 'string' ? body.title : ''}`;
}

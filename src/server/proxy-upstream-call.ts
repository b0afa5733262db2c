import type { ClientRequest, IncomingMessage, ServerResponse } from 'node:http';
import { parseJson } from '../../spec/interface/exact-ids.js';
import type { Logger } from '../core/types.js';
import { sendError } from './proxy-error-answer.js';
import type { PendingExchange } from './proxy-exchange.js';
import { forwardWithFault, type ProxyFaultPlan } from './proxy-faults.js';
import type { ProxyJudge } from './proxy-judge.js';
import type { RequestHead } from './proxy-request-head.js';
import type { Upstream } from './proxy-upstream.js';
import { forwardedHeaders, upstreamContentLength, upstreamRequestHeaders } from './proxy-upstream-message.js';

export type ApiRequestHead = Extract<RequestHead, { kind: 'api' }>;

/** What every forwarded request of one proxy shares. */
export interface Forwarding {
  readonly upstream: Upstream;
  readonly judge: ProxyJudge;
  /** The API's base path on the proxy (`/v1`), as the client addresses it. */
  readonly basePath: string;
  readonly logger: Logger;
  /** Bytes of each answer body kept for judging; a longer body is forwarded whole and not judged. */
  readonly maxJudgedBodyBytes: number;
  /** Time the upstream has to send its answer's headers. */
  readonly upstreamTimeoutMs: number;
}

/** One client request the proxy forwards, once its body is read, its latency waited and the judge told. */
export interface ForwardedRequest {
  request: IncomingMessage;
  response: ServerResponse;
  head: ApiRequestHead;
  body: Buffer;
  /** The judge's handle of the exchange. */
  pending: PendingExchange;
  /** A fault towards the client (proxy-faults.ts); undefined: none. */
  plan: ProxyFaultPlan | undefined;
}

/**
 * One exchange with the upstream: a new message framed by the proxy goes out, the answer streams
 * back to the client (or as the fault plan says) and, once whole, is judged. Exactly one of three ends
 * settles it for the judge: the answer came whole, the upstream failed (no answer, an error, no
 * headers within the timeout: 502 when nothing was written yet), or the client went away first (the
 * upstream exchange is abandoned, not retried).
 *
 * @example new UpstreamCall(forwarding, { request, response, head, body, pending, plan: undefined }).start();
 */
export class UpstreamCall {
  /** The judge has heard how the exchange ended: answered, failed or abandoned. */
  #settled = false;
  #headersTimer: NodeJS.Timeout | undefined = undefined;
  readonly #outgoing: ClientRequest;

  constructor(
    private readonly forwarding: Forwarding,
    private readonly call: ForwardedRequest,
  ) {
    const { request, head, body } = call;
    const { upstream } = forwarding;
    this.#outgoing = upstream.send({
      method: request.method,
      path: `${upstream.url.pathname}${head.apiPath}${head.query}`,
      headers: upstreamRequestHeaders(
        request.rawHeaders,
        upstream.url.host,
        upstreamContentLength(request, head, body),
      ),
    });
  }

  start(): void {
    const { response } = this.call;
    const outgoing = this.#outgoing;
    this.#headersTimer = setTimeout(() => {
      this.#fail(`no answer within ${this.forwarding.upstreamTimeoutMs} ms`);
      outgoing.destroy();
    }, this.forwarding.upstreamTimeoutMs);
    outgoing.end(this.call.body);
    response.on('close', () => {
      if (response.writableFinished) return;
      // The client went away first: the upstream exchange is abandoned (not retried) and judged as nothing.
      outgoing.destroy();
      if (this.#settled) return;
      this.#settled = true;
      clearTimeout(this.#headersTimer);
      this.forwarding.judge.failed(this.call.pending, 'client');
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => this.#fail(error.code ?? error.message));
    outgoing.on('response', (answer) => this.#answer(answer));
  }

  /** The upstream's answer head came: its answer goes to the client, and is judged once whole. */
  #answer(answer: IncomingMessage): void {
    const { response, plan } = this.call;
    const maxBody = this.forwarding.maxJudgedBodyBytes;
    clearTimeout(this.#headersTimer);
    const faulty = plan?.fault !== undefined;
    if (!faulty)
      response.writeHead(answer.statusCode ?? 502, answer.statusMessage, forwardedHeaders(answer.rawHeaders));
    const kept = keptForJudging(answer, maxBody);
    answer.on('error', () => this.#fail('the answer broke off'));
    answer.on('end', () => {
      if (this.#settled) return;
      this.#settled = true;
      this.#judgeAnswer(answer, kept());
    });
    if (faulty) forwardWithFault(answer, this.call, plan!, maxBody);
    else answer.pipe(response);
  }

  #judgeAnswer(answer: IncomingMessage, { bodyText, overBound }: { bodyText: string; overBound: boolean }): void {
    const { judge, logger, basePath, maxJudgedBodyBytes } = this.forwarding;
    const { pending, head } = this.call;
    if (logger.verbose)
      // The path only: a query may carry what a client should not have put there.
      logger.debug(`proxy: ${pending.method} ${basePath}${head.apiPath} -> ${answer.statusCode} (${pending.client})`);
    judge.answered(pending, {
      status: answer.statusCode ?? 0,
      headers: lowerCaseHeaders(answer.headers),
      bodyText,
      ...parsedJson(bodyText),
      truncatedAtBytes: overBound ? maxJudgedBodyBytes : undefined,
    });
  }

  /** No answer from the upstream: a 502 in the Error shape, or the client's connection cut if the answer had begun. */
  #fail(reason: string): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#headersTimer);
    const { request, response, pending, head } = this.call;
    const { judge, logger, basePath, upstream } = this.forwarding;
    judge.failed(pending, 'upstream');
    if (response.headersSent) {
      response.destroy();
      return;
    }
    logger.warn(`proxy: ${request.method} ${basePath}${head.apiPath}: upstream ${reason}`);
    sendError(response, 'bad_gateway', `Failed to get an answer from the upstream ${upstream.label}: ${reason}`);
  }
}

/** Keeps up to `maxBytes` of an answer for judging; past that, nothing (the answer is forwarded whole, unjudged). */
function keptForJudging(answer: IncomingMessage, maxBytes: number): () => { bodyText: string; overBound: boolean } {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let overBound = false;
  answer.on('data', (chunk: Buffer) => {
    if (overBound) return;
    if (keptBytes + chunk.length > maxBytes) {
      overBound = true;
      kept.length = 0;
      return;
    }
    kept.push(chunk);
    keptBytes += chunk.length;
  });
  return () => ({ bodyText: overBound ? '' : Buffer.concat(kept, keptBytes).toString('utf8'), overBound });
}

function lowerCaseHeaders(headers: IncomingMessage['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

/**
 * As the kit reads answers: any body that parses is JSON, whatever its label (the rules judge the label), and ids
 * beyond 2^53 told apart exactly (spec/interface/exact-ids.ts).
 */
function parsedJson(bodyText: string): { hasJson: boolean; json: unknown } {
  if (bodyText.trim() === '') return { hasJson: false, json: undefined };
  try {
    return { hasJson: true, json: parseJson(bodyText) };
  } catch {
    return { hasJson: false, json: undefined };
  }
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ControlAccessPolicy } from '../core/controls/control-access.js';
import { errorBodyText } from '../core/errors.js';
import type { RouteMatch } from '../core/spec/router.js';
import type { ConnectionLedger } from './proxy-connections.js';
import { type ProxyOutputs, serveControl } from './proxy-controls.js';
import { sendError } from './proxy-error-answer.js';
import { answerStatusFault, type ProxyFaults, waitLatency } from './proxy-faults.js';
import { readRequestHead } from './proxy-request-head.js';
import { type ApiRequestHead, type Forwarding, UpstreamCall } from './proxy-upstream-call.js';
import { readRequestBody } from './proxy-upstream-message.js';

/** Everything the judging proxy's request listener needs, made once by `startProxyServer`. */
export interface ProxySetup extends Forwarding {
  readonly route: (method: string, path: string, query?: string) => RouteMatch;
  /** Latency and faults towards the client; undefined: none. */
  readonly faults: ProxyFaults | undefined;
  readonly connections: ConnectionLedger;
  /** Bytes of a request body the proxy reads before forwarding it; a longer one is refused 413. */
  readonly maxRequestBodyBytes: number;
  readonly controlPolicy: ControlAccessPolicy;
  readonly outputs: ProxyOutputs;
}

/**
 * The judging proxy's listeners: each request is refused (ambiguous: 400 and close), forwarded
 * upstream (the API, below the base path), or answered by the proxy (its controls, else 404); bytes
 * that are not HTTP get a 400 after the answers to the requests before them.
 *
 * @example const proxy = new ProxyHandler(setup); createServer(options, proxy.onRequest).on('clientError', proxy.onClientError)
 */
export class ProxyHandler {
  constructor(private readonly setup: ProxySetup) {}

  readonly onRequest = (request: IncomingMessage, response: ServerResponse) => {
    const { connections, basePath, logger } = this.setup;
    connections.track(request, response);
    // Pipelined behind a refused request: never forwarded, never answered; the connection is closing.
    if (connections.isRefused(request.socket)) return void request.resume();
    const head = readRequestHead(request, basePath);
    if (head.kind === 'refused') return this.#refuse(request, response, 400, head.message);
    if (head.kind === 'api')
      return void this.#forward(request, response, head).catch((error: Error) => {
        // A bug, never a client's doing: the Error shape, logged, and the process keeps serving.
        logger.error(`proxy: failed to forward ${request.method} ${basePath}${head.apiPath}: ${error.message}`);
        if (response.headersSent) response.destroy();
        else sendError(response, 'internal_error', 'Failed to forward the request: an error inside the proxy');
      });
    const { path, query } = head;
    request.resume();
    if (path.startsWith('/__mock/'))
      return serveControl(request, response, this.setup.controlPolicy, { path, query, outputs: this.setup.outputs });
    sendError(
      response,
      'not_found',
      `Not found: the proxy serves the API under ${basePath} and its controls under /__mock`,
    );
  };

  readonly onClientError = (error: NodeJS.ErrnoException, socket: Duplex): void => {
    // Bytes that are not HTTP never reach the upstream: a 400 in the Error shape after the answers
    // to the complete requests before them, then the connection ends.
    this.setup.connections.afterAnswers(socket, () => {
      if (socket.writableEnded) return; // node is already closing it, after what it wrote
      if (!socket.writable) return void socket.destroy();
      const body = errorBodyText(
        'bad_request',
        `Failed to read the HTTP request: ${error.code ?? 'malformed request'}`,
      );
      socket.end(
        `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    });
  };

  /** An API request: its body read whole, its latency or `status` fault, then the upstream (UpstreamCall). */
  async #forward(request: IncomingMessage, response: ServerResponse, head: ApiRequestHead): Promise<void> {
    const { route, faults, maxRequestBodyBytes } = this.setup;
    const read = await readRequestBody(request, head.framing, maxRequestBodyBytes);
    // A body that broke off: nothing was sent upstream, and the client is gone or being told 400.
    if (read.kind === 'broken' || response.destroyed) return;
    if (read.kind === 'too-large') {
      this.#refuse(request, response, 413, `the request body is over ${maxRequestBodyBytes} bytes, the proxy's limit`);
      return;
    }
    const routed = route(request.method ?? 'GET', head.apiPath, head.query.replace(/^\?/, ''));
    const plan = faults?.plan(
      request,
      routed.kind === 'operation'
        ? { operationId: routed.operation.operationId, statuses: routed.operation.responses.keys() }
        : null,
    );
    if (!(await waitLatency(request, plan)) || response.destroyed) return;
    if (plan?.fault === 'status') return answerStatusFault(response, plan);
    const pending = this.#judgeSent(request, head, read.body);
    new UpstreamCall(this.setup, { request, response, head, body: read.body, pending, plan }).start();
  }

  /** The request as the judge follows it: its operation, key and first 8 KiB of body, sent now. */
  #judgeSent(request: IncomingMessage, { apiPath, query }: ApiRequestHead, body: Buffer) {
    const routed = this.setup.route(request.method ?? 'GET', apiPath, query.replace(/^\?/, ''));
    const pending = this.setup.judge.sent({
      method: request.method ?? 'GET',
      url: `${this.setup.basePath}${apiPath}${query}`,
      headers: request.headers,
      operation:
        routed.kind === 'operation'
          ? { operationId: routed.operation.operationId, deprecated: routed.operation.deprecated === true }
          : null,
      clientAddress: request.socket.remoteAddress ?? 'unknown',
    });
    pending.body = body.length === 0 ? null : body.subarray(0, 8192).toString('utf8');
    return pending;
  }

  /** A request the proxy will not forward: 400 (or 413) in the Error shape, and the connection closes after it. */
  #refuse(request: IncomingMessage, response: ServerResponse, status: 400 | 413, message: string): void {
    this.setup.connections.refuse(request.socket);
    this.setup.logger.warn(`proxy: refused a request: ${message}`);
    response.setHeader('Connection', 'close');
    sendError(response, status === 400 ? 'bad_request' : 'payload_too_large', `Refused: ${message}`);
  }
}

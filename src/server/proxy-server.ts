import {
  createServer,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import {
  type CredentialPlaces,
  credentialPlacesOf,
  maskCredentialPatterns,
  redactDeep,
} from '../../spec/credential-masking.js';
import { specModelOf } from '../../spec/interface/spec-model.js';
import { readSpecFile } from '../../spec/load-spec.js';
import type { OpenApiDocument } from '../../spec/openapi-types.js';
import type { FaultSettings } from '../core/config/fault-config.js';
import { parseMockConfig } from '../core/config/mock-config.js';
import { type AllowedHosts, type ControlAccessPolicy, controlAccessRefusal } from '../core/controls/control-access.js';
import { type ErrorCode, errorBodyText, errorCatalogue } from '../core/errors.js';
import { compileSpec } from '../core/spec/compiled-spec.js';
import { createRouter } from '../core/spec/router.js';
import { type Logger, silentLogger } from '../core/types.js';
import { proxyPanelResponse } from '../ui/proxy-panel.js';
import { listen } from './listen.js';
import { createConnectionLedger } from './proxy-connections.js';
import { answerStatusFault, createProxyFaults, forwardWithFault, waitLatency } from './proxy-faults.js';
import { createProxyJudge, type ProxyJudge, type ProxyReport } from './proxy-judge.js';
import { proxyReportJunit, proxyReportMarkdown } from './proxy-report.js';
import { type RequestHead, readRequestHead } from './proxy-request-head.js';
import {
  forwardedHeaders,
  readRequestBody,
  upstreamContentLength,
  upstreamRequestHeaders,
} from './proxy-upstream-message.js';

type ApiRequestHead = Extract<RequestHead, { kind: 'api' }>;

/**
 * The judging proxy: an HTTP intermediary in front of a real server (RFC 9110/9112) that judges
 * both sides on the way (src/server/proxy-judge.ts). It reads each client request whole, refuses
 * what is ambiguous (proxy-request-head.ts: 400 and close), and sends the upstream a NEW message
 * it framed itself (proxy-upstream-message.ts): headers as sent except `Host` (the upstream's),
 * the hop-by-hop ones of RFC 9110 section 7.6.1 and the framing; the normalised target; the body
 * with its own Content-Length. Answers stream back. Nothing is added, dropped or retried. An upstream that cannot be reached, refuses, or
 * sends no headers within the timeout is a 502 in the API's Error shape, judged as nothing.
 *
 * @example
 * const proxy = await startProxyServer({ upstream: 'https://staging.example.com/v1', port: 0 });
 * await fetch(`${proxy.baseUrl}/categories`, { headers: { authorization: 'Bearer KEY' } });
 * proxy.report().server.outcome; // 'pass' or 'fail'
 * await proxy.close();
 */
export interface ProxyServerOptions {
  /** The upstream's API base URL, version prefix included (`https://staging.example.com/v1`). */
  upstream: string;
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** The document both sides are judged against; default the kit's Petstore spec. */
  spec?: OpenApiDocument;
  specPath?: string;
  /** Bytes of each answer body kept for judging; a longer body is forwarded whole and not judged. Default 1 MiB. */
  maxJudgedBodyBytes?: number;
  /** Bytes of a request body the proxy reads before forwarding it; a longer one is refused 413. Default 1 MiB. */
  maxRequestBodyBytes?: number;
  /** Time the upstream has to send its answer's headers. Default 30 s. */
  upstreamTimeoutMs?: number;
  /** Extra CA certificates for a TLS upstream (PEM). */
  ca?: string | Buffer;
  logger?: Logger;
  now?: () => number;
  /**
   * Names besides loopback and the bound address that the controls answer to (`Host`), as the
   * mock's `allowedHosts`. Default none: a DNS-rebinding page gets 403.
   */
  allowedHosts?: AllowedHosts;
  /** Latency and faults towards the client (proxy-faults.ts, decision 042), drawn from `seed` (default 1). */
  faults?: FaultSettings;
  seed?: number;
}

export interface RunningProxyServer {
  origin: string;
  /** `http://127.0.0.1:PORT/v1`: point the client here. */
  baseUrl: string;
  port: number;
  server: Server;
  judge: ProxyJudge;
  report(): ProxyReport;
  /** Stops accepting, lets in-flight exchanges finish (up to `graceMs`), closes upstream connections. */
  close(graceMs?: number): Promise<void>;
}

export { forwardedHeaders } from './proxy-upstream-message.js';

export async function startProxyServer(options: ProxyServerOptions): Promise<RunningProxyServer> {
  const upstream = parseUpstream(options.upstream);
  const logger = options.logger ?? silentLogger;
  const spec = compileSpec(options.spec ?? (await readSpecFile(options.specPath)));
  const route = createRouter(spec.operations);
  const basePath = spec.basePath;
  const credentialPlaces = credentialPlacesOf(spec.document);
  const judge = createProxyJudge({
    spec: specModelOf(spec.definition),
    credentialPlaces,
    banPolicy: banPolicyOfDefaults(),
    ...(options.now ? { now: options.now } : {}),
  });
  const maxBody = options.maxJudgedBodyBytes ?? 1024 * 1024;
  const timeoutMs = options.upstreamTimeoutMs ?? 30_000;
  const isTls = upstream.protocol === 'https:';
  const agent = isTls
    ? new HttpsAgent({ keepAlive: true, ...(options.ca !== undefined ? { ca: options.ca } : {}) })
    : new HttpAgent({ keepAlive: true });
  const send = isTls ? httpsRequest : httpRequest;
  const upstreamLabel = `${upstream.origin}${upstream.pathname}`;
  // Every output is built from this report (the controls, the page, the --report file): masked once more at the edge.
  const report = () => maskedOutput(judge.report(upstreamLabel), credentialPlaces);
  // The bind decides who reaches the proxy (docs/proxy.md); Host, Origin and Sec-Fetch-Site are checked as the mock's.
  const controlPolicy: ControlAccessPolicy = {
    allowRemoteControl: true,
    allowedHosts: options.allowedHosts ?? [],
    controlToken: undefined,
  };

  const faults = createProxyFaults(options.faults, options.seed ?? 1);
  const connections = createConnectionLedger();
  const maxRequestBody = options.maxRequestBodyBytes ?? 1024 * 1024;

  /** The request as the judge follows it: its operation, key and first 8 KiB of body, sent now. */
  const judgeSent = (request: IncomingMessage, { apiPath, query }: ApiRequestHead, body: Buffer) => {
    const routed = route(request.method ?? 'GET', apiPath, query.replace(/^\?/, ''));
    const pending = judge.sent({
      method: request.method ?? 'GET',
      url: `${basePath}${apiPath}${query}`,
      headers: request.headers,
      operation:
        routed.kind === 'operation'
          ? { operationId: routed.operation.operationId, deprecated: routed.operation.deprecated === true }
          : null,
      clientAddress: request.socket.remoteAddress ?? 'unknown',
    });
    pending.body = body.length === 0 ? null : body.subarray(0, 8192).toString('utf8');
    return pending;
  };

  const forward = async (request: IncomingMessage, response: ServerResponse, head: ApiRequestHead) => {
    const { apiPath, query } = head;
    const read = await readRequestBody(request, head.framing, maxRequestBody);
    // A body that broke off: nothing was sent upstream, and the client is gone or being told 400.
    if (read.kind === 'broken' || response.destroyed) return;
    if (read.kind === 'too-large') {
      refuse(request, response, 413, `the request body is over ${maxRequestBody} bytes, the proxy's limit`);
      return;
    }
    const routed = route(request.method ?? 'GET', apiPath, query.replace(/^\?/, ''));
    const plan = faults?.plan(
      request,
      routed.kind === 'operation'
        ? { operationId: routed.operation.operationId, statuses: routed.operation.responses.keys() }
        : null,
    );
    if (!(await waitLatency(request, plan)) || response.destroyed) return;
    if (plan?.fault === 'status') return answerStatusFault(response, plan);
    const pending = judgeSent(request, head, read.body);
    const outgoing = send({
      agent,
      protocol: upstream.protocol,
      hostname: upstream.hostname,
      port: upstream.port,
      method: request.method,
      path: `${upstream.pathname}${apiPath}${query}`,
      headers: upstreamRequestHeaders(
        request.rawHeaders,
        upstream.host,
        upstreamContentLength(request, head, read.body),
      ),
      setHost: false,
    });
    let settled = false;
    let headersTimer: NodeJS.Timeout | undefined;
    const fail = (reason: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(headersTimer);
      judge.failed(pending, 'upstream');
      if (response.headersSent) {
        response.destroy();
        return;
      }
      logger.warn(`proxy: ${request.method} ${basePath}${apiPath}: upstream ${reason}`);
      sendError(response, 'bad_gateway', `Failed to get an answer from the upstream ${upstreamLabel}: ${reason}`);
    };
    headersTimer = setTimeout(() => {
      fail(`no answer within ${timeoutMs} ms`);
      outgoing.destroy();
    }, timeoutMs);
    outgoing.end(read.body);
    response.on('close', () => {
      if (response.writableFinished) return;
      // The client went away first: the upstream exchange is abandoned (not retried) and judged as nothing.
      outgoing.destroy();
      if (settled) return;
      settled = true;
      clearTimeout(headersTimer);
      judge.failed(pending, 'client');
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => fail(error.code ?? error.message));
    outgoing.on('response', (answer) => {
      clearTimeout(headersTimer);
      const faulty = plan?.fault !== undefined;
      if (!faulty)
        response.writeHead(answer.statusCode ?? 502, answer.statusMessage, forwardedHeaders(answer.rawHeaders));
      const kept = keptForJudging(answer, maxBody);
      answer.on('error', () => fail('the answer broke off'));
      answer.on('end', () => {
        if (settled) return;
        settled = true;
        const { bodyText, overBound } = kept();
        if (logger.verbose)
          // The path only: a query may carry what a client should not have put there.
          logger.debug(`proxy: ${pending.method} ${basePath}${apiPath} -> ${answer.statusCode} (${pending.client})`);
        judge.answered(pending, {
          status: answer.statusCode ?? 0,
          headers: lowerCaseHeaders(answer.headers),
          bodyText,
          ...parsedJson(bodyText),
          truncatedAtBytes: overBound ? maxBody : undefined,
        });
      });
      if (faulty) forwardWithFault(request, answer, response, plan!, maxBody);
      else answer.pipe(response);
    });
  };

  /** A request the proxy will not forward: 400 (or 413) in the Error shape, and the connection closes after it. */
  const refuse = (request: IncomingMessage, response: ServerResponse, status: 400 | 413, message: string) => {
    connections.refuse(request.socket);
    logger.warn(`proxy: refused a request: ${message}`);
    response.setHeader('Connection', 'close');
    sendError(response, status === 400 ? 'bad_request' : 'payload_too_large', `Refused: ${message}`);
  };

  const server = createServer({ requireHostHeader: false, keepAliveTimeout: 5_000 }, (request, response) => {
    connections.track(request, response);
    // Pipelined behind a refused request: never forwarded, never answered; the connection is closing.
    if (connections.isRefused(request.socket)) return void request.resume();
    const head = readRequestHead(request, basePath);
    if (head.kind === 'refused') return refuse(request, response, 400, head.message);
    if (head.kind === 'api')
      return void forward(request, response, head).catch((error: Error) => {
        // A bug, never a client's doing: the Error shape, logged, and the process keeps serving.
        logger.error(`proxy: failed to forward ${request.method} ${basePath}${head.apiPath}: ${error.message}`);
        if (response.headersSent) response.destroy();
        else sendError(response, 'internal_error', 'Failed to forward the request: an error inside the proxy');
      });
    const { path, query } = head;
    request.resume();
    if (path.startsWith('/__mock/')) {
      const refusal = controlAccessRefusal(controlHeadOf(request), controlPolicy, { token: false });
      if (refusal !== undefined) return sendError(response, 'control_forbidden', refusal);
      const exportLines = () => maskedOutput(judge.exportLines(), credentialPlaces);
      answerControl(path, new URLSearchParams(query.slice(1)), response, { exportLines, report });
      return;
    }
    sendError(
      response,
      'not_found',
      `Not found: the proxy serves the API under ${basePath} and its controls under /__mock`,
    );
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    // Bytes that are not HTTP never reach the upstream: a 400 in the Error shape after the answers
    // to the complete requests before them, then the connection ends.
    connections.afterAnswers(socket, () => {
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
  });
  const port = options.port ?? 4010;
  const host = options.host ?? '127.0.0.1';
  await listen(server, port, host);
  const address = server.address() as AddressInfo;
  const origin = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  return {
    origin,
    baseUrl: `${origin}${basePath}`,
    port: address.port,
    server,
    judge,
    report,
    close: (graceMs = 10_000) =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), graceMs).unref();
        server.close(() => {
          clearTimeout(force);
          agent.destroy();
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}

/** `/__mock/report` (JSON, `?format=junit|markdown`), `/__mock/health`, `/__mock/requests?format=jsonl`, `/__mock/ui`. */
function answerControl(
  path: string,
  query: URLSearchParams,
  response: ServerResponse,
  proxy: { exportLines: () => string[]; report: () => ProxyReport },
): void {
  const send = (status: number, contentType: string, body: string, extra: Record<string, string> = {}) => {
    response.writeHead(status, {
      'Content-Type': contentType,
      'Content-Length': Buffer.byteLength(body),
      'Cache-Control': 'no-store',
      ...extra,
    });
    response.end(body);
  };
  if (path === '/__mock/health') {
    send(200, 'application/json', JSON.stringify({ status: 'ok', mode: 'proxy' }));
  } else if (path === '/__mock/report') {
    const format = query.get('format') ?? 'json';
    if (format === 'json') send(200, 'application/json', `${JSON.stringify(proxy.report(), null, 2)}\n`);
    else if (format === 'junit') send(200, 'application/xml; charset=utf-8', proxyReportJunit(proxy.report()));
    else if (format === 'markdown') send(200, 'text/markdown; charset=utf-8', proxyReportMarkdown(proxy.report()));
    else sendError(response, 'validation_failed', 'Invalid query parameter format: expected json, junit or markdown');
  } else if (path === '/__mock/requests') {
    const lines = proxy.exportLines();
    if (query.get('format') !== 'jsonl')
      sendError(response, 'validation_failed', 'Invalid query parameter format: the proxy exports jsonl');
    else send(200, 'application/x-ndjson', lines.length === 0 ? '' : `${lines.join('\n')}\n`);
  } else if (path === '/__mock/ui') {
    const page = proxyPanelResponse(proxy.report());
    send(page.status, page.headers['Content-Type']!, page.body, page.headers);
  } else {
    sendError(response, 'not_found', `Not found: ${path} (the proxy's controls: report, requests, health, ui)`);
  }
}

/** What the shared control guard reads of a request that reached the proxy. */
function controlHeadOf(request: IncomingMessage) {
  const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
  return {
    method: request.method ?? 'GET',
    headers: {
      host: first(request.headers.host),
      origin: first(request.headers.origin),
      'sec-fetch-site': first(request.headers['sec-fetch-site']),
    },
    clientAddress: request.socket.remoteAddress ?? '',
    serverAddress: request.socket.localAddress,
  };
}

/** The one masking step at the proxy's output edge: what looks like a credential, in every string. */
function maskedOutput<T>(value: T, places: CredentialPlaces): T {
  return redactDeep(value, (text) => maskCredentialPatterns(text, places));
}

function sendError(response: ServerResponse, code: ErrorCode, message: string): void {
  const body = errorBodyText(code, message);
  response.writeHead(errorCatalogue[code].status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
  });
  response.end(body);
}

/** The upstream base URL, checked: http(s), no credentials in it, no query. Throws one line naming the problem. */
export function parseUpstream(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(
      `Failed to read the upstream URL "${text}": not an absolute URL such as https://staging.example.com/v1`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`Failed to read the upstream URL "${text}": only http and https are supported`);
  if (url.username !== '' || url.password !== '')
    throw new Error('Failed to read the upstream URL: it carries credentials; send them per request instead');
  if (url.search !== '' || url.hash !== '')
    throw new Error(`Failed to read the upstream URL "${text}": a base URL has no query or fragment`);
  url.pathname = url.pathname.replace(/\/+$/, '');
  return url;
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

/** As the kit reads answers: any body that parses is JSON, whatever its label (the rules judge the label). */
function parsedJson(bodyText: string): { hasJson: boolean; json: unknown } {
  if (bodyText.trim() === '') return { hasJson: false, json: undefined };
  try {
    return { hasJson: true, json: JSON.parse(bodyText) };
  } catch {
    return { hasJson: false, json: undefined };
  }
}

/** The lab judges clients of the proxy against the mock's default ban policy (the interface leaves it open). */
function banPolicyOfDefaults() {
  const { ban } = parseMockConfig({});
  return { enabled: ban.enabled, threshold: ban.threshold, durationMs: ban.durationSeconds * 1000 };
}

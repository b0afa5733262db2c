import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ControlAccessPolicy, controlAccessRefusal } from '../core/controls/control-access.js';
import { proxyPanelResponse } from '../ui/proxy-panel.js';
import { sendError } from './proxy-error-answer.js';
import type { ProxyReport } from './proxy-judge.js';
import { proxyReportJunit, proxyReportMarkdown } from './proxy-report.js';

/** What the proxy's controls show: its report and its traffic export, both masked at the edge. */
export interface ProxyOutputs {
  exportLines: () => string[];
  report: () => ProxyReport;
}

/**
 * A request for the proxy's controls (`/__mock/...`): refused 403 as the mock's controls are (Host,
 * Origin, Sec-Fetch-Site), else answered (answerControl).
 */
export function serveControl(
  request: IncomingMessage,
  response: ServerResponse,
  policy: ControlAccessPolicy,
  target: { path: string; query: string; outputs: ProxyOutputs },
): void {
  const refusal = controlAccessRefusal(controlHeadOf(request), policy, { token: false });
  if (refusal !== undefined) sendError(response, 'control_forbidden', refusal);
  else answerControl(target.path, new URLSearchParams(target.query.slice(1)), response, target.outputs);
}

/** `/__mock/report` (JSON, `?format=junit|markdown`), `/__mock/health`, `/__mock/requests?format=jsonl`, `/__mock/ui`. */
function answerControl(path: string, query: URLSearchParams, response: ServerResponse, proxy: ProxyOutputs): void {
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

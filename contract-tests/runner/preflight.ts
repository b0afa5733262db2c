import { Agent, request } from 'undici';
import { maskSecret } from '../../spec/credential-masking.js';
import { parseRetryAfter } from '../../spec/interface/rate-limit-headers.js';
import { apiUrl } from '../lib/api-url.js';
import type { ObservedBudget } from '../lib/contract-target.js';
import type { Exchange } from '../lib/exchange.js';
import { ContractRunError } from './contract-run-error.js';

/**
 * The preflight: a run that cannot mean anything stops before the suite starts, with one line and
 * exit 2, instead of fifty failed checks a minute later. It stops only when nothing the suite
 * would say could be meaningful:
 *
 * - the server cannot be reached (refused, DNS, TLS, no answer within --timeout);
 * - the server refuses `--api-key` (401 or 403 to an authenticated `GET /categories`);
 * - no operation answers like an API: 404, a redirect, 5xx or an HTML page to every
 *   authenticated GET the interface names (a base URL without `/v1`, a web app, a proxy's sign-in
 *   page, a gateway whose upstream is down). It then probes the usual mistakes and suggests the
 *   base URL that does answer ("did you mean .../v1?").
 *
 * Anything else goes on to the suite, which reports it rule by rule with evidence: a 429 (the
 * rate-limit checks judge it), a 401 without an Error body to a missing key, a 400, an
 * operation missing while another answers. The normal case costs one request.
 *
 * @example const budget = await preflight({ baseUrl: 'http://127.0.0.1:4010/v1', apiKey: 'demo-pro', timeoutMs: 10_000, extraHeaders: {} });
 */
export async function preflight(options: PreflightOptions): Promise<PreflightResult> {
  const agent = new Agent({
    connect: { timeout: options.timeoutMs },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });
  const probe = (baseUrl: string, path: string) => probeOnce(agent, options, apiUrl(baseUrl, path));
  try {
    const first = await probe(options.baseUrl, '/categories').catch((error: unknown) => {
      throw new ContractRunError(
        'unreachable',
        `Failed to reach ${options.baseUrl}: ${transportReason(error, options.timeoutMs)}`,
      );
    });
    if (first.status === 401 || first.status === 403) {
      throw new ContractRunError('refused', refusedKeyMessage('--api-key', options.apiKey, first));
    }
    if (kindOf(first) === 'api') return resultOf(first);

    // GET /categories did not answer like an API: do the other operations? One that does (or
    // that asks for a key) means the server is there and the suite has something to judge.
    const others = await Promise.all(
      otherOperationPaths.map((path) => probe(options.baseUrl, path).catch(() => undefined)),
    );
    if (
      others.some(
        (answer) => answer === undefined || kindOf(answer) === 'api' || answer.status === 401 || answer.status === 403,
      )
    ) {
      return resultOf(first);
    }
    const answers = [first, ...(others as ProbeAnswer[])];
    const suggestion =
      kindOf(first) === 'server-error'
        ? undefined
        : await suggestBaseUrl(options.baseUrl, (candidate) => probe(candidate, '/categories'));
    throw new ContractRunError('not-the-api', notTheApiMessage(options.baseUrl, answers, suggestion));
  } finally {
    await agent.close();
  }
}

/** What the preflight's answer tells the run: the main key's budget, and its status. */
export interface PreflightResult extends ObservedBudget {
  status: number;
  /** The answer's Retry-After, when it was a 429. */
  retryAfter: string | undefined;
  url: string;
}

function resultOf(answer: ProbeAnswer): PreflightResult {
  return {
    status: answer.status,
    remaining: answer.header('x-ratelimit-remaining'),
    reset: answer.header('x-ratelimit-reset'),
    receivedAtMs: answer.receivedAtMs,
    retryAfter: answer.status === 429 ? answer.header('retry-after') : undefined,
    url: answer.url,
  };
}

/**
 * A 429 to the preflight does not stop the run (the rate-limit checks judge a server that answers
 * 429 to everything), but the first seconds should say what it means for this run: a key rate
 * limited or banned for longer than --max-wait leaves its checks INCONCLUSIVE.
 *
 * @example limitedKeyNotice({ status: 429, retryAfter: '3600', url, ... }, 120) // 'petstore-contract: GET … answered 429 to --api-key (Retry-After 3600 s): …'
 */
export function limitedKeyNotice(result: PreflightResult, maxWaitSeconds: number): string | undefined {
  if (result.status !== 429) return undefined;
  const retry = parseRetryAfter(result.retryAfter, result.receivedAtMs);
  const seconds = retry.ok ? Math.ceil(retry.delayMs / 1000) : undefined;
  const fits = seconds !== undefined && seconds <= maxWaitSeconds;
  return `petstore-contract: GET ${result.url} answered 429 to --api-key (Retry-After ${seconds === undefined ? (result.retryAfter === undefined ? 'missing' : JSON.stringify(result.retryAfter)) : `${seconds} s`}): the key is rate-limited or banned; ${fits ? `the checks that need it wait for it (--max-wait ${maxWaitSeconds} s)` : `the checks that need it will be INCONCLUSIVE unless it recovers within --max-wait ${maxWaitSeconds} s; run again later, or with another key`}`;
}

export interface PreflightOptions {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  /** -H headers: a gateway may need them to route the probe at all. */
  extraHeaders: Record<string, string>;
}

/**
 * The rate-limit key's first answer of the run: a 401 or 403 means the key given by
 * --rate-limit-key is refused, and the 429 checks it was given for cannot run. Exit 2, one line.
 *
 * @example assertRateLimitKeyAccepted(firstExchange, 'demo-free')
 */
export function assertRateLimitKeyAccepted(exchange: Exchange, rateLimitKey: string): void {
  const response = exchange.response;
  if (response === undefined || (response.status !== 401 && response.status !== 403)) return;
  const answer: ProbeAnswer = {
    url: exchange.request.url,
    status: response.status,
    header: (name) => response.headers[name],
    body: response.bodyText,
    receivedAtMs: exchange.receivedAtMs,
  };
  throw new ContractRunError(
    'refused',
    `${refusedKeyMessage('--rate-limit-key', rateLimitKey, answer)}, or leave --rate-limit-key out (the 429 checks are then skipped)`,
  );
}

/** The operations besides listCategories that an authenticated GET can reach without changing anything. */
const otherOperationPaths = ['/store/orders', '/pets/1'];

interface ProbeAnswer {
  url: string;
  status: number;
  header(name: string): string | undefined;
  /** The start of the body (at most 4 KiB), for messages. */
  body: string;
  receivedAtMs: number;
}

/** How an answer looks from outside: like an API, or like something else standing at the base URL. */
type AnswerKind = 'api' | 'not-found' | 'redirect' | 'server-error' | 'html';

function kindOf(answer: ProbeAnswer): AnswerKind {
  if (answer.status === 404) return 'not-found';
  if (answer.status >= 300 && answer.status < 400) return 'redirect';
  if (answer.status >= 500) return 'server-error';
  if (isHtml(answer)) return 'html';
  return 'api';
}

/**
 * An HTML page: labelled HTML, or a document that starts like one. A JSON body labelled text/html is the API
 * with a wrong label (Express's res.send of a string), not a page: the run goes on and every.json-content-type
 * names what is wrong, instead of the run refusing the base URL.
 */
function isHtml(answer: ProbeAnswer): boolean {
  const type = (answer.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'text/html' || type === 'application/xhtml+xml') return !parsesAsJson(answer.body);
  return /^\s*(<!doctype html|<html[\s>])/i.test(answer.body.replace(/^\ufeff/, ''));
}

/** Whether a probe's body (at most its first 4 KiB) is a JSON array or object. */
function parsesAsJson(body: string): boolean {
  if (!/^\s*[[{]/.test(body)) return false;
  try {
    JSON.parse(body);
    return true;
  } catch {
    return false;
  }
}

async function probeOnce(agent: Agent, options: PreflightOptions, url: string): Promise<ProbeAnswer> {
  const response = await request(url, {
    method: 'GET',
    headers: {
      ...options.extraHeaders,
      authorization: `Bearer ${options.apiKey}`,
      accept: 'application/json',
      'user-agent': 'petstore-contract (preflight)',
    },
    dispatcher: agent,
    signal: AbortSignal.timeout(options.timeoutMs),
  });
  // The start of the body is all a message needs; the rest is dropped with the connection.
  let body = '';
  try {
    for await (const chunk of response.body) {
      body += (chunk as Buffer).toString('utf8');
      if (body.length >= 4_096) break;
    }
  } catch {
    // A body cut short says nothing the status does not.
  } finally {
    response.body.destroy();
  }
  const receivedAtMs = Date.now();
  return {
    url,
    status: response.statusCode,
    header: (name) => {
      const value = response.headers[name];
      return Array.isArray(value) ? value[0] : value;
    },
    body: body.slice(0, 4_096),
    receivedAtMs,
  };
}

/**
 * Base URLs a user most likely meant, in order: the version prefix added, another version
 * replaced by /v1, an operation path cut off, the origin's /v1. The first that answers like the
 * API (or asks for a key) is the suggestion.
 */
export function candidateBaseUrls(baseUrl: string): string[] {
  const url = new URL(baseUrl);
  const path = url.pathname.replace(/\/+$/, '');
  const candidates: string[] = [];
  const operationTail = /\/(categories|store\/orders|pets\/[^/]+)$/.exec(path);
  if (operationTail) candidates.push(`${url.origin}${path.slice(0, operationTail.index)}`);
  if (/\/v\d+$/.test(path) && !path.endsWith('/v1')) candidates.push(`${url.origin}${path.replace(/\/v\d+$/, '/v1')}`);
  if (!/\/v\d+(\/|$)/.test(path)) candidates.push(`${url.origin}${path}/v1`);
  candidates.push(`${url.origin}/v1`);
  return [...new Set(candidates)].filter((candidate) => candidate !== `${url.origin}${path}`);
}

async function suggestBaseUrl(
  baseUrl: string,
  probe: (candidate: string) => Promise<ProbeAnswer>,
): Promise<{ baseUrl: string; answer: ProbeAnswer } | undefined> {
  const candidates = candidateBaseUrls(baseUrl);
  const answers = await Promise.all(candidates.map((candidate) => probe(candidate).catch(() => undefined)));
  const index = answers.findIndex(
    (answer) => answer !== undefined && (kindOf(answer) === 'api' || answer.status === 401 || answer.status === 403),
  );
  return index === -1 ? undefined : { baseUrl: candidates[index]!, answer: answers[index]! };
}

function refusedKeyMessage(flag: string, key: string, answer: ProbeAnswer): string {
  return `Failed to use ${flag} ${maskSecret(key)}: the server refused it (GET ${answer.url} answered ${answer.status}${describeBody(answer)}); check the key and that it belongs to this server`;
}

function notTheApiMessage(
  baseUrl: string,
  answers: ProbeAnswer[],
  suggestion: { baseUrl: string; answer: ProbeAnswer } | undefined,
): string {
  const kinds = new Set(answers.map(kindOf));
  const only = kinds.size === 1 ? [...kinds][0] : undefined;
  const paths = ['/categories', ...otherOperationPaths].join(', ');
  const statuses = [...new Set(answers.map((answer) => answer.status))].join('/');
  const what =
    only === 'not-found'
      ? `it answers 404 to every operation (GET ${paths})`
      : only === 'redirect'
        ? `it answers every operation with a redirect (${answers[0]!.status} to ${answers[0]!.header('location') ?? 'no Location'}): a sign-in page or a proxy in front of the API? The kit does not follow redirects`
        : only === 'server-error'
          ? `it answers ${statuses} to every operation (GET ${paths})${describeBody(answers[0]!)}: the server cannot serve requests now`
          : only === 'html'
            ? `it serves an HTML page, not the API (GET ${paths} answered ${statuses} ${answers[0]!.header('content-type') ?? 'text/html'}${pageTitle(answers[0]!)}): a web app's or a proxy's address?`
            : `no operation answers like the API (GET ${answers.map((answer) => `${new URL(answer.url).pathname} ${answer.status}${kindOf(answer) === 'html' ? ' HTML' : ''}`).join(', ')})`;
  const hint =
    suggestion !== undefined
      ? `; did you mean --base-url ${suggestion.baseUrl}? (GET ${suggestion.answer.url} answered ${suggestion.answer.status})`
      : only === 'server-error'
        ? ''
        : '; the base URL includes the version prefix, e.g. https://api.example.com/v1';
  return `Failed to use --base-url ${baseUrl}: ${what}${hint}`;
}

/** ` with "code": message` of an Error body, or the start of any other body. */
function describeBody(answer: ProbeAnswer): string {
  try {
    const json = JSON.parse(answer.body) as { code?: unknown; message?: unknown };
    if (
      json !== null &&
      typeof json === 'object' &&
      (typeof json.code === 'string' || typeof json.message === 'string')
    ) {
      return `: ${[json.code, json.message]
        .filter((part) => typeof part === 'string')
        .map((part) => shorten(part as string, 120))
        .join(': ')}`;
    }
  } catch {
    // Not JSON.
  }
  const text = answer.body.replace(/\s+/g, ' ').trim();
  if (text === '' || isHtml(answer)) return pageTitle(answer);
  return `: ${shorten(text, 120)}`;
}

function pageTitle(answer: ProbeAnswer): string {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(answer.body)?.[1]?.replace(/\s+/g, ' ').trim();
  return title ? ` "${shorten(title, 80)}"` : '';
}

function shorten(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}

/** Why a request got no answer, in the words a user can act on. */
export function transportReason(error: unknown, timeoutMs: number): string {
  const cause = (error as { cause?: NodeJS.ErrnoException }).cause;
  const code = cause?.code ?? (error as NodeJS.ErrnoException).code;
  const name = (error as Error).name;
  const message = (cause ?? (error as Error)).message ?? String(error);
  if (name === 'TimeoutError' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT')
    return `no answer within ${timeoutMs / 1000} s`;
  if (code === 'ECONNREFUSED') return 'connection refused (is the server running, and is the port right?)';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME')
    return 'the host name does not resolve (DNS)';
  if (name === 'HTTPParserError') return `the answer is not HTTP (${message}): an http URL on an https port?`;
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE')
    return `the connection was closed before an answer (${code}: ${message}): an http URL on an https port, or a proxy in the way?`;
  if (
    code !== undefined &&
    (/^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|EPROTO$)/.test(code) ||
      /certificate|SSL routines/i.test(message))
  ) {
    // OpenSSL's text ("...:SSL routines:ssl3_get_record:wrong version number:...") holds one useful part.
    const detail = /SSL routines:[^:]*:([^:]+)/.exec(message)?.[1] ?? message;
    const hint = /wrong version number|packet length too long|unknown protocol/i.test(message)
      ? 'is it an http server? (the URL says https)'
      : 'a certificate this machine does not trust? (NODE_EXTRA_CA_CERTS=ca.pem adds a CA)';
    return `TLS failed (${code}: ${detail}): ${hint}`;
  }
  return `${code ?? name}: ${message}`;
}

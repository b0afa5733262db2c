import {
  type CredentialPlaces,
  commonCredentialPlaces,
  createRedactor,
  maskQueryCredentials,
  secretsOfRequest,
} from '../../spec/credential-masking.js';
import { bearerToken } from '../../spec/interface/bearer.js';
import { judgeResponse, ruleCatalogue } from '../../spec/interface/catalogue.js';
import { keyDigestHex } from '../../spec/interface/key-id.js';
import { isCorsPreflight, KeySequences, type SequenceTicket } from '../../spec/interface/key-sequences.js';
import type { ObservedResponse, RuleViolation } from '../../spec/interface/observed.js';
import { planOfMinuteLimit } from '../../spec/interface/plans.js';
import { readBudget } from '../../spec/interface/rate-limit-headers.js';
import { ResourceSequences, type ResourceTicket } from '../../spec/interface/resource-sequences.js';
import type { SpecModel } from '../../spec/interface/spec-model.js';
import { targetPath } from '../../spec/url-parts.js';
import type { MockResponse } from '../core/types.js';
import { clientVerdicts } from '../lab/client-judge.js';
import { buildLabReport, createLabSessionState, type LabSessionState, observeLab } from '../lab/lab-report.js';
import type { LabBanPolicy, LabLimits } from '../lab/lab-types.js';
import { anonymousPseudonym, keyPseudonymFromDigest, toExportLine } from '../lab/replay-input.js';
import { observeExchange } from '../lab/response-observer.js';
import type { ProxyReport } from '../ui/proxy-types.js';
import { type JudgedAnswer, RuleTallies } from './proxy-tallies.js';

/**
 * The judge of the judging proxy: every answer the upstream gives is judged by the kit's own rules
 * (spec/interface/: one response at a time, and across the answers of each key), and every
 * request is fed to the lab's client judge exactly as the mock feeds it. Keys are never kept: a key
 * is its SHA-256 digest and shown as its export pseudonym (`client-<12 hex>`). Memory is bounded
 * whatever the traffic: at most `maxKeys` keys followed, `maxEvidence` examples per rule (the rest
 * counted), `maxExportLines` lines of the traffic export (the oldest dropped, and counted).
 *
 * @example
 * const judge = createProxyJudge({ spec: specModel, banPolicy });
 * const pending = judge.sent({ method: 'GET', url: '/v1/categories', path: '/categories', headers, operation, clientAddress: '127.0.0.1' });
 * judge.answered(pending, { status: 200, headers, bodyText, hasJson: true, json, truncatedAtBytes: undefined });
 * judge.report().server.outcome; // 'pass'
 */
export interface ProxyJudgeOptions {
  spec: SpecModel;
  banPolicy: LabBanPolicy;
  now?: () => number;
  maxKeys?: number;
  maxEvidence?: number;
  maxExportLines?: number;
  /** Where the document's requests carry keys: their values never reach the report or the export. */
  credentialPlaces?: CredentialPlaces;
}

/** One request as it left for the upstream; the judge's handle until its answer arrives. */
interface PendingExchange {
  seq: number;
  sentAtMs: number;
  method: string;
  /** As the client sent it, below the proxy's origin: `/v1/categories?x=1`. */
  url: string;
  operationId: string | null;
  deprecated: boolean;
  keyDigest: string | null;
  /** The pseudonym the key (or the anonymous address) is shown as. */
  client: string;
  clientAddress: string;
  prefer: string | null;
  /** A browser's CORS preflight: forwarded, judged on neither side. */
  preflight: boolean;
  contentType: string | null;
  /** The first bytes of the request body, for the export (set by the forwarder once read). */
  body: string | null;
  /** Where the request stood in its key's sequence when it left: decides whether the pair rules apply. */
  sequence: SequenceTicket<JudgedAnswer>;
  /** Where the request stood among the categories created before it left (data.round-trip). */
  resources: ResourceTicket;
  /** Cleared when the answer is judged; only the key is held, never the bearer token. */
  key: string | null;
  /** Every credential the request carried (header, query, cookie), held and cleared with `key`. */
  secrets: readonly string[];
}

export type { ProxyReport, ServerRuleResult } from '../ui/proxy-types.js';

export interface ProxyJudge {
  sent(request: {
    method: string;
    url: string;
    headers: Readonly<Record<string, string | string[] | undefined>>;
    operation: { operationId: string; deprecated: boolean } | null;
    clientAddress: string;
  }): PendingExchange;
  answered(pending: PendingExchange, response: ObservedResponse): void;
  /**
   * No answer reached the client: the upstream gave none (`upstream`, answered 502) or the client went
   * away first (`client`). The request is counted, nothing is judged, the key's sequence is broken.
   */
  failed(pending: PendingExchange, side: 'upstream' | 'client'): void;
  report(upstream: string): ProxyReport;
  /** The traffic as JSON lines `petstore-mock replay` reads (keys as pseudonyms). */
  exportLines(): string[];
  /** Did a side break a rule? */
  broke(side: 'server' | 'client'): boolean;
}

export function createProxyJudge(options: ProxyJudgeOptions): ProxyJudge {
  const now = options.now ?? (() => Date.now());
  const maxKeys = options.maxKeys ?? 10_000;
  const maxEvidence = options.maxEvidence ?? 10;
  const maxExportLines = options.maxExportLines ?? 10_000;
  const startedAtMs = now();
  const tallies = new RuleTallies(ruleCatalogue, maxEvidence);
  const information = new Set<string>();
  const maxInformation = 20;
  const sequences = new KeySequences<JudgedAnswer>(maxKeys);
  // The round trip of every created category in every later list of a key (data.round-trip).
  const resources = new ResourceSequences<JudgedAnswer>(maxKeys);
  const lab: LabSessionState = createLabSessionState({ maxClients: maxKeys });
  const labClientsLastAt = new Map<string, number>();
  const exported: string[] = [];
  let exportStart = 0;
  let exportLinesDropped = 0;
  // A client sends the same key request after request: its redactor (some dozen encoded forms of it) is made once.
  let lastRedactor: { secrets: string; redact: (text: string) => string } | undefined;
  const redactorOf = (secrets: readonly string[]) => {
    const joined = JSON.stringify(secrets);
    if (lastRedactor?.secrets !== joined) lastRedactor = { secrets: joined, redact: createRedactor(secrets) };
    return lastRedactor.redact;
  };
  let seq = 0;
  const counts = { forwarded: 0, answered: 0, upstreamFailures: 0, abandonedByClient: 0, tooLargeToJudge: 0 };

  const inform = (text: string) => {
    if (information.size < maxInformation) information.add(text);
  };

  const record = (id: string, answer: JudgedAnswer, violations: readonly RuleViolation[], pending: PendingExchange) =>
    tallies.record(id, answer, violations, { key: pending.key, all: pending.secrets });

  /** Every rule of the catalogue on one answer: the response rules, then the sequence rules of its key. */
  const judge = (pending: PendingExchange, answer: JudgedAnswer) => {
    const context = { spec: options.spec, anonymous: pending.key === null, note: inform };
    for (const verdict of judgeResponse(answer, context)) record(verdict.id, answer, verdict.violations, pending);
    const findings = sequences.answered(pending.sequence, answer);
    for (const note of findings.notes) inform(`${answer.client}: ${note.text}`);
    const before = pending.sequence.previous;
    for (const verdict of findings.verdicts)
      record(
        verdict.id,
        answer,
        verdict.violations.map((violation) =>
          violation.which === 'before' && before !== undefined
            ? { ...violation, detail: `${violation.detail} (request #${before.seq}, ${before.label})` }
            : violation,
        ),
        pending,
      );
    for (const verdict of resources.answered(pending.resources, answer, pending.key !== null).verdicts)
      record(verdict.id, answer, verdict.violations, pending);
  };

  const observeClientSide = (pending: PendingExchange, answer: JudgedAnswer) => {
    const budget = readBudget(answer.response.headers, answer.receivedAtMs);
    const plan = planOfMinuteLimit(budget.limit);
    const limits: LabLimits = plan
      ? { perMinute: plan.perMinute, perDay: plan.perDay }
      : { perMinute: budget.limit ?? 0, perDay: budget.limit ?? 0 };
    const isKey = pending.keyDigest !== null && answer.response.status !== 401;
    const previousAtMs = labClientsLastAt.get(pending.client);
    const observation = observeExchange(
      { method: pending.method, url: pending.url, headers: pending.prefer === null ? {} : { prefer: pending.prefer } },
      labResponseOf(answer.response),
      {
        atMs: pending.sentAtMs,
        client: pending.client,
        clientId: pending.client,
        kind: isKey ? 'key' : 'anonymous',
        plan: isKey ? (plan?.name.toLowerCase() ?? 'unknown') : 'anonymous',
        limits,
        operation: pending.operationId === null ? null : { operationId: pending.operationId },
        seenBefore: previousAtMs !== undefined,
        ...(previousAtMs !== undefined ? { previousAtMs } : {}),
      },
    );
    if (pending.deprecated && observation.deprecated === undefined) observation.deprecated = { sunset: null };
    if (labClientsLastAt.size < maxKeys || labClientsLastAt.has(pending.client))
      labClientsLastAt.set(pending.client, Math.max(previousAtMs ?? 0, pending.sentAtMs));
    observeLab(lab, observation);
    return { plan: isKey ? (plan?.name.toLowerCase() ?? 'unknown') : 'anonymous', limits, isKey };
  };

  const exportLine = (
    pending: PendingExchange,
    status: number,
    code: string | null,
    side: ReturnType<typeof observeClientSide> | undefined,
  ) => {
    const line = toExportLine({
      timeMs: pending.sentAtMs,
      method: pending.method,
      url: pending.url,
      keyDigest: pending.keyDigest,
      clientAddress: pending.clientAddress,
      auth: pending.keyDigest === null ? 'none' : side?.isKey === false ? 'invalid' : 'key',
      plan: side?.plan ?? 'unknown',
      limits: side?.limits ?? { perMinute: 0, perDay: 0 },
      status,
      code,
      operationId: pending.operationId,
      prefer: pending.prefer,
      contentType: pending.contentType,
      body:
        pending.body === null || pending.secrets.length === 0
          ? pending.body
          : redactorOf(pending.secrets)(pending.body),
    });
    if (exported.length - exportStart >= maxExportLines) {
      exported[exportStart] = '';
      exportStart += 1;
      exportLinesDropped += 1;
      // Compact now and then so the array never holds more than twice the bound.
      if (exportStart >= maxExportLines) {
        exported.splice(0, exportStart);
        exportStart = 0;
      }
    }
    exported.push(line);
  };

  return {
    sent(request) {
      seq += 1;
      counts.forwarded += 1;
      const authorization = headerText(request.headers.authorization);
      const key = authorization === null ? null : bearerToken(authorization);
      const places = options.credentialPlaces ?? commonCredentialPlaces;
      const keyDigest = key === null ? null : keyDigestHex(key);
      const client = keyDigest === null ? anonymousPseudonym(request.clientAddress) : keyPseudonymFromDigest(keyDigest);
      const preflight = isCorsPreflight(request.method, request.headers);
      const pending: PendingExchange = {
        seq,
        sentAtMs: now(),
        method: request.method,
        // Kept for the export, the labels and the lab: a key in the query never reaches them.
        url: maskQueryCredentials(request.url, places),
        operationId: request.operation?.operationId ?? null,
        deprecated: request.operation?.deprecated ?? false,
        keyDigest,
        client,
        clientAddress: request.clientAddress,
        prefer: headerText(request.headers.prefer),
        preflight,
        contentType: headerText(request.headers['content-type']),
        body: null,
        // A preflight is no request of the key's: it stays out of the key's sequence.
        sequence: sequences.sent(preflight ? null : client),
        resources: resources.sent(),
        key,
        secrets: secretsOfRequest(request.headers, request.url, places),
      };
      return pending;
    },

    answered(pending, response) {
      counts.answered += 1;
      const answer: JudgedAnswer = {
        seq: pending.seq,
        client: pending.client,
        label: `${pending.method} ${targetPath(pending.url)} (${pending.client})`,
        operationId: pending.operationId ?? '',
        request: { method: pending.method },
        sentAtMs: pending.sentAtMs,
        receivedAtMs: now(),
        response,
      };
      if (response.truncatedAtBytes !== undefined) {
        counts.tooLargeToJudge += 1;
        inform(
          `too large to judge: answers longer than ${response.truncatedAtBytes} bytes were forwarded whole; their bodies were not judged (--max-body-bytes)`,
        );
      }
      // Answers to paths or methods the document lacks are judged too: the rules of every response hold for them.
      if (pending.preflight) {
        // A browser's CORS preflight is not a request of the API: forwarded, neither side judged by it.
        inform('CORS preflights (OPTIONS with Access-Control-Request-Method) were forwarded and not judged');
        forget(pending);
        return;
      }
      judge(pending, answer);
      const side = observeClientSide(pending, answer);
      exportLine(pending, response.status, errorCodeOf(response), side);
      forget(pending);
    },

    failed(pending, side) {
      if (side === 'upstream') counts.upstreamFailures += 1;
      else counts.abandonedByClient += 1;
      sequences.failed(pending.sequence);
      forget(pending);
    },

    report(upstream) {
      const rules = tallies.results();
      const labReport = buildLabReport(lab, { session: 'proxy', clock: now(), banPolicy: options.banPolicy });
      const clientBroke = labReport.clients.some((client) =>
        client.verdicts.some((verdict) => verdict.outcome === 'fail'),
      );
      return {
        kind: 'petstore-proxy-report',
        upstream,
        startedAt: new Date(startedAtMs).toISOString(),
        generatedAt: new Date(now()).toISOString(),
        requests: { ...counts },
        server: {
          outcome: rules.some((rule) => rule.outcome === 'fail') ? 'fail' : 'pass',
          rules,
          information: [...information],
        },
        client: { ...labReport, outcome: clientBroke ? 'fail' : 'pass' },
        limits: {
          keysFollowed: sequences.keysFollowed,
          keysNotFollowed: sequences.keysNotFollowed,
          exportLinesDropped,
        },
      };
    },

    exportLines() {
      return exported.slice(exportStart);
    },

    broke(side) {
      if (side === 'server') return tallies.anyFailed();
      return Object.values(lab.clients).some((client) =>
        clientVerdicts(client, options.banPolicy).some((verdict) => verdict.outcome === 'fail'),
      );
    },
  };
}

/** The request's credentials are dropped once its answer is judged (or none came). */
function forget(pending: PendingExchange): void {
  pending.key = null;
  pending.secrets = [];
}

function headerText(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}

function errorCodeOf(response: ObservedResponse): string | null {
  const json = response.hasJson ? response.json : undefined;
  return json !== null && typeof json === 'object' && typeof (json as { code?: unknown }).code === 'string'
    ? ((json as { code: string }).code as string)
    : null;
}

/** The answer as the lab's observer reads it: the few headers it looks at, in the core's spelling. */
function labResponseOf(response: ObservedResponse): MockResponse {
  const headers: Record<string, string> = {};
  for (const [wire, name] of [
    ['retry-after', 'Retry-After'],
    ['deprecation', 'Deprecation'],
    ['sunset', 'Sunset'],
    ['x-ratelimit-reset', 'X-RateLimit-Reset'],
  ] as const) {
    const value = response.headers[wire];
    if (value !== undefined) headers[name] = value;
  }
  return { status: response.status, headers, body: response.bodyText };
}

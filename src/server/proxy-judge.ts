import {
  type CredentialPlaces,
  commonCredentialPlaces,
  maskQueryCredentials,
  secretsOfRequest,
} from '../../spec/credential-masking.js';
import { bearerToken } from '../../spec/interface/bearer.js';
import { judgeResponse, ruleCatalogue } from '../../spec/interface/catalogue.js';
import { keyDigestHex } from '../../spec/interface/key-id.js';
import { isCorsPreflight, KeySequences } from '../../spec/interface/key-sequences.js';
import type { ObservedResponse, RuleViolation } from '../../spec/interface/observed.js';
import { ResourceSequences } from '../../spec/interface/resource-sequences.js';
import type { SpecModel } from '../../spec/interface/spec-model.js';
import { targetPath } from '../../spec/url-parts.js';
import type { LabBanPolicy } from '../lab/lab-types.js';
import { anonymousPseudonym, keyPseudonymFromDigest } from '../lab/replay-input.js';
import type { ProxyReport } from '../ui/proxy-types.js';
import { ClientObserver } from './proxy-client-side.js';
import { forget, type PendingExchange } from './proxy-exchange.js';
import { ExportLog } from './proxy-export-log.js';
import { type JudgedAnswer, RuleTallies } from './proxy-tallies.js';

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

export type { ProxyReport, ServerRuleResult } from '../ui/proxy-types.js';

/** What a forwarder tells the judge of a request it is about to send upstream. */
interface SentRequest {
  method: string;
  url: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  operation: { operationId: string; deprecated: boolean } | null;
  clientAddress: string;
}

/** The judge's counts of the traffic, as the report shows them. */
type TrafficCounts = ProxyReport['requests'];

/** Notes of what the interface leaves open or the proxy could not judge, each once, at most 20. */
const maxInformation = 20;

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
export class ProxyJudge {
  readonly #spec: SpecModel;
  readonly #banPolicy: LabBanPolicy;
  readonly #places: CredentialPlaces;
  readonly #now: () => number;
  readonly #startedAtMs: number;
  /** The number of the last request sent (the first is 1). */
  #seq = 0;
  readonly #counts: TrafficCounts = {
    forwarded: 0,
    answered: 0,
    upstreamFailures: 0,
    abandonedByClient: 0,
    tooLargeToJudge: 0,
  };
  /** Per rule of the catalogue: answers judged, failed, and the first failures as evidence. */
  readonly #tallies: RuleTallies;
  readonly #information = new Set<string>();
  /** Each key's answers in order, for the sequence rules. */
  readonly #sequences: KeySequences<JudgedAnswer>;
  /** The round trip of every created category in every later list of a key (data.round-trip). */
  readonly #resources: ResourceSequences<JudgedAnswer>;
  /** The client side: the lab's verdicts on each client. */
  readonly #clients: ClientObserver;
  readonly #exportLog: ExportLog;

  constructor(options: ProxyJudgeOptions) {
    const maxKeys = options.maxKeys ?? 10_000;
    this.#spec = options.spec;
    this.#banPolicy = options.banPolicy;
    this.#places = options.credentialPlaces ?? commonCredentialPlaces;
    this.#now = options.now ?? (() => Date.now());
    this.#startedAtMs = this.#now();
    this.#tallies = new RuleTallies(ruleCatalogue, options.maxEvidence ?? 10);
    this.#sequences = new KeySequences<JudgedAnswer>(maxKeys);
    this.#resources = new ResourceSequences<JudgedAnswer>(maxKeys);
    this.#clients = new ClientObserver(maxKeys);
    this.#exportLog = new ExportLog(options.maxExportLines ?? 10_000);
  }

  /** A request leaves for the upstream: its handle, until `answered` or `failed`. */
  sent(request: SentRequest): PendingExchange {
    this.#seq += 1;
    this.#counts.forwarded += 1;
    const authorization = headerText(request.headers.authorization);
    const key = authorization === null ? null : bearerToken(authorization);
    const keyDigest = key === null ? null : keyDigestHex(key);
    const client = keyDigest === null ? anonymousPseudonym(request.clientAddress) : keyPseudonymFromDigest(keyDigest);
    const preflight = isCorsPreflight(request.method, request.headers);
    return {
      seq: this.#seq,
      sentAtMs: this.#now(),
      method: request.method,
      // Kept for the export, the labels and the lab: a key in the query never reaches them.
      url: maskQueryCredentials(request.url, this.#places),
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
      sequence: this.#sequences.sent(preflight ? null : client),
      resources: this.#resources.sent(),
      key,
      secrets: secretsOfRequest(request.headers, request.url, this.#places),
    };
  }

  /** The upstream's answer came whole: both sides are judged by it, and it joins the export. */
  answered(pending: PendingExchange, response: ObservedResponse): void {
    this.#counts.answered += 1;
    const answer: JudgedAnswer = {
      seq: pending.seq,
      client: pending.client,
      label: `${pending.method} ${targetPath(pending.url)} (${pending.client})`,
      operationId: pending.operationId ?? '',
      request: { method: pending.method },
      sentAtMs: pending.sentAtMs,
      receivedAtMs: this.#now(),
      response,
    };
    if (response.truncatedAtBytes !== undefined) {
      this.#counts.tooLargeToJudge += 1;
      this.#inform(
        `too large to judge: answers longer than ${response.truncatedAtBytes} bytes were forwarded whole; their bodies were not judged (--max-body-bytes)`,
      );
    }
    // Answers to paths or methods the document lacks are judged too: the rules of every response hold for them.
    if (pending.preflight) {
      // A browser's CORS preflight is not a request of the API: forwarded, neither side judged by it.
      this.#inform('CORS preflights (OPTIONS with Access-Control-Request-Method) were forwarded and not judged');
      forget(pending);
      return;
    }
    this.#judge(pending, answer);
    const side = this.#clients.observe(pending, answer);
    this.#exportLog.add(pending, { status: response.status, code: errorCodeOf(response), side });
    forget(pending);
  }

  /**
   * No answer reached the client: the upstream gave none (`upstream`, answered 502) or the client went
   * away first (`client`). The request is counted, nothing is judged, the key's sequence is broken.
   */
  failed(pending: PendingExchange, side: 'upstream' | 'client'): void {
    if (side === 'upstream') this.#counts.upstreamFailures += 1;
    else this.#counts.abandonedByClient += 1;
    this.#sequences.failed(pending.sequence);
    forget(pending);
  }

  report(upstream: string): ProxyReport {
    const rules = this.#tallies.results();
    const labReport = this.#clients.report(this.#now(), this.#banPolicy);
    const clientBroke = labReport.clients.some((client) =>
      client.verdicts.some((verdict) => verdict.outcome === 'fail'),
    );
    return {
      kind: 'petstore-proxy-report',
      upstream,
      startedAt: new Date(this.#startedAtMs).toISOString(),
      generatedAt: new Date(this.#now()).toISOString(),
      requests: { ...this.#counts },
      server: {
        outcome: rules.some((rule) => rule.outcome === 'fail') ? 'fail' : 'pass',
        rules,
        information: [...this.#information],
      },
      client: { ...labReport, outcome: clientBroke ? 'fail' : 'pass' },
      limits: {
        keysFollowed: this.#sequences.keysFollowed,
        keysNotFollowed: this.#sequences.keysNotFollowed,
        exportLinesDropped: this.#exportLog.dropped,
      },
    };
  }

  /** The traffic as JSON lines `petstore-mock replay` reads (keys as pseudonyms). */
  exportLines(): string[] {
    return this.#exportLog.lines();
  }

  /** Did a side break a rule? */
  broke(side: 'server' | 'client'): boolean {
    if (side === 'server') return this.#tallies.anyFailed();
    return this.#clients.broke(this.#banPolicy);
  }

  #inform(text: string): void {
    if (this.#information.size < maxInformation) this.#information.add(text);
  }

  /** Every rule of the catalogue on one answer: the response rules, then the sequence rules of its key. */
  #judge(pending: PendingExchange, answer: JudgedAnswer): void {
    const secrets = { key: pending.key, all: pending.secrets };
    const record = (id: string, violations: readonly RuleViolation[]) =>
      this.#tallies.record(id, answer, violations, secrets);
    const context = { spec: this.#spec, anonymous: pending.key === null, note: (text: string) => this.#inform(text) };
    for (const verdict of judgeResponse(answer, context)) record(verdict.id, verdict.violations);
    const findings = this.#sequences.answered(pending.sequence, answer);
    for (const note of findings.notes) this.#inform(`${answer.client}: ${note.text}`);
    const before = pending.sequence.previous;
    for (const verdict of findings.verdicts)
      record(
        verdict.id,
        verdict.violations.map((violation) =>
          violation.which === 'before' && before !== undefined
            ? { ...violation, detail: `${violation.detail} (request #${before.seq}, ${before.label})` }
            : violation,
        ),
      );
    for (const verdict of this.#resources.answered(pending.resources, answer, pending.key !== null).verdicts)
      record(verdict.id, verdict.violations);
  }
}

/** @example const judge = createProxyJudge({ spec: specModel, banPolicy }); */
export function createProxyJudge(options: ProxyJudgeOptions): ProxyJudge {
  return new ProxyJudge(options);
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

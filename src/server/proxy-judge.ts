import { createHash } from 'node:crypto';
import {
  type CredentialPlaces,
  commonCredentialPlaces,
  createRedactor,
  maskQueryCredentials,
  secretsOfRequest,
} from '../../spec/credential-masking.js';
import { bearerToken } from '../../spec/interface/bearer.js';
import {
  limitedWithBudgetLeft,
  remainingStepProblem,
  retryAfterInThePast,
  retryAfterVersusReset,
} from '../../spec/interface/key-rules.js';
import type { ObservedResponse, RuleViolation } from '../../spec/interface/observed.js';
import { planOfMinuteLimit } from '../../spec/interface/plans.js';
import { readBudget } from '../../spec/interface/rate-limit-headers.js';
import { type ResponseRule, responseRules } from '../../spec/interface/response-rules.js';
import type { SpecModel } from '../../spec/interface/spec-model.js';
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
export interface PendingExchange {
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
  /** The state of the client's key when the request left: decides whether the pair rules apply. */
  previousAnswer: JudgedAnswer | undefined;
  sentOfKeyBefore: number;
  inFlightOfKeyAtSend: number;
  /** Cleared when the answer is judged; only the key is held, never the bearer token. */
  key: string | null;
  /** Every credential the request carried (header, query, cookie), held and cleared with `key`. */
  secrets: readonly string[];
}

interface KeyState {
  sent: number;
  inFlight: number;
  lastAnswer: JudgedAnswer | undefined;
  lastAtMs: number | undefined;
}

/** The rules across the answers of one key, reported beside the kit's rules of one response. */
const keyRules = [
  {
    id: 'rate.remaining-exact',
    rule: '§8',
    title:
      'each request of a key, sent when none of its others is in flight, lowers X-RateLimit-Remaining by exactly one within a window',
  },
  {
    id: 'rate.429-only-when-exhausted',
    rule: '§8.1',
    title:
      'a 429 comes only when the budget says none is left (the answer before it, and the 429 itself, say Remaining 0)',
  },
  {
    id: 'rate.retry-after-matches-reset',
    rule: '§8.2',
    title:
      "a key's first 429 after a served answer: Retry-After points no later than the X-RateLimit-Reset it reports (server Date, ± 2 s)",
  },
  { id: 'rate.retry-after-future', rule: '§8.2', title: 'a Retry-After given as an HTTP-date is not in the past' },
] as const;

type KeyRuleId = (typeof keyRules)[number]['id'];

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
  const tallies = new RuleTallies([...responseRules, ...keyRules], maxEvidence);
  const information = new Set<string>();
  const maxInformation = 20;
  const keys = new Map<string, KeyState>();
  let keysNotFollowed = 0;
  const lab: LabSessionState = createLabSessionState({ maxClients: maxKeys });
  const labClientsLastAt = new Map<string, number>();
  const exported: string[] = [];
  let exportStart = 0;
  let exportLinesDropped = 0;
  let seq = 0;
  const counts = { forwarded: 0, answered: 0, upstreamFailures: 0, abandonedByClient: 0, tooLargeToJudge: 0 };

  const inform = (text: string) => {
    if (information.size < maxInformation) information.add(text);
  };

  const keyStateOf = (client: string): KeyState | undefined => {
    let state = keys.get(client);
    if (state === undefined) {
      if (keys.size >= maxKeys) {
        keysNotFollowed += 1;
        return undefined;
      }
      state = { sent: 0, inFlight: 0, lastAnswer: undefined, lastAtMs: undefined };
      keys.set(client, state);
    }
    return state;
  };

  const record = (id: string, answer: JudgedAnswer, violations: readonly RuleViolation[], pending: PendingExchange) =>
    tallies.record(id, answer, violations, { key: pending.key, all: pending.secrets });

  const judgeResponse = (answer: JudgedAnswer, pending: PendingExchange) => {
    const context = { spec: options.spec, anonymous: pending.key === null, note: inform };
    for (const rule of responseRules as readonly ResponseRule[]) {
      if (!rule.applies(answer, context)) continue;
      record(rule.id, answer, rule.judge(answer, context), pending);
    }
  };

  const judgeKey = (pending: PendingExchange, answer: JudgedAnswer, state: KeyState | undefined) => {
    if (state === undefined) return;
    const before = pending.previousAnswer;
    // Nothing else of the key left between the previous answer and this one: the pair is sequential.
    const sequential =
      before !== undefined && pending.inFlightOfKeyAtSend === 0 && state.sent === pending.sentOfKeyBefore + 1;
    const keyRule = (id: KeyRuleId, violations: RuleViolation[], which: JudgedAnswer = answer) =>
      record(id, which, violations, pending);
    if (answer.response.status === 429) {
      const past = retryAfterInThePast(answer);
      keyRule('rate.retry-after-future', past === undefined ? [] : [{ detail: past, header: 'Retry-After' }]);
    }
    if (before === undefined || before.response.status === 401 || answer.response.status === 401) return;
    if (sequential) {
      const step = remainingStepProblem(before, answer);
      const readable =
        before.response.status !== 429 &&
        answer.response.status !== 429 &&
        readBudget(before.response.headers, before.receivedAtMs).remaining !== undefined &&
        readBudget(answer.response.headers, answer.receivedAtMs).remaining !== undefined;
      if (readable)
        keyRule(
          'rate.remaining-exact',
          step === undefined
            ? []
            : [
                {
                  detail: `X-RateLimit-Remaining went from ${step.previous} (request #${before.seq}) to ${step.next} over one request of the key; one request spends exactly one, expected ${step.previous - 1}`,
                  header: 'X-RateLimit-Remaining',
                },
              ],
        );
    }
    // The first 429 after a served answer: a ban is only for keys that keep sending after a 429.
    if (answer.response.status !== 429 || before.response.status === 429) return;
    if (sequential) {
      const problems = limitedWithBudgetLeft(before, answer);
      keyRule(
        'rate.429-only-when-exhausted',
        problems.map((problem) => ({
          detail:
            problem.which === 'before' ? `${problem.detail} (request #${before.seq}, ${before.label})` : problem.detail,
          header: 'X-RateLimit-Remaining',
        })),
      );
    }
    const verdict = retryAfterVersusReset(answer);
    if (verdict.kind === 'unjudged') return;
    if (verdict.kind === 'earlier')
      inform(
        `Retry-After of ${answer.client} points ${Math.round((verdict.resetMs - verdict.retryAtMs) / 1000)} s before X-RateLimit-Reset; the interface does not say how windows move (a sliding window may free a request earlier)`,
      );
    keyRule(
      'rate.retry-after-matches-reset',
      verdict.kind === 'later'
        ? [
            {
              detail: `Retry-After ${answer.response.headers['retry-after']} points to ${new Date(verdict.retryAtMs).toISOString()}, ${Math.round((verdict.retryAtMs - verdict.resetMs) / 1000)} s after the reset the same 429 reports (${new Date(verdict.resetMs).toISOString()}), judged by the ${verdict.clockSource}`,
              header: 'Retry-After',
            },
          ]
        : [],
    );
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
          : createRedactor(pending.secrets)(pending.body),
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
      const keyDigest = key === null ? null : createHash('sha256').update(key).digest('hex');
      const client = keyDigest === null ? anonymousPseudonym(request.clientAddress) : keyPseudonymFromDigest(keyDigest);
      const state = keyStateOf(client);
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
        preflight: request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined,
        contentType: headerText(request.headers['content-type']),
        body: null,
        previousAnswer: state?.lastAnswer,
        sentOfKeyBefore: state?.sent ?? 0,
        inFlightOfKeyAtSend: state?.inFlight ?? 0,
        key,
        secrets: secretsOfRequest(request.headers, request.url, places),
      };
      if (state !== undefined && !pending.preflight) {
        state.sent += 1;
        state.inFlight += 1;
      }
      return pending;
    },

    answered(pending, response) {
      counts.answered += 1;
      const state = pending.preflight ? undefined : keys.get(pending.client);
      if (state !== undefined) state.inFlight = Math.max(0, state.inFlight - 1);
      const answer: JudgedAnswer = {
        seq: pending.seq,
        client: pending.client,
        label: `${pending.method} ${pathOf(pending.url)} (${pending.client})`,
        operationId: pending.operationId ?? '',
        request: { method: pending.method },
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
      judgeResponse(answer, pending);
      judgeKey(pending, answer, state);
      if (state !== undefined) {
        state.lastAnswer = { ...answer, response: { ...response, bodyText: '', json: undefined } };
        state.lastAtMs = answer.receivedAtMs;
      }
      const side = observeClientSide(pending, answer);
      exportLine(pending, response.status, errorCodeOf(response), side);
      forget(pending);
    },

    failed(pending, side) {
      if (side === 'upstream') counts.upstreamFailures += 1;
      else counts.abandonedByClient += 1;
      const state = pending.preflight ? undefined : keys.get(pending.client);
      if (state !== undefined) {
        state.inFlight = Math.max(0, state.inFlight - 1);
        state.lastAnswer = undefined;
      }
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
        limits: { keysFollowed: keys.size, keysNotFollowed, exportLinesDropped },
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

function pathOf(url: string): string {
  const question = url.indexOf('?');
  return question === -1 ? url : url.slice(0, question);
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

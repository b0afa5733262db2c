import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { type RunningProxyServer, startProxyServer } from '../../src/server/proxy-server.js';
import { type ClientConversation, converse, echoedId } from '../proxy/support/pipelined-client.js';
import { type RecordingUpstream, startRecordingUpstream } from '../proxy/support/recording-upstream.js';
import { valuesOf, type WireRequest } from '../proxy/support/strict-request-reader.js';
import { errorShapeProblems } from './support/error-shape.js';
import { fuzzRuns, fuzzSeed } from './support/fuzz-budget.js';
import { headerValue } from './support/http-response-parser.js';
import {
  expectationOf,
  forwardedBody,
  type GeneratedRequest,
  requestArbitrary,
  requestBytes,
} from './support/proxy-request-arbitraries.js';

/**
 * The proxy's differential fuzz test (issue 40, item 2). Generated requests (framing: Content-Length,
 * chunked, both, neither, chunk extensions, bad chunk sizes; repeated fields; obs-fold; bodies on
 * every method, some holding a whole second request; absolute-form targets; dot segments, plain and
 * encoded) go as raw bytes, pipelined on several client connections at once, through the proxy to
 * a strict recording upstream that echoes each request's id. What the client sent is compared with
 * what the upstream read and what each client got back:
 *
 * - the upstream reads exactly one well-framed request per request the RFCs let through, with the
 *   method, the normalised target, the de-chunked body, one Host (its own) and no hop-by-hop field,
 *   and nothing else: no smuggled request, no malformed or unfinished bytes;
 * - a request the RFCs call ambiguous reaches nothing upstream, and its client gets a 400 in the
 *   Error shape, then the connection closes, nothing answered after it;
 * - every client gets the answers to its own requests, in order, whatever shares the pooled
 *   upstream connections with it.
 */
// `npm run fuzz` gives 25 times the runs and a seed of the day (support/fuzz-budget.ts).
const seed = fuzzSeed(20_261_128);
const runs = fuzzRuns(40, 1_000);

let upstream: RecordingUpstream;
let proxy: RunningProxyServer;
const tried = { runs: 0, connections: 0, requests: 0, forwarded: 0, refused: 0, unanswered: 0 };

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  proxy = await startProxyServer({ upstream: upstream.baseUrl, port: 0 });
});

afterAll(async () => {
  console.log(
    `[hardening] proxy fuzz seed ${seed}: ${tried.runs} runs, ${tried.connections} client connections, ${tried.requests} requests sent (${tried.forwarded} to be forwarded, ${tried.refused} to be refused, ${tried.unanswered} behind a refusal or a close), ${upstream?.connections()} upstream connections`,
  );
  await proxy?.close(1_000);
  await upstream?.close();
});

/** What one client connection must see, and what the upstream must read from it. */
interface ConnectionPlan {
  bytes: Buffer;
  /** The answers in order: the id the upstream must echo, or 'refused' for the proxy's 400. */
  answers: (string | 'refused')[];
  /** The proxy ends the connection after the last answer. */
  closes: boolean;
  forwarded: Map<string, { method: string; target: string; body: string; request: GeneratedRequest }>;
}

function planOf(requests: readonly GeneratedRequest[], idPrefix: string): ConnectionPlan {
  const plan: ConnectionPlan = { bytes: Buffer.alloc(0), answers: [], closes: false, forwarded: new Map() };
  const pieces: Buffer[] = [];
  for (const [index, request] of requests.entries()) {
    const id = `${idPrefix}q${index}`;
    pieces.push(requestBytes(request, id));
    tried.requests += 1;
    if (plan.closes) {
      tried.unanswered += 1;
      continue;
    }
    const expected = expectationOf(request);
    if (expected.outcome === 'refuse') {
      tried.refused += 1;
      plan.answers.push('refused');
      plan.closes = true;
      continue;
    }
    tried.forwarded += 1;
    plan.answers.push(id);
    const target = `${new URL(upstream.baseUrl).pathname}${request.target.forwarded}`;
    plan.forwarded.set(id, { method: request.method, target, body: forwardedBody(request), request });
    plan.closes = expected.closesAfter;
  }
  plan.bytes = Buffer.concat(pieces);
  return plan;
}

/** The bytes cut at `cuts` (positions taken modulo the length), so requests arrive whole, together or in parts. */
function piecesOf(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const at = [...new Set(cuts.map((cut) => cut % bytes.length))].filter((cut) => cut > 0).sort((a, b) => a - b);
  return [0, ...at].map((start, index) => bytes.subarray(start, at[index] ?? bytes.length));
}

function clientProblems(plan: ConnectionPlan, conversation: ClientConversation): string[] {
  if (conversation.unreadable !== undefined)
    return [`the client could not read its answers: ${conversation.unreadable}`];
  const problems: string[] = [];
  if (conversation.timedOut) problems.push('the client waited 5 s for its answers');
  const got = conversation.answers.map((answer) =>
    answer.status === 400 ? 'refused' : (echoedId(answer) ?? `status ${answer.status}`),
  );
  if (JSON.stringify(got) !== JSON.stringify(plan.answers))
    problems.push(`answers ${JSON.stringify(got)}, expected ${JSON.stringify(plan.answers)}`);
  for (const answer of conversation.answers.filter((candidate) => candidate.status === 400)) {
    const shape = errorShapeProblems({
      status: 400,
      contentType: headerValue(answer.headers, 'content-type'),
      body: answer.body.toString('utf8'),
    });
    problems.push(...shape.map((problem) => `the 400: ${problem}`));
  }
  if (plan.closes && !conversation.closed) problems.push('the connection stayed open after a refusal or a close');
  return problems;
}

function upstreamProblems(plans: readonly ConnectionPlan[]): string[] {
  const expected = new Map(plans.flatMap((plan) => [...plan.forwarded]));
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const record of upstream.records) {
    if (record.kind !== 'request') {
      problems.push(`the upstream read ${record.kind} bytes: ${JSON.stringify(record)}`);
      continue;
    }
    const wanted = record.id === undefined ? undefined : expected.get(record.id);
    if (wanted === undefined || seen.has(record.id!)) {
      problems.push(`the upstream read a request nobody should have sent it: ${record.id} ${record.request.target}`);
      continue;
    }
    seen.add(record.id!);
    problems.push(...requestProblems(record.request, wanted).map((problem) => `${record.id}: ${problem}`));
  }
  for (const id of expected.keys()) if (!seen.has(id)) problems.push(`${id} never reached the upstream`);
  return problems;
}

function requestProblems(
  got: WireRequest,
  wanted: { method: string; target: string; body: string; request: GeneratedRequest },
): string[] {
  const problems: string[] = [];
  if (got.method !== wanted.method) problems.push(`method ${got.method}, sent ${wanted.method}`);
  if (got.target !== wanted.target) problems.push(`target ${got.target}, expected ${wanted.target}`);
  if (got.body.toString('utf8') !== wanted.body)
    problems.push(`body ${JSON.stringify(got.body.toString())}, sent ${JSON.stringify(wanted.body)}`);
  if (JSON.stringify(valuesOf(got.headers, 'host')) !== JSON.stringify([new URL(upstream.baseUrl).host]))
    problems.push(`Host ${JSON.stringify(valuesOf(got.headers, 'host'))}`);
  for (const field of ['transfer-encoding', 'x-hop'])
    if (valuesOf(got.headers, field).length > 0) problems.push(`${field} forwarded`);
  if (wanted.request.extra === 'repeated-list' && JSON.stringify(valuesOf(got.headers, 'x-repeat')) !== '["a","b"]')
    problems.push(`X-Repeat ${JSON.stringify(valuesOf(got.headers, 'x-repeat'))}, sent a then b`);
  return problems;
}

const conversationsArbitrary = fc.array(
  fc.record({
    requests: fc.array(requestArbitrary, { minLength: 1, maxLength: 3 }),
    cuts: fc.array(fc.nat(), { maxLength: 2 }),
  }),
  { minLength: 1, maxLength: 4 },
);

describe('the judging proxy, fuzzed differentially', () => {
  it(
    'forwards exactly one well-framed request per request the RFCs let through, refuses the rest, and answers each client its own',
    async () => {
      await fc.assert(
        fc.asyncProperty(conversationsArbitrary, async (connections) => {
          const run = tried.runs;
          tried.runs += 1;
          tried.connections += connections.length;
          upstream.records.length = 0;
          const plans = connections.map((connection, index) => planOf(connection.requests, `r${run}c${index}`));
          const conversations = await Promise.all(
            plans.map((plan, index) =>
              converse(proxy.port, piecesOf(plan.bytes, connections[index]!.cuts), {
                answers: plan.answers.length,
                untilClosed: plan.closes,
              }),
            ),
          );
          // Anything the proxy might still send upstream arrives before the records are read.
          await new Promise((resolve) => setTimeout(resolve, 20));
          const problems = [
            ...plans.flatMap((plan, index) =>
              clientProblems(plan, conversations[index]!).map((problem) => `client ${index}: ${problem}`),
            ),
            ...upstreamProblems(plans),
          ];
          if (problems.length > 0) throw new Error(problems.join('\n'));
        }),
        { numRuns: runs, seed },
      );
    },
    Math.max(180_000, runs * 200),
  );
});

import { affordableWithoutKey, unsentMessage } from '../generate/address-budget.js';
import { allowedWithoutKey, type MatrixRequest, matrixRequests, petIds } from '../generate/method-matrix.js';
import { type CheckRun, defineArea } from '../lib/check.js';
import { CheckFailure, OverBudget } from '../lib/check-errors.js';
import { type Evidence, type Exchange, evidenceOf } from '../lib/exchange.js';
import { expectErrorBody } from '../lib/expect-response.js';
import type { RegisterCheck } from '../lib/register-check.js';

/**
 * Every method on every path (issue 39): GET, HEAD, POST, PUT, PATCH, DELETE and OPTIONS on
 * /categories, /pets/{petId}, /store/orders and an unknown path, with the key and without, bodies
 * framed by Content-Length and by chunked transfer coding in turn, and several pet ids. What the
 * interface defines is judged by its rules; what it does not (other methods: "not shown") must
 * still be no 5xx and, with a valid key, no 401. PUT, PATCH and DELETE on paths that hold data
 * are sent only with --allow-destructive.
 */
function bodyOf(run: CheckRun, request: MatrixRequest, label: string): { json?: unknown } {
  return request.withBody ? { json: { name: run.categoryName(`m-${label}`) } } : {};
}

/** Content-Length for even positions, chunked for odd ones, shifted by the seed (both framings every run). */
function chunkedAt(run: CheckRun, index: number): boolean {
  return (index + Math.abs(run.target.seed)) % 2 === 1;
}

function sendMatrix(
  run: CheckRun,
  request: MatrixRequest,
  index: number,
  options: { withKey: boolean; chunked?: boolean },
): Promise<Exchange> {
  const withKey = options.withKey;
  const chunked = request.withBody && (options.chunked ?? chunkedAt(run, index));
  return run.send({
    operationId: request.operationId ?? 'methodMatrix',
    method: request.method,
    path: request.at.path,
    identity: withKey ? 'main' : 'anonymous',
    ...(withKey ? { authorization: run.bearer() } : {}),
    ...bodyOf(run, request, `${index}`),
    ...(chunked ? { chunked: true } : {}),
    offInterface: request.operationId === undefined,
    // Sent straight to the server: what judges its framing and the methods the document does not declare is not
    // Prism's to forward (it answers HEAD itself, 500 and no body, and drops a chunked body: 400).
    bypassPrism: request.operationId === undefined || chunked,
  });
}

function describe(request: MatrixRequest, chunked: boolean): string {
  const framing = request.withBody ? (chunked ? ' (chunked)' : ' (Content-Length)') : '';
  return `${request.method} ${request.at.template}${framing}`;
}

function fail(what: string, failures: readonly Evidence[]): never {
  throw new CheckFailure(
    `${failures.length} ${what}: ${failures
      .slice(0, 3)
      .map((evidence) => evidence.detail)
      .join('; ')}`,
    failures.slice(0, 6),
  );
}

/** Most creations of the with-key check: every request with a body may create on a broken server. */
const maxBodies = (allowDestructive: boolean) =>
  matrixRequests(allowDestructive).sent.filter((request) => request.withBody).length + 1;

export default defineArea('Generated methods and paths (§4, §5.2, RFC 9110 §9)', 'sequential', (check) => {
  checkMethodsWithKey(check);
  checkMethodsWithoutKey(check);
  checkPetIds(check);
});

/** Every method on every path with the key: no 5xx, no 401; POST /categories created in both framings. */
function checkMethodsWithKey(check: RegisterCheck): void {
  check(
    {
      id: 'methods.with-key',
      rule: '§4',
      title:
        'every method on every path with the key: no 5xx, no 401; POST /categories created whether framed by Content-Length or chunked',
      operation: '(every path)',
      writes: true,
      maxCreates: (target) => maxBodies(target.allowDestructive),
    },
    async (run) => {
      const { sent, withheld } = matrixRequests(run.target.allowDestructive);
      const failures: Evidence[] = [];
      const seen: string[] = [];
      // POST /categories, the interface's one body, goes in both framings every run; the others alternate.
      const plan = [
        ...sent.map((request, index) => ({ request, chunked: chunkedAt(run, index) })),
        ...sent.flatMap((request, index) =>
          request.operationId === 'createCategory' ? [{ request, chunked: !chunkedAt(run, index) }] : [],
        ),
      ];
      for (const [index, { request, chunked }] of plan.entries()) {
        const exchange = await sendMatrix(run, request, index, { withKey: true, chunked });
        const status = exchange.response?.status;
        const label = describe(request, chunked);
        seen.push(`${label} ${status ?? 'no answer'}`);
        const created = request.operationId === 'createCategory';
        if (status === undefined || status >= 500 || status === 401 || (created && status !== 201))
          failures.push(
            evidenceOf(
              exchange,
              `${label}: ${status ?? 'no answer'} with a valid key${created ? ' (expected 201)' : ''}`,
            ),
          );
      }
      run.cases(plan.length);
      if (failures.length > 0) fail('requests with a valid key answered 5xx, 401 or not created', failures);
      run.note(seen.join(', '));
      if (withheld.length > 0)
        run.note(
          `not sent (they could change data the run did not create; --allow-destructive sends them): ${withheld.map((request) => `${request.method} ${request.at.template}`).join(', ')}`,
        );
    },
  );
}

/** Every method on every path without credentials -> 401 + Error, as far as the address's budget allows. */
function checkMethodsWithoutKey(check: RegisterCheck): void {
  check(
    {
      id: 'methods.without-key',
      rule: '§5.2',
      title:
        'every method on every path without credentials -> 401 + Error (a request that is no operation: 401, or 404/405 first)',
      operation: '(every path)',
      writes: true,
      maxCreates: (target) => maxBodies(target.allowDestructive),
    },
    async (run) => {
      const { sent } = matrixRequests(run.target.allowDestructive);
      const failures: Evidence[] = [];
      const unsent: string[] = [];
      for (const [index, request] of sent.entries()) {
        const label = describe(request, chunkedAt(run, index));
        if (!affordableWithoutKey(run)) {
          unsent.push(label);
          continue;
        }
        const exchange = await sendMatrix(run, request, index, { withKey: false });
        const problem = judgeWithoutKey(run, request, exchange);
        if (problem !== undefined) failures.push(evidenceOf(exchange, `${label}: ${problem}`));
      }
      run.cases(sent.length - unsent.length);
      if (failures.length > 0) fail('requests without credentials were not refused as §5 says', failures);
      if (unsent.length > 0) throw new OverBudget(unsentMessage(unsent));
    },
  );
}

/** GET /pets/{petId} over ids a server may mishandle: no 5xx, no 401 with the key. */
function checkPetIds(check: RegisterCheck): void {
  check(
    {
      id: 'methods.pet-ids',
      rule: '§4',
      title: 'GET /pets/{petId} for ids 1, 0, -1, past int64 and not a number: no 5xx, no 401 with the key',
      operation: 'GET /pets/{petId}',
      operationId: 'getPetById',
    },
    async (run) => {
      const failures: Evidence[] = [];
      const seen: string[] = [];
      for (const id of petIds) {
        const exchange = await run.send({
          operationId: 'getPetById',
          method: 'GET',
          path: `/pets/${id}`,
          authorization: run.bearer(),
          identity: 'main',
        });
        const status = exchange.response?.status;
        seen.push(`${id}: ${status ?? 'no answer'}`);
        if (status === undefined || status >= 500 || status === 401)
          failures.push(evidenceOf(exchange, `petId ${id}: ${status ?? 'no answer'} with a valid key`));
      }
      run.cases(petIds.length);
      if (failures.length > 0) fail('pet ids answered 5xx or 401 with a valid key', failures);
      // The pet's shape and which ids exist are not shown: the statuses are information.
      run.note(`petId ${seen.join(', ')}`);
    },
  );
}

/** The problem with an answer to a request without credentials, or undefined. */
function judgeWithoutKey(run: CheckRun, request: MatrixRequest, exchange: Exchange): string | undefined {
  const status = exchange.response?.status;
  if (status === undefined) return `no response: ${exchange.transportError ?? 'unknown'}`;
  const allowed = allowedWithoutKey(request);
  if (!allowed.includes(status)) return `expected ${allowed.join(' or ')}, got ${status}`;
  // A HEAD answer has no content to hold an Error (RFC 9110 §9.3.2).
  if (request.method === 'HEAD') return undefined;
  try {
    expectErrorBody(run.spec, exchange);
    return undefined;
  } catch (error) {
    return error instanceof CheckFailure ? error.message : String(error);
  }
}

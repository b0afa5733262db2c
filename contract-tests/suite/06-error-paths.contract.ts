import { type CheckRun, defineArea } from '../lib/check.js';
import { CheckFailure } from '../lib/check-errors.js';
import { bodyExcerpt, type Exchange, evidenceOf } from '../lib/exchange.js';
import { expectErrorBody, responseOf } from '../lib/expect-response.js';
import type { RegisterCheck } from '../lib/register-check.js';
import { sendOperation, sendWithMainKey } from './main-key-requests.js';
import { createCategory, getPetById, listCategories, listStoreOrders } from './operations.js';

/**
 * The answers a server gives to requests its operations never receive on their own: an unknown
 * path under the base URL (and near misses of real paths), a method a path does not allow (with
 * and without a body), HEAD and OPTIONS (which HTTP frameworks often answer by themselves), and a
 * body far too large. The interface says errors are Error objects whose `status` repeats the HTTP
 * status (section 7) and that the rate-limit headers are on every response (section 8); these
 * answers join the run's exchanges, so the "every response" checks judge them too. Which 4xx a
 * server picks (404, 405, 413 are the convention) is information; a 2xx or 5xx is not.
 */
export default defineArea('Error paths and HTTP statuses (§7, §8, RFC 9110)', 'concurrent', (check) => {
  checkUnknownPaths(check);
  checkDisallowedMethods(check);
  checkBodyTooLarge(check);
  checkHeadAndOptions(check);
  checkOperationsExist(check);
  checkUndefinedQuery(check);
});

/** A path under the base URL that is no operation, and near misses of real ones -> 4xx + Error. */
function checkUnknownPaths(check: RegisterCheck): void {
  check(
    {
      id: 'errors.unknown-path',
      rule: '§7',
      title: 'unknown path under the base URL -> 4xx (404) + Error with status = HTTP status',
      operation: 'GET (unknown path)',
    },
    async (run) => {
      const exchange = await sendWithMainKey(run, {
        operationId: 'unknownPath',
        method: 'GET',
        path: `/${run.target.namePrefix}-no-such-resource`,
      });
      judgeError(run, exchange, 404);
      run.note(`answered ${responseOf(exchange).status}`);
    },
  );

  check(
    {
      id: 'errors.unknown-path-near-miss',
      rule: '§7',
      title:
        'near misses of real paths (a segment before or after /categories or /pets/{petId}) -> 4xx + Error, not the operation',
      operation: 'GET (unknown path)',
    },
    async (run) => {
      const prefix = run.target.namePrefix;
      // The version prefix twice is what a client gets when its base URL already ends in /v1 and it adds another.
      const paths = [
        `/categories/${prefix}`,
        `/${prefix}/categories`,
        `/pets/1/${prefix}`,
        `/${prefix}/pets/1`,
        `/store/orders/${prefix}/${prefix}`,
        '/v1/categories',
        '/v1/pets/1',
      ];
      const exchanges = await Promise.all(
        paths.map((path) =>
          sendWithMainKey(run, { operationId: 'unknownPath', method: 'GET', path, bypassPrism: true }),
        ),
      );
      run.cases(paths.length);
      for (const exchange of exchanges) judgeError(run, exchange, 404);
      run.note(`answered ${exchanges.map((exchange) => responseOf(exchange).status).join(', ')}`);
    },
  );
}

/** A method /categories does not declare (PATCH), without and with a body -> 4xx + Error. */
function checkDisallowedMethods(check: RegisterCheck): void {
  // A body-less PATCH: a method /categories does not declare, that cannot change anything even on a broken server.
  check(
    {
      id: 'errors.method-not-allowed',
      rule: '§7',
      title:
        'method the path does not allow (PATCH /categories, no body) -> 4xx (405 with Allow naming GET and POST, RFC 9110) + Error with status = HTTP status',
      operation: 'PATCH /categories',
    },
    async (run) => {
      const exchange = await sendWithMainKey(run, {
        operationId: 'methodNotAllowed',
        method: 'PATCH',
        path: '/categories',
      });
      judgeError(run, exchange, 405);
      const response = responseOf(exchange);
      if (response.status === 405) expectAllow(exchange, ['GET', 'POST']);
      run.note(
        `answered ${response.status}${response.status === 405 ? `, Allow: ${response.headers.allow ?? 'missing'}` : ''}`,
      );
    },
  );

  check(
    {
      id: 'errors.method-with-body',
      rule: '§7',
      title:
        'a method the path does not allow, with a valid NewCategory body (PATCH /categories) -> 4xx + Error; nothing is created',
      operation: 'PATCH /categories',
      writes: true,
      maxCreates: () => 1,
    },
    async (run) => {
      const exchange = await sendWithMainKey(run, {
        operationId: 'methodNotAllowed',
        method: 'PATCH',
        path: '/categories',
        json: { name: run.categoryName('patch') },
        bypassPrism: true,
      });
      judgeError(run, exchange, 405);
      run.note(`answered ${responseOf(exchange).status}`);
    },
  );
}

/** A 2 MiB body -> 4xx + Error with the rate-limit headers, never a dropped connection. */
function checkBodyTooLarge(check: RegisterCheck): void {
  check(
    {
      id: 'errors.body-too-large',
      rule: '§7',
      title:
        'a 2 MiB body that is not JSON (so nothing can be created) -> 4xx (413 or 400) + Error with the rate-limit headers, never a dropped connection',
      operation: createCategory.label,
      operationId: createCategory.operationId,
      writes: true,
      maxCreates: () => 1,
    },
    async (run) => {
      const exchange = await sendOperation(run, createCategory, {
        rawBody: `{"description": "${'x'.repeat(2 * 1024 * 1024)}`,
        offInterface: true,
        bypassPrism: true,
      });
      judgeError(run, exchange, 413);
      run.note(`answered ${responseOf(exchange).status}`);
    },
  );
}

/** HEAD and OPTIONS on /categories, which HTTP frameworks often answer by themselves: never a body on HEAD, never 5xx. */
function checkHeadAndOptions(check: RegisterCheck): void {
  check(
    {
      id: 'http.head',
      rule: 'RFC 9110 §9.3.2',
      title: 'HEAD /categories -> the GET answer without a body (200), or 405; never a body, never 5xx',
      operation: 'HEAD /categories',
    },
    async (run) => {
      const exchange = await sendWithMainKey(run, {
        operationId: 'headCategories',
        method: 'HEAD',
        path: '/categories',
        bypassPrism: true,
      });
      const response = responseOf(exchange);
      if (response.status >= 500 || response.bodyText !== '') {
        throw new CheckFailure(
          response.status >= 500
            ? `HEAD /categories was answered ${response.status}`
            : 'HEAD /categories was answered with a body, which HEAD never has',
          [evidenceOf(exchange, `${response.status}: ${bodyExcerpt(exchange)}`)],
        );
      }
      if (response.status === 405) expectAllow(exchange, ['GET', 'POST']);
      run.note(
        `answered ${response.status} (the interface lists GET and POST only; RFC 9110 asks general-purpose servers to answer HEAD where they answer GET)`,
      );
    },
  );

  check(
    {
      id: 'http.options',
      rule: 'RFC 9110 §9.3.7',
      title: 'OPTIONS /categories -> 2xx or 4xx (405) with an Error, never 5xx',
      operation: 'OPTIONS /categories',
    },
    async (run) => {
      const exchange = await sendWithMainKey(run, {
        operationId: 'optionsCategories',
        method: 'OPTIONS',
        path: '/categories',
        bypassPrism: true,
      });
      const response = responseOf(exchange);
      if (response.status >= 300) judgeError(run, exchange, 405);
      run.note(
        `answered ${response.status}${response.headers.allow === undefined ? '' : `, Allow: ${response.headers.allow}`}`,
      );
    },
  );
}

/** getPetById and listStoreOrders are operations of the interface: not answered as if the path were unknown. */
function checkOperationsExist(check: RegisterCheck): void {
  for (const operation of [getPetById, listStoreOrders]) {
    check(
      {
        id: `other.exists:${operation.operationId}`,
        rule: '§4',
        title: `the operation exists: ${operation.label} is not answered 405${operation === listStoreOrders ? ' or 404' : ' (404 may mean no such pet)'}`,
        operation: operation.label,
        operationId: operation.operationId,
      },
      async (run) => {
        const exchange = await sendOperation(run, operation);
        const status = responseOf(exchange).status;
        if (status === 405 || (status === 404 && operation === listStoreOrders)) {
          throw new CheckFailure(`${operation.label} is an operation of the interface, yet it was answered ${status}`, [
            evidenceOf(exchange, `${status}: ${bodyExcerpt(exchange)}`),
          ]);
        }
        run.note(`answered ${status}`);
      },
    );
  }
}

/** Paging parameters listCategories does not define: what the server does with them is information. */
function checkUndefinedQuery(check: RegisterCheck): void {
  check(
    {
      id: 'list.query-string',
      rule: '§4 listCategories',
      title:
        'a query string listCategories does not define (limit, page): what the server does with it (pagination is not shown)',
      operation: listCategories.label,
      operationId: listCategories.operationId,
    },
    async (run) => {
      const [plain, paged] = await Promise.all([
        sendOperation(run, listCategories),
        sendOperation(run, listCategories, {
          path: '/categories?limit=1&page=2&per_page=1&offset=1',
          bypassPrism: true,
        }),
      ]);
      const count = (exchange: Exchange) =>
        Array.isArray(responseOf(exchange).json) ? (responseOf(exchange).json as unknown[]).length : undefined;
      if (responseOf(paged).status !== 200 || count(paged) === undefined) {
        run.info(`answered ${responseOf(paged).status} to a query string the interface does not define`, [
          evidenceOf(paged, bodyExcerpt(paged, 80)),
        ]);
        return;
      }
      if ((count(paged) ?? 0) < (count(plain) ?? 0)) {
        run.info(
          `with ?limit=1&page=2 the list holds ${count(paged)} categories, without it ${count(plain)}: the server pages by parameters the interface does not define`,
          [evidenceOf(plain, `${count(plain)} items`), evidenceOf(paged, `${count(paged)} items`)],
        );
        return;
      }
      run.info(`parameters the interface does not define are ignored: ${count(paged)} categories either way`);
    },
  );
}

/** Any 4xx with an Error whose status repeats the HTTP status; a 2xx, 3xx or 5xx fails. */
function judgeError(run: CheckRun, exchange: Exchange, conventional: number): void {
  const response = responseOf(exchange);
  if (response.status < 400 || response.status >= 500) {
    throw new CheckFailure(`expected an error (${conventional} by convention), got ${response.status}`, [
      evidenceOf(exchange, `${response.status}: ${bodyExcerpt(exchange)}`),
    ]);
  }
  expectErrorBody(run.spec, exchange);
  const status = (response.json as { status?: unknown }).status;
  if (status !== response.status)
    throw new CheckFailure(`Error.status ${String(status)} differs from the HTTP status ${response.status}`, [
      evidenceOf(exchange, `HTTP ${response.status}, body status ${String(status)}`, { field: 'status' }),
    ]);
}

/** A 405 must name the methods the path allows (RFC 9110 section 15.5.6); those of the interface at least. */
function expectAllow(exchange: Exchange, methods: string[]): void {
  const allow = responseOf(exchange).headers.allow;
  const listed = new Set((allow ?? '').split(',').map((method) => method.trim().toUpperCase()));
  const missing = methods.filter((method) => !listed.has(method));
  if (missing.length > 0) {
    throw new CheckFailure(
      `a 405 must carry Allow with the methods of the path (RFC 9110 section 15.5.6); ${allow === undefined ? 'it has none' : `Allow: ${allow} lacks ${missing.join(', ')}`}, though the interface defines ${methods.join(' and ')} on /categories`,
      [evidenceOf(exchange, `Allow: ${allow ?? 'missing'}`, { header: 'Allow' })],
    );
  }
}

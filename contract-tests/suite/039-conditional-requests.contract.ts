import { idOf } from '../../spec/interface/exact-ids.js';
import { affordableWithoutKey } from '../generate/address-budget.js';
import { OpenChoices } from '../generate/open-choices.js';
import { expectCreatedOrOpen, recordId } from '../lib/category-checks.js';
import { type CheckRun, defineArea } from '../lib/check.js';
import { CheckFailure } from '../lib/check-errors.js';
import { bodyExcerpt, type Exchange, evidenceOf } from '../lib/exchange.js';
import { expectErrorBody, expectStatus } from '../lib/expect-response.js';
import { callOf, createCategory, listCategories } from './operations.js';

/**
 * Conditional requests (RFC 9110 section 13) on the list: caches and frameworks answer them before the
 * application (a response cache mounted before auth, Rails' fresh_when at one-second precision). The
 * interface's rules hold for them as for any request: without a key 401 (section 5.3), and "all available
 * categories" (section 4) after a create, never a 304 that tells the client its older copy is current.
 * The validators are the server's own (ETag, Last-Modified) or, when it gives none, its Date.
 */
function list(run: CheckRun, conditions: Record<string, string>, withKey: boolean): Promise<Exchange> {
  return run.send({
    ...callOf(listCategories),
    headers: conditions,
    identity: withKey ? 'main' : 'anonymous',
    ...(withKey ? { authorization: run.bearer() } : {}),
  });
}

/** If-None-Match and If-Modified-Since from an answer's validators (Date when it has no Last-Modified). */
function conditionsOf(exchange: Exchange): Record<string, string> {
  const headers = exchange.response?.headers ?? {};
  const conditions: Record<string, string> = {};
  if (headers.etag !== undefined) conditions['if-none-match'] = headers.etag;
  const since = headers['last-modified'] ?? headers.date;
  if (since !== undefined) conditions['if-modified-since'] = since;
  return conditions;
}

export default defineArea('Conditional requests (§4, §5.3, RFC 9110 §13)', 'sequential', (check) => {
  check(
    {
      id: 'cache.conditional-list',
      rule: '§4 listCategories',
      title:
        "the list asked for with the server's own validators (If-None-Match, If-Modified-Since): without a key 401 + Error, after a create 200 with the new category, never 304",
      operation: listCategories.label,
      operationId: listCategories.operationId,
      writes: true,
      maxCreates: () => 1,
    },
    async (run) => {
      const first = await list(run, {}, true);
      expectStatus(first, 200, 'a list');
      const conditions = conditionsOf(first);
      if (Object.keys(conditions).length === 0)
        return run.skip('the list answered no ETag, Last-Modified or Date: there is no validator to send');
      if (affordableWithoutKey(run)) {
        const anonymous = await list(run, conditions, false);
        expectStatus(anonymous, 401, 'a conditional list without a key');
        expectErrorBody(run.spec, anonymous);
      }
      const sent = { name: run.categoryName('conditional') };
      const created = await run.send({
        ...callOf(createCategory),
        authorization: run.bearer(),
        identity: 'main',
        json: sent,
      });
      const stored = expectCreatedOrOpen(run, created, sent, new OpenChoices());
      if (stored === undefined) return run.skip(`the server refused ${JSON.stringify(sent.name)}: nothing changed`);
      recordId(run.state.categoryIds, stored.id, 'cache.conditional-list');
      const again = await list(run, conditions, true);
      const shown = Object.entries(conditions)
        .map(([name, value]) => `${name}: ${value}`)
        .join(', ');
      if (again.response?.status === 304)
        throw new CheckFailure(
          `the list answered 304 Not Modified to ${shown}, though category ${stored.id} was created after those validators: the client keeps a list without it`,
          [evidenceOf(created, `created id ${stored.id}`), evidenceOf(again, `304 to ${shown}`)],
        );
      const response = expectStatus(again, 200, `a list with ${shown} after a create`);
      const items = Array.isArray(response.json) ? (response.json as { id?: unknown }[]) : [];
      if (!items.some((item) => item !== null && typeof item === 'object' && idOf(item) === stored.id))
        throw new CheckFailure(`the list asked for with ${shown} after a create does not hold category ${stored.id}`, [
          evidenceOf(again, `no id ${stored.id}: ${bodyExcerpt(again, 100)}`, { field: 'id' }),
        ]);
      run.cases(3);
    },
  );
});

import { isJsonContentType } from '../../spec/interface/media-types.js';
import { type CheckRun, defineArea } from '../lib/check.js';
import { CheckFailure } from '../lib/check-errors.js';
import { bodyExcerpt, type Exchange, evidenceOf } from '../lib/exchange.js';
import { expectErrorBody, responseOf } from '../lib/expect-response.js';
import { callOf, listCategories } from './operations.js';

/**
 * Interface section 1: "All request and response bodies described here are application/json".
 * Clients send many Accept headers (none, `*\/*`, a browser's `text/html`); the body is JSON in
 * every case. A server may refuse a type it cannot produce with 406 (an Error, in JSON); it may
 * not answer HTML, an empty 200 or another shape. Error pages are where frameworks most often
 * switch to HTML for a browser's Accept.
 */
const acceptable = [
  '*/*',
  null,
  'application/json; charset=utf-8',
  'application/*',
  'application/json, text/plain;q=0.5',
] as const;
const foreign = [
  'text/html',
  'application/xml',
  'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
] as const;

export default defineArea('Content negotiation (§1)', 'concurrent', (check) => {
  check(
    {
      id: 'negotiation.accept:listCategories',
      rule: '§1',
      title:
        'any Accept (none, */*, application/*, text/html, XML): 200 with the JSON array, or 406 + Error for a type other than JSON; never HTML',
      operation: listCategories.label,
      operationId: listCategories.operationId,
    },
    async (run) => {
      // A type other than JSON is outside what the interface offers: which 4xx refuses it is open (offInterface).
      const exchanges = await Promise.all(
        [...acceptable, ...foreign].map((accept, index) =>
          run.send({
            ...callOf(listCategories),
            authorization: run.bearer(),
            identity: 'main',
            accept,
            bypassPrism: true,
            offInterface: index >= acceptable.length,
          }),
        ),
      );
      run.cases(exchanges.length);
      const refused: string[] = [];
      for (const [index, exchange] of exchanges.entries()) {
        const response = responseOf(exchange);
        const jsonWanted = index < acceptable.length;
        if (!jsonWanted && response.status === 406) {
          expectErrorBody(run.spec, exchange);
          refused.push(String(exchange.request.headers.accept));
          continue;
        }
        if (
          response.status !== 200 ||
          !isJsonContentType(response.headers['content-type']) ||
          !Array.isArray(response.json)
        ) {
          throw new CheckFailure(
            `GET /categories with Accept: ${exchange.request.headers.accept ?? '(none)'} was answered ${response.status} with Content-Type ${response.headers['content-type'] ?? 'missing'}: expected the JSON array${jsonWanted ? '' : ' or a 406 Error'}`,
            [evidenceOf(exchange, `${response.status}: ${bodyExcerpt(exchange, 80)}`, { header: 'Content-Type' })],
          );
        }
      }
      run.note(
        refused.length === 0
          ? 'the JSON array for every Accept'
          : `406 for ${refused.join('; ')}; the JSON array otherwise`,
      );
    },
  );

  check(
    {
      id: 'negotiation.error-accept-html',
      rule: '§7',
      title: "an error asked for with a browser's Accept (text/html) is still a JSON Error, not an HTML error page",
      operation: 'GET (unknown path)',
    },
    async (run) => {
      const exchange: Exchange = await run.send({
        operationId: 'unknownPath',
        method: 'GET',
        path: `/${run.target.namePrefix}-no-such-page`,
        authorization: run.bearer(),
        identity: 'main',
        accept: foreign[2],
        bypassPrism: true,
        offInterface: true,
      });
      judgeJsonError(run, exchange);
    },
  );
});

function judgeJsonError(run: CheckRun, exchange: Exchange): void {
  const response = responseOf(exchange);
  if (response.status < 400 || response.status >= 500)
    throw new CheckFailure(`expected a 4xx Error, got ${response.status}`, [
      evidenceOf(exchange, `${response.status}: ${bodyExcerpt(exchange, 80)}`),
    ]);
  expectErrorBody(run.spec, exchange);
  run.note(`${response.status}, Content-Type ${response.headers['content-type'] ?? 'missing'}`);
}

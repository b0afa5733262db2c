import { errorShapeProblems } from './error-shape.js';
import { headerValue, type ParsedResponse, parseResponses } from './http-response-parser.js';
import type { RawExchange } from './raw-exchange.js';

/**
 * Everything wrong with what the server sent back on one raw connection: unreadable bytes, a
 * hang, a 5xx, an error that is not the interface's Error object, a header smuggled in from the
 * request. Empty when the exchange was clean.
 *
 * @example expect(exchangeProblems(await rawExchange(port, pieces), { firstRequestWasHead: false, expectAnswer: true })).toEqual([]);
 */
export function exchangeProblems(
  exchange: RawExchange,
  options: { firstRequestWasHead: boolean; expectAnswer: boolean },
): string[] {
  if (exchange.timedOut) return [`the server neither answered nor closed within ${Math.round(exchange.durationMs)} ms`];
  const responses = readResponses(exchange.bytes, options.firstRequestWasHead);
  if (typeof responses === 'string') return [responses];
  const problems: string[] = [];
  const finals = responses.filter((response) => response.status >= 200);
  if (options.expectAnswer && finals.length === 0)
    problems.push(`no answer at all (client saw ${exchange.errorCode ?? 'a clean close'})`);
  for (const [index, response] of finals.entries()) {
    const where = `response ${index + 1} (${response.statusLine})`;
    if (response.status >= 500) problems.push(`${where}: a server error`);
    if (response.headers.some(([name]) => name.toLowerCase() === 'x-injected'))
      problems.push(`${where}: carries a header injected through the request`);
    const bodyless =
      response.body.length === 0 &&
      (response.status === 204 || response.status === 304 || (options.firstRequestWasHead && index === 0));
    if (response.status >= 400 && !bodyless) {
      for (const problem of errorShapeProblems({
        status: response.status,
        contentType: headerValue(response.headers, 'content-type'),
        body: response.body.toString('utf8'),
      })) {
        problems.push(`${where}: ${problem}`);
      }
    }
  }
  return problems;
}

/**
 * The responses in `bytes`, or why they cannot be read. A HEAD request may have been rejected
 * before node:http knew it was a HEAD (then the answer has a body), so both readings are tried.
 */
function readResponses(bytes: Buffer, firstRequestWasHead: boolean): ParsedResponse[] | string {
  try {
    return parseResponses(bytes, { firstRequestWasHead, connectionClosed: true });
  } catch (error) {
    if (firstRequestWasHead) {
      try {
        return parseResponses(bytes, { firstRequestWasHead: false, connectionClosed: true });
      } catch {
        // Report the first reading's error: it is the one that matches the request.
      }
    }
    return (error as Error).message;
  }
}

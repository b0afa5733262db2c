import { defineArea } from '../lib/check.js';
import { CheckFailure } from '../lib/check-errors.js';
import { bodyExcerpt, evidenceOf } from '../lib/exchange.js';
import { responseOf } from '../lib/expect-response.js';
import type { RegisterCheck } from '../lib/register-check.js';
import { callOf, getPetById, listStoreOrders, type SuiteOperation } from './operations.js';

/**
 * `GET /pets/{petId}` and `GET /store/orders`: the interface shows only that they exist, that they
 * require the key (section 5.2) and that the first is deprecated with a sunset date (section 9.3).
 * Their shapes and the form of the deprecation headers are open, so those are INFO, never FAIL.
 */
export default defineArea('Other operations (§4, §5.2, §9.3)', 'sequential', (check) => {
  for (const operation of [getPetById, listStoreOrders]) validKeyChecks(check, operation);
  deprecationCheck(check);
});

/** The valid key is accepted (not 401), and what the operation answers it (its shape is open: INFO). */
function validKeyChecks(check: RegisterCheck, operation: SuiteOperation): void {
  check(
    {
      id: `auth.valid-key:${operation.operationId}`,
      rule: '§5.2',
      title: 'valid Bearer key accepted (not 401)',
      operation: operation.label,
      operationId: operation.operationId,
    },
    async (run) => {
      const exchange = await run.send({ ...callOf(operation), authorization: run.bearer(), identity: 'main' });
      run.state.shared.set(`valid-key:${operation.operationId}`, exchange);
      const response = responseOf(exchange);
      if (response.status === 401) {
        throw new CheckFailure('the valid key was refused with 401', [
          evidenceOf(exchange, `401 with the key given by --api-key; body ${bodyExcerpt(exchange)}`, {
            header: 'Authorization',
          }),
        ]);
      }
      run.note(`answered ${response.status}`);
    },
  );

  check(
    {
      id: `other.response:${operation.operationId}`,
      rule: '§4',
      title: 'response to a valid request (shape not shown by the interface)',
      operation: operation.label,
    },
    async (run) => {
      const exchange =
        run.state.shared.get(`valid-key:${operation.operationId}`) ??
        run.skip('no response to look at: the request above did not complete');
      const response = responseOf(exchange);
      run.info(
        `${response.status}, Content-Type ${response.headers['content-type'] ?? 'missing'}, body ${bodyExcerpt(exchange, 120)}`,
      );
    },
  );
}

/** getPetById's deprecation (§9.3): whether it is announced is open; when it is, in a form clients can read. */
function deprecationCheck(check: RegisterCheck): void {
  check(
    {
      id: 'other.deprecation:getPetById',
      rule: '§9.3',
      title:
        'deprecation and sunset headers (whether they are sent is not shown; when sent, Deprecation is a date or "true", Sunset an HTTP-date not before it)',
      operation: getPetById.label,
    },
    async (run) => {
      const exchange =
        run.state.shared.get(`valid-key:${getPetById.operationId}`) ??
        run.skip('no response to look at: the request above did not complete');
      const headers = responseOf(exchange).headers;
      const deprecatedAt = deprecationTime(headers.deprecation);
      const problems = deprecationProblems(headers, deprecatedAt);
      if (problems.length > 0)
        throw new CheckFailure(
          `the deprecation of ${getPetById.label} is announced in a form no client can read: ${problems.join('; ')}`,
          [
            evidenceOf(exchange, problems.join('; '), {
              header: headers.deprecation !== undefined && deprecatedAt === null ? 'Deprecation' : 'Sunset',
            }),
          ],
        );
      const notes = [describeDeprecation(headers.deprecation), describeSunset(headers.sunset)];
      if (headers.link?.includes('deprecation') || headers.link?.includes('sunset'))
        notes.push(`Link: ${headers.link}`);
      run.info(notes.join('; '));
    },
  );
}

/** What no client can read in the Deprecation and Sunset headers (none when they are absent or well formed). */
function deprecationProblems(
  headers: Readonly<Record<string, string | undefined>>,
  deprecatedAt: ReturnType<typeof deprecationTime>,
): string[] {
  const sunsetAt = headers.sunset === undefined ? undefined : Date.parse(headers.sunset);
  const problems: string[] = [];
  if (deprecatedAt === null)
    problems.push(
      `Deprecation: ${JSON.stringify(headers.deprecation)} is neither an RFC 9745 date ("@<unix seconds>"), an HTTP-date nor "true"`,
    );
  if (sunsetAt !== undefined && !Number.isFinite(sunsetAt))
    problems.push(`Sunset: ${JSON.stringify(headers.sunset)} is not an HTTP-date (RFC 8594)`);
  if (
    typeof deprecatedAt === 'number' &&
    sunsetAt !== undefined &&
    Number.isFinite(sunsetAt) &&
    sunsetAt < deprecatedAt
  )
    problems.push(`Sunset ${headers.sunset} is before the Deprecation date ${new Date(deprecatedAt).toUTCString()}`);
  return problems;
}

/** When a Deprecation header says the operation was deprecated: epoch ms, true (no date), undefined (absent) or null (unreadable). */
function deprecationTime(value: string | undefined): number | true | undefined | null {
  if (value === undefined) return undefined;
  const text = value.trim();
  const rfc9745 = /^@(-?\d{1,15})$/.exec(text);
  if (rfc9745) return Number(rfc9745[1]) * 1000;
  if (text.toLowerCase() === 'true') return true;
  const date = Date.parse(text);
  return /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)/.test(text) && Number.isFinite(date) ? date : null;
}

/** What the Deprecation header says; RFC 9745 uses "@<unix seconds>", older drafts "true". */
function describeDeprecation(value: string | undefined): string {
  if (value === undefined) return 'no Deprecation header';
  const match = /^@(-?\d+)$/.exec(value.trim());
  if (match) return `Deprecation: ${value} (RFC 9745 date ${new Date(Number(match[1]) * 1000).toISOString()})`;
  return `Deprecation: ${value} (not the RFC 9745 "@<unix seconds>" form)`;
}

/** What the Sunset header says; RFC 8594 makes it an HTTP-date. */
function describeSunset(value: string | undefined): string {
  if (value === undefined) return 'no Sunset header';
  const time = Date.parse(value);
  return Number.isFinite(time)
    ? `Sunset: ${value} (${new Date(time).toISOString()})`
    : `Sunset: ${value} (not an HTTP-date)`;
}

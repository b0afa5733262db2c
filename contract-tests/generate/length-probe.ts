import type { CheckRun } from '../lib/check.js';
import { CheckFailure } from '../lib/check-errors.js';
import { type Exchange, evidenceOf } from '../lib/exchange.js';
import { expectErrorBody } from '../lib/expect-response.js';

/**
 * Finds the longest value a server accepts in one string field of NewCategory (section 8:
 * "limits on field sizes ... not shown", so any limit is the server's choice): plain ASCII values
 * of growing lengths until the first 400, then a bisection between the last accepted and the
 * first refused length. The result goes into the run state, where every other check reads it: a
 * valid value longer than the accepted one, refused with 400 + Error, is then that limit at work.
 */
export interface LengthFinding {
  field: string;
  acceptedBytes: number;
  refusedBytes: number | undefined;
  /** Requests sent, for the check's case count. */
  sent: number;
}

/**
 * The lengths tried in turn, each four times the last: 16 B to 4 KiB by default, to 64 KiB with
 * --thorough. No further: the interface has no delete, so every accepted value stays in every
 * client's list for good, and a list past --max-body-bytes could not be judged any more.
 */
function ladder(thorough: boolean): number[] {
  const top = thorough ? 65_536 : 4_096;
  const lengths: number[] = [];
  for (let length = 16; length <= top; length *= 4) lengths.push(length);
  return lengths;
}

/** Most creations one field's probe may cause: the ladder and a bisection of its largest gap. */
export function probeCreations(thorough: boolean): number {
  const steps = ladder(thorough);
  return steps.length + Math.ceil(Math.log2(steps.at(-1)! - (steps.at(-2) ?? 0))) + 1;
}

/**
 * Probes one field: `body(value)` is the request body with the value in that field. Refusals
 * other than 400 + Error (a 413, a 500) fail: a limit is the server's choice, its answer is not.
 *
 * @example await probeLength(run, 'name', (value) => ({ name: value }))
 */
export async function probeLength(
  run: CheckRun,
  field: string,
  body: (value: string) => Record<string, unknown>,
): Promise<LengthFinding> {
  const prefix = run.categoryName(`len-${field}`);
  // Short values are cut from the prefix (a tiny limit is possible); longer ones carry it whole.
  const valueOfLength = (length: number) =>
    length <= prefix.length + 1 ? prefix.slice(0, length) : `${prefix}-${'x'.repeat(length - prefix.length - 1)}`;
  let sent = 0;
  const accepts = async (length: number): Promise<boolean> => {
    sent += 1;
    const exchange = await run.send({
      operationId: 'createCategory',
      method: 'POST',
      path: '/categories',
      authorization: run.bearer(),
      identity: 'main',
      json: body(valueOfLength(length)),
      // Past the sizes any JSON API takes for granted, a framework's own 413 is information, not a spec violation.
      ...(length > 4_096 ? { offInterface: true } : {}),
    });
    return judgeAnswer(run, exchange, `${field} of ${length} characters`);
  };
  let accepted = 0;
  let refused: number | undefined;
  for (const length of ladder(run.target.thorough).filter((entry) => entry > prefix.length)) {
    if (await accepts(length)) accepted = length;
    else {
      refused = length;
      break;
    }
  }
  // Bisect: the limit lies between the last accepted and the first refused length.
  while (refused !== undefined && refused - accepted > 1) {
    const middle = Math.floor((accepted + refused) / 2);
    if (await accepts(middle)) accepted = middle;
    else refused = middle;
  }
  return { field, acceptedBytes: accepted, refusedBytes: refused, sent };
}

/** True for a 201, false for a 400 or 413 with an Error body (a body too large); anything else fails the check. */
function judgeAnswer(run: CheckRun, exchange: Exchange, what: string): boolean {
  const status = exchange.response?.status;
  if (status !== undefined && status >= 200 && status < 300) return true;
  if (status === 400 || status === 413) {
    expectErrorBody(run.spec, exchange);
    return false;
  }
  throw new CheckFailure(
    `a ${what} was answered ${status ?? 'with no response'}: a value too long for the server is a 400 (or a 413) with an Error body (§4 createCategory.1)`,
    [evidenceOf(exchange, `${what}: ${status ?? exchange.transportError ?? 'no response'}`)],
  );
}

/**
 * The finding as the report says it.
 *
 * @example describeFinding({ field: 'name', acceptedBytes: 50, refusedBytes: 51, sent: 9 }) // 'name: has a length limit: accepts 50 characters, refuses 51 (400)'
 */
export function describeFinding(finding: LengthFinding): string {
  return finding.refusedBytes === undefined
    ? `${finding.field}: accepts every length tried, up to ${finding.acceptedBytes} characters`
    : `${finding.field}: has a length limit: accepts ${finding.acceptedBytes} characters, refuses ${finding.refusedBytes} (400)`;
}

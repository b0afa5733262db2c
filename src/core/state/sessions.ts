/** The session every request without `X-Mock-Session` goes to: never forgotten, always listed. */
export const defaultSessionName = 'default';

/** Session names: what fits in a header, a Redis key and a log line without escaping. */
export const sessionNamePattern = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;

/**
 * Throws a RangeError naming the rule when `name` is not a valid session name.
 *
 * @example assertSessionName('ci-job-42'); // ok
 */
export function assertSessionName(name: string): void {
  if (!sessionNamePattern.test(name))
    throw new RangeError(`Invalid session name ${JSON.stringify(name.slice(0, 80))}: ${sessionNameRule}`);
}

/** Why an `X-Mock-Session` header is refused (400 invalid_session). */
export function invalidSessionMessage(name: string): string {
  return `Invalid X-Mock-Session ${JSON.stringify(name.slice(0, 80))}: ${sessionNameRule}`;
}

const sessionNameRule = '1-64 letters, digits, ".", "_", ":" or "-", starting with a letter or digit';

/**
 * What is wrong with an error answer, measured against the interface's Error object (section 2):
 * a JSON body `{code: string, message: string, status: number}` whose `status` repeats the HTTP
 * status. Returns an empty list when the answer is a proper Error.
 *
 * Returning problems instead of throwing lets a property-based test report every broken input
 * with its reasons.
 *
 * @example errorShapeProblems({ status: 401, contentType: 'application/json', body: '{"code":"unauthorized","message":"...","status":401}' }) // []
 */
export function errorShapeProblems(answer: {
  status: number;
  contentType: string | undefined;
  body: string | null;
}): string[] {
  const problems: string[] = [];
  if (answer.contentType === undefined || !/^application\/json\s*(;|$)/i.test(answer.contentType)) {
    problems.push(
      `Content-Type is ${answer.contentType === undefined ? 'missing' : JSON.stringify(answer.contentType)}, expected application/json`,
    );
  }
  if (answer.body === null || answer.body === '') return [...problems, 'the body is empty'];
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.body);
  } catch {
    return [...problems, `the body is not JSON: ${JSON.stringify(answer.body.slice(0, 80))}`];
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    return [...problems, 'the body is not a JSON object'];
  const error = parsed as Record<string, unknown>;
  if (typeof error.code !== 'string' || error.code === '') problems.push('code is not a non-empty string');
  if (typeof error.message !== 'string') problems.push('message is not a string');
  if (error.status !== answer.status)
    problems.push(`status is ${JSON.stringify(error.status)}, the HTTP status is ${answer.status}`);
  return problems;
}

/** The `code` of an Error body, or undefined when the body is not one. */
export function errorCodeOf(body: string | null): string | undefined {
  if (body === null) return undefined;
  try {
    const parsed = JSON.parse(body) as { code?: unknown };
    return typeof parsed.code === 'string' ? parsed.code : undefined;
  } catch {
    return undefined;
  }
}

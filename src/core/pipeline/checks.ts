import { HttpError } from '../errors.js';
import type { CompiledOperation } from '../spec/compiled-spec.js';
import type { MockRequest } from '../types.js';
import { assertJsonContentType, decodeJsonBody, type DecodedJsonBody } from '../wire/request-body.js';

// The checks of a request that need no state: run before the store's hit, their error answered after it.

/** The request's body, decoded and validated, with its text; undefined when the operation takes none or none came. */
export function validatedBody(request: MockRequest, operation: CompiledOperation): DecodedJsonBody | undefined {
  if (!operation.requestBody) return undefined;
  // A body the transport did not read (it answers from the head alone) is judged by its head.
  const contentType = request.headers['content-type'];
  if (request.bodyUnread) assertJsonContentType(contentType);
  const decoded = decodeJsonBody(request.body, contentType, operation.requestBody.required);
  if (!decoded.present) return undefined;
  const validator = operation.requestBody.validator;
  // The issues are built only for a body that fails (safeParse); a valid one is checked and kept as it is.
  if (!validator.isValid(decoded.value)) {
    const result = validator.safeParse(decoded.value);
    throw new HttpError('validation_failed', `Invalid request body: ${result.success ? 'it does not match the schema' : describeBodyIssues(result.error.issues, decoded.value)}`);
  }
  return decoded;
}

/** Throws `invalid_parameter` for the first path or query parameter that is missing or invalid. */
export function validateParameters(operation: CompiledOperation, pathParams: Readonly<Record<string, string>>, query: URLSearchParams): void {
  for (const parameter of operation.parameters) {
    const text = parameter.in === 'path' ? pathParams[parameter.name] : (query.get(parameter.name) ?? undefined);
    if (text === undefined) {
      if (parameter.required) throw new HttpError('invalid_parameter', `Missing required ${parameter.in} parameter ${parameter.name}`);
      continue;
    }
    const value = parameter.coerce(text);
    if (parameter.validator.isValid(value)) continue;
    const result = parameter.validator.safeParse(value);
    throw new HttpError('invalid_parameter', `Invalid ${parameter.in} parameter ${parameter.name}: ${result.success ? 'invalid value' : (result.error.issues[0]?.message ?? 'invalid value')}`);
  }
}

function describeBodyIssues(issues: readonly { path: PropertyKey[]; message: string; code: string }[], value: unknown): string {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return `the body must be a JSON object, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`;
  }
  return issues
    .slice(0, 5)
    .map((issue) => {
      const field = issue.path.map(String).join('.') || 'body';
      const missing = issue.path.length === 1 && !Object.hasOwn(value, issue.path[0] as string);
      if (missing) return `${field} is required`;
      return `${field}: ${issue.message.replace(/^Invalid input: /, '')}`;
    })
    .join('; ');
}

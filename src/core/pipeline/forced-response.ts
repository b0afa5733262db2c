import type { DataGenerator } from '../../../spec/data-generator.js';
import { type ErrorBody, type ErrorCode, HttpError } from '../errors.js';
import type { CompiledOperation } from '../spec/compiled-spec.js';
import type { Preferences } from '../wire/prefer-header.js';

/** The code a forced error status (`Prefer: code=...`) carries: the most typical one of that status. */
const forcedErrorCodes: Partial<Record<number, ErrorCode>> = {
  400: 'validation_failed',
  401: 'unauthorized',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  500: 'internal_error',
};

/** A response forced by `Prefer`; its body is made only when it is served (fake data draws from the seeded generator). */
export interface ForcedResponse {
  status: number;
  /** `key`: the request's draw key, so a forced status without an example answers the same data for the same request. */
  body(key?: string): unknown;
}

/**
 * The forced-response logic of `Prefer: code=`, `example=` and `dynamic=true` (Prism's names):
 * undefined when nothing is forced (or when the operation's own success is asked for without an
 * example: served for real). Throws `invalid_prefer` for what cannot be honoured. Pure: it counts
 * nothing and needs no state, so the core judges it before the request's one store round trip.
 *
 * @example forcedResponse(operation, { code: 429 }, data) // { status: 429, body: () => ({ code: 'rate_limited', … }) }
 */
export function forcedResponse(
  operation: CompiledOperation,
  preferences: Preferences,
  data: DataGenerator,
): ForcedResponse | undefined {
  if (preferences.code === undefined && preferences.example === undefined && !preferences.dynamic) return undefined;
  const status = preferences.code ?? operation.successStatus ?? 200;
  const response = operation.responses.get(status);
  if (!response) {
    throw new HttpError(
      'invalid_prefer',
      `Prefer: code=${status} is not declared for ${operation.operationId}; declared: ${[...operation.responses.keys()].join(', ')}`,
    );
  }
  if (preferences.example !== undefined) {
    if (!response.examples.has(preferences.example)) {
      const names = [...response.examples.keys()];
      throw new HttpError(
        'invalid_prefer',
        `Prefer: example=${preferences.example.slice(0, 60)} is not an example of ${operation.operationId} ${status}; examples: ${names.length > 0 ? names.join(', ') : 'none'}`,
      );
    }
    const example = response.examples.get(preferences.example);
    return { status, body: () => example };
  }
  if (status >= 400) {
    const code = forcedErrorCodes[status] ?? 'forced_error';
    return { status, body: () => ({ code, message: `Forced by Prefer: code=${status}`, status }) satisfies ErrorBody };
  }
  const schema = response.schema;
  if (preferences.dynamic && schema !== undefined) return { status, body: () => data.generate(schema) };
  // The operation's own success status with no example asked for: serve it for real.
  if (status === operation.successStatus && !preferences.dynamic) return undefined;
  const example = response.examples.values().next();
  return {
    status,
    body: (key) =>
      example.done
        ? schema === undefined
          ? null
          : data.generate(schema, key === undefined ? {} : { key })
        : example.value,
  };
}

import type { CompiledSpec } from './compiled-spec.js';
import type { CompiledMedia } from './media.js';

/**
 * Whether answering the spec's operations may draw fake data (so a page should load faker before
 * its first answer): a response body with a schema and no example the schema accepts, or a declared
 * header of a success response with a schema and no example, other than the rate-limit headers the
 * mock writes itself. `Prefer: code=/example=/dynamic=` requests may draw too; the caller checks
 * those per request. The examples' validators are compiled here.
 *
 * @example specDrawsFakeData(compileSpec(petstoreSpec)); // false: every answer has its example
 */
export function specDrawsFakeData(spec: CompiledSpec): boolean {
  for (const operation of spec.operations) {
    for (const response of [...operation.responses.values(), ...operation.rangeResponses.values()])
      if (response.media.some(drawsFor)) return true;
    const success = operation.responses.get(operation.successStatus ?? 200);
    if (success?.headers.some(({ name, schema, examples }) => examples.length === 0 && drawnHeader(name, schema)))
      return true;
  }
  return false;
}

/** Headers the mock writes itself (the rate limiter's, the body's): a spec that requires them gets them without a draw. */
const writtenByTheMock = /^(x-ratelimit-|ratelimit|retry-after$|content-type$|content-length$)/i;

function drawnHeader(name: string, schema: unknown): boolean {
  return schema !== undefined && !writtenByTheMock.test(name) && !hasExamples(schema);
}

function drawsFor(media: CompiledMedia): boolean {
  if (media.schema === undefined) return false;
  const validator = media.kind === 'json' ? media.validator : undefined;
  for (const example of media.examples.values())
    if (validator === undefined || validator.isValid(example)) return false;
  return true;
}

function hasExamples(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && Array.isArray((schema as { examples?: unknown }).examples)
    ? (schema as { examples: unknown[] }).examples.length > 0
    : false;
}

import { validatorAt } from '../../../spec/compile-spec.js';
import {
  givenListKeywords,
  givenMapKeywords,
  givenSchemaKeywords,
  givenValues,
  pointerSegment,
} from '../../../spec/given-values.js';
import type { JsonSchema } from '../../../spec/openapi-types.js';
import { nodeAt, originOf, type ResolvedDocument } from '../../../spec/ref-resolver.js';
import { validatorModulesAvailable } from '../../../spec/validator-modules.js';
import type { CompiledSpec } from './compiled-spec.js';

/** Lines said at start; past them, one line counts the rest. */
const maxLines = 20;

/**
 * Says, once and without holding up the start, the examples (and defaults) of the document's
 * responses that break their own schema: the mock never serves them (`media-answers.ts`,
 * `DataGenerator`), and the author should know why an answer does not hold the example they wrote.
 * Checking compiles a validator per example (3 s on Box's 1.7 MB), so it runs after the start in
 * slices of 15 ms between requests. Not where the validator is not loaded (a page: nothing is
 * served unchecked there either).
 * Returns what stops it (a reload, `close`).
 *
 * @example const stop = warnOfBrokenExamples(spec, logger.warn); // later: 'The examples[0] at #/components/schemas/Pet/properties/id breaks its schema (must be >= 1): not served'
 */
export function warnOfBrokenExamples(spec: CompiledSpec, warn: (line: string) => void): () => void {
  if (!validatorModulesAvailable()) return () => {};
  const problems = brokenExamples(spec);
  let said = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const step = () => {
    const until = performance.now() + 15;
    while (performance.now() < until) {
      const next = problems.next();
      if (next.done) {
        if (said > maxLines) warn(`... and ${said - maxLines} more examples that break their schemas (not served)`);
        return;
      }
      if (next.value === undefined) continue;
      said += 1;
      if (said <= maxLines) warn(next.value);
    }
    timer = later(step);
  };
  timer = later(step);
  return () => clearTimeout(timer);
}

/** A step on the next turn that does not keep a Node process alive. */
function later(step: () => void): ReturnType<typeof setTimeout> {
  const timer = setTimeout(step, 0);
  (timer as { unref?: () => void }).unref?.();
  return timer;
}

/**
 * The examples of the document's responses that break their schema, one line each (`undefined`
 * between operations, where a caller may pause): each response's media examples, and its schema's
 * nodes through references, each node once.
 */
function* brokenExamples(spec: CompiledSpec): Generator<string | undefined> {
  const visited = new Set<string>();
  for (const operation of spec.operations) {
    yield undefined;
    for (const response of [...operation.responses.values(), ...operation.rangeResponses.values()]) {
      for (const media of response.media) {
        if (media.kind !== 'json' || media.schema === undefined || media.validator === undefined) continue;
        for (const [name, example] of media.examples) {
          const issue = firstIssue(() => media.validator!, example);
          if (issue !== undefined)
            yield `The example "${name.slice(0, 60)}" of ${operation.method.toUpperCase()} ${operation.pathTemplate.slice(0, 120)} ${response.statusKey} ${media.essence} breaks its schema (${issue}): not served`;
        }
        const origin = originOf(media.schema);
        if (origin !== undefined) yield* auditNodes(origin.resolved, origin.pointer, visited);
      }
    }
  }
}

/** Every node below `pointer` (references followed once): its examples and default checked where they are written. */
function* auditNodes(resolved: ResolvedDocument, pointer: string, visited: Set<string>): Generator<string | undefined> {
  const stack = [pointer];
  while (stack.length > 0) {
    const at = stack.pop()!;
    if (visited.has(at) || visited.size > 200_000) continue;
    visited.add(at);
    // A pause point per node: one operation's schema may hold thousands, each a validator to compile.
    yield undefined;
    const node = nodeAt(resolved.source, at) as JsonSchema | undefined;
    if (node === null || typeof node !== 'object' || Array.isArray(node)) continue;
    for (const { value, where } of givenValues(node, 'default')) {
      const issue = firstIssue(() => validatorAt(resolved, at, `#${at}`), value);
      if (issue !== undefined) yield `The ${where} at #${at.slice(0, 200)} breaks its schema (${issue}): not served`;
    }
    if (typeof node.$ref === 'string' && node.$ref.startsWith('#/')) stack.push(decodeURIComponent(node.$ref.slice(1)));
    for (const [key, value] of Object.entries(node)) {
      if (givenMapKeywords.has(key) && value !== null && typeof value === 'object')
        for (const name of Object.keys(value)) stack.push(`${at}/${key}/${pointerSegment(name)}`);
      else if (givenSchemaKeywords.has(key)) stack.push(`${at}/${key}`);
      else if (givenListKeywords.has(key) && Array.isArray(value))
        for (let index = 0; index < value.length; index += 1) stack.push(`${at}/${key}/${index}`);
    }
  }
}

/** The first reason a value breaks a schema (ajv's message, with where in the value), or undefined when it fits. */
function firstIssue(
  validator: () => {
    safeParse(value: unknown): {
      success: boolean;
      error?: { issues: { path: (string | number)[]; message: string }[] };
    };
  },
  value: unknown,
): string | undefined {
  try {
    const result = validator().safeParse(value);
    if (result.success) return undefined;
    const issue = result.error?.issues[0];
    if (issue === undefined) return 'invalid';
    return `${issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''}${issue.message}`.slice(0, 200);
  } catch {
    // A schema that cannot be compiled alone (a reference it cannot reach) is not the example's fault.
    return undefined;
  }
}

import type { OpenApiDocument } from './openapi-types.js';
import { resolveDocument } from './ref-resolver.js';

/**
 * Returns the document with every local `$ref` (`#/...`) replaced by what it points to, so
 * consumers never follow references themselves. Targets are shared, not copied (linear in the
 * document); a recursive schema becomes an object cycle. Sibling keywords of a `$ref` (allowed in
 * 3.1) are kept and win over the target's. External references are refused.
 *
 * @example const doc = resolveRefs(parsedYaml); doc.paths['/categories'].get.responses['401']
 */
export function resolveRefs(document: OpenApiDocument): OpenApiDocument {
  return resolveDocument(document).document;
}

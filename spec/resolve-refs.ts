import type { OpenApiDocument } from './openapi-types.js';

/**
 * Returns a copy of the document with every local `$ref` (`#/...`) replaced by what it points to,
 * so consumers never follow references themselves. Sibling keywords of a `$ref` (allowed in 3.1)
 * are kept and win over the target's.
 *
 * @example const doc = resolveRefs(parsedYaml); doc.paths['/categories'].get.responses['401']
 */
export function resolveRefs(document: OpenApiDocument): OpenApiDocument {
  return resolveNode(document, document, []) as OpenApiDocument;
}

function resolveNode(node: unknown, root: unknown, stack: string[]): unknown {
  if (Array.isArray(node)) return node.map((item) => resolveNode(item, root, stack));
  if (node === null || typeof node !== 'object') return node;
  const record = node as Record<string, unknown>;
  const ref = record.$ref;
  if (typeof ref === 'string') {
    if (!ref.startsWith('#/')) throw new Error(`Failed to resolve $ref ${ref}: only local references (#/...) are supported`);
    if (stack.includes(ref)) throw new Error(`Failed to resolve $ref ${ref}: it refers to itself (${[...stack, ref].join(' -> ')})`);
    const target = pointer(root, ref);
    const resolved = resolveNode(target, root, [...stack, ref]) as Record<string, unknown>;
    const { $ref: _ignored, ...siblings } = record;
    const siblingsResolved = resolveNode(siblings, root, stack) as Record<string, unknown>;
    return { ...resolved, ...siblingsResolved };
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    // defineProperty keeps a literal "__proto__" key from a hostile document a plain key.
    Object.defineProperty(out, key, { value: resolveNode(value, root, stack), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function pointer(root: unknown, ref: string): unknown {
  let current: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const segment = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, segment)) {
      throw new Error(`Failed to resolve $ref ${ref}: nothing at "${segment}"`);
    }
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

import { recordShell } from './compact-record.js';
import type { OpenApiDocument } from './openapi-types.js';
import { documentNameMaps, isDataKey } from './schema-walk.js';

/**
 * An OpenAPI document with its local `$ref`s resolved by sharing: every reference to the same
 * target is the same object, so resolution costs one visit per node of the document however
 * often (or however deeply) a definition is reused. A recursive schema (legal in OpenAPI 3.1)
 * becomes an object cycle: walk `document` with a visited set, never with naive recursion or
 * `JSON.stringify`.
 */
export interface ResolvedDocument {
  /** The document with references replaced by (shared) targets. */
  document: OpenApiDocument;
  /** The document as given, references untouched (what a JSON Schema validator should see). */
  source: OpenApiDocument;
  /**
   * Where a resolved object comes from in `source`, as a JSON pointer (`/components/schemas/Pet`),
   * for the document, the schemas of parameters, headers, bodies, responses and components, and
   * every reference target. A reference with sibling keywords maps to the reference itself
   * (validators read both).
   */
  pointerOf(node: unknown): string | undefined;
  /** Nodes visited: the measure of the document's complexity that the budget bounds. */
  nodeCount: number;
}

/** Where each resolved object came from, across documents (objects are immutable facts). */
const origins = new WeakMap<object, { pointer: string; resolved: ResolvedDocument }>();

/**
 * The document and JSON pointer a resolved object comes from, if it came from `resolveDocument`.
 *
 * @example originOf(spec.document.components.schemas.Category)?.pointer; // '/components/schemas/Category'
 */
export function originOf(node: unknown): { pointer: string; resolved: ResolvedDocument } | undefined {
  return node !== null && typeof node === 'object' ? origins.get(node) : undefined;
}

export interface ResolveOptions {
  /** Refuse documents with more nodes than this (after sharing). Default `defaultMaxSpecNodes`. */
  maxNodes?: number;
  /** The caller has already refused a document over the budget (`refuseOversized`): not counted again. */
  counted?: boolean;
}

/** Generous for any real API (the Petstore spec has about 600 nodes; large public APIs ~200,000). */
const defaultMaxSpecNodes = 2_000_000;
/** Nesting deeper than this is no real API; it would only exhaust the stack. */
const maxNesting = 1_000;

/** Thrown for documents the kit cannot serve; the message is one line, ready for a user. */
export class SpecError extends Error {
  override name = 'SpecError';
}

/**
 * Refuses a document with more nodes (objects and arrays) than the budget, as `resolveDocument` does
 * first: counting is cheap (no allocation), so an oversized document is refused in well under a second,
 * before anything reads it further.
 *
 * @example refuseOversized(parsed); // throws 'Failed to compile spec: it is too complex to serve (...)'
 */
export function refuseOversized(source: OpenApiDocument, maxNodes = defaultMaxSpecNodes): void {
  if (countNodes(source, maxNodes) > maxNodes) throw tooComplex(maxNodes);
}

/**
 * Resolves every local reference (`#/...`) of the document, sharing what it resolved. External
 * references (`other.yaml#/Pet`, `https://...`) are refused with a message naming the reference,
 * as are cycles made of references alone (`A: {$ref: B}, B: {$ref: A}`: nothing to serve) and
 * documents beyond the node budget.
 *
 * @example
 * const { document, pointerOf } = resolveDocument(parsed);
 * pointerOf(document.components!.schemas!.Category); // '/components/schemas/Category'
 */
export function resolveDocument(source: OpenApiDocument, options: ResolveOptions = {}): ResolvedDocument {
  const maxNodes = options.maxNodes ?? defaultMaxSpecNodes;
  if (options.counted !== true) refuseOversized(source, maxNodes);
  const resolution = new Resolution(source, maxNodes);
  let document: OpenApiDocument;
  try {
    document = resolution.visit(source, '', false, 0) as OpenApiDocument;
  } catch (error) {
    if (error instanceof RangeError) throw new SpecError(`Failed to compile spec: it is nested too deeply to serve`);
    throw error;
  }
  resolution.register(document, '');
  const { pointers } = resolution;
  const resolved: ResolvedDocument = {
    document,
    source,
    nodeCount: resolution.nodeCount,
    pointerOf: (node) => (node !== null && typeof node === 'object' ? pointers.get(node) : undefined),
  };
  for (const [node, pointer] of pointers) origins.set(node, { pointer, resolved });
  return resolved;
}

/** One resolution of one document: what each node resolved to, and where the objects callers hand around come from. */
class Resolution {
  /** What each node of the source resolved to (itself where nothing below it is a reference). */
  readonly #resolvedByRaw = new Map<object, unknown>();
  /** Resolved objects still being filled: a reference reaching one is a cycle through it. */
  readonly #filling = new Set<object>();
  /** References being followed: reaching one again is a cycle of references alone. */
  readonly #followingRefs = new Set<object>();
  /** The source's node at each pointer a reference named (looked up once). */
  readonly #targets = new Map<string, unknown>();
  /**
   * Pointers are kept for what callers hand around (the document, the schemas of parameters, bodies,
   * responses and components, reference targets), not for every node: that would double the cost.
   */
  readonly pointers = new Map<object, string>();
  nodeCount = 0;

  constructor(
    readonly source: OpenApiDocument,
    readonly maxNodes: number,
  ) {}

  register(node: unknown, pointer: string): void {
    // Kept flat: a pointer built segment by segment is a chain of concatenations, several times its length.
    if (node !== null && typeof node === 'object' && !this.pointers.has(node)) this.pointers.set(node, flat(pointer));
  }

  visit(raw: unknown, pointer: string, isNameMap: boolean, depth: number): unknown {
    if (raw === null || typeof raw !== 'object') return raw;
    const done = this.#resolvedByRaw.get(raw);
    if (done !== undefined) return done;
    if (depth > maxNesting)
      throw new SpecError(
        `Failed to compile spec: it is nested more than ${maxNesting} levels deep (at #${pointer.slice(0, 200)})`,
      );
    this.#count(1);
    if (Array.isArray(raw)) return this.#visitArray(raw, pointer, depth);
    if (!isNameMap && typeof (raw as Record<string, unknown>).$ref === 'string')
      return this.#visitReference(raw as Record<string, unknown>, pointer, depth);
    return this.#visitRecord(raw as Record<string, unknown>, pointer, isNameMap, depth);
  }

  #visitArray(raw: unknown[], pointer: string, depth: number): unknown {
    const out: unknown[] = [];
    this.#resolvedByRaw.set(raw, out);
    this.#filling.add(out);
    let same = true;
    for (const [index, item] of raw.entries()) {
      const resolved = this.visit(item, `${pointer}/${index}`, false, depth + 1);
      same &&= resolved === item;
      out.push(resolved);
    }
    this.#filling.delete(out);
    return same ? this.#shared(raw, out) : out;
  }

  #visitRecord(raw: Record<string, unknown>, pointer: string, isNameMap: boolean, depth: number): unknown {
    // Filled key by key below, so made small up front when its keys look like indexes ("200").
    const out = recordShell(Object.keys(raw));
    this.#resolvedByRaw.set(raw, out);
    this.#filling.add(out);
    const isSchemas = pointer === '/components/schemas';
    let same = true;
    for (const key in raw) {
      if (!Object.hasOwn(raw, key)) continue;
      const value = raw[key];
      const resolved =
        !isNameMap && isDataKey(key, value)
          ? value
          : this.visit(value, `${pointer}/${escapePointer(key)}`, !isNameMap && documentNameMaps.has(key), depth + 1);
      same &&= resolved === value;
      setOwn(out, key, resolved);
      if (isSchemas || (!isNameMap && key === 'schema')) this.register(resolved, `${pointer}/${escapePointer(key)}`);
    }
    this.#filling.delete(out);
    return same ? this.#shared(raw, out) : out;
  }

  /**
   * A node with no reference below it is its own resolution: the document shares it with the source
   * instead of holding a copy (a copy doubled the heap of a large document). Nothing can point at the
   * copy yet: only a reference below the node (there is none) reaches a node while it is being filled.
   */
  #shared<T extends object>(raw: T, copy: object): T {
    this.#resolvedByRaw.set(raw, raw);
    const pointer = this.pointers.get(copy);
    if (pointer !== undefined) {
      this.pointers.delete(copy);
      this.register(raw, pointer);
    }
    return raw;
  }

  #visitReference(raw: Record<string, unknown>, pointer: string, depth: number): unknown {
    const ref = raw.$ref as string;
    if (this.#followingRefs.has(raw)) {
      throw new SpecError(
        `Failed to resolve $ref ${quoteRef(ref)} at #${pointer.slice(0, 200)}: it refers to itself through references alone, with no schema to serve`,
      );
    }
    this.#followingRefs.add(raw);
    let target: unknown;
    try {
      const targetPointer = localPointer(ref, pointer);
      target = this.visit(this.#rawAt(targetPointer, ref, pointer), targetPointer, false, depth + 1);
      this.register(target, targetPointer);
    } finally {
      this.#followingRefs.delete(raw);
    }
    if (Object.keys(raw).length === 1) {
      this.#resolvedByRaw.set(raw, target);
      return target;
    }
    return this.#withSiblings(raw, target, pointer, depth);
  }

  /** Sibling keywords of a $ref (3.1): kept, and they win over the target's (summary, description). */
  #withSiblings(
    raw: Record<string, unknown>,
    target: unknown,
    pointer: string,
    depth: number,
  ): Record<string, unknown> {
    const siblings = Object.keys(raw).filter((key) => key !== '$ref');
    const merged: Record<string, unknown> = {};
    this.#resolvedByRaw.set(raw, merged);
    this.register(merged, pointer);
    if (target !== null && typeof target === 'object' && !Array.isArray(target)) {
      if (this.#filling.has(target)) {
        // The target is still being built (a cycle through this very reference): keep it whole.
        merged.allOf = [target];
      } else {
        const entries = Object.entries(target);
        this.#count(entries.length);
        for (const [key, value] of entries) setOwn(merged, key, value);
      }
    }
    for (const key of siblings) {
      const value = raw[key];
      setOwn(
        merged,
        key,
        isDataKey(key, value)
          ? value
          : this.visit(value, `${pointer}/${escapePointer(key)}`, documentNameMaps.has(key), depth + 1),
      );
    }
    return merged;
  }

  #rawAt(targetPointer: string, ref: string, at: string): unknown {
    if (this.#targets.has(targetPointer)) return this.#targets.get(targetPointer);
    let current: unknown = this.source;
    for (const segment of splitPointer(targetPointer)) {
      if (current === null || typeof current !== 'object' || !Object.hasOwn(current, segment)) {
        throw new SpecError(
          `Failed to resolve $ref ${quoteRef(ref)} at #${at.slice(0, 200)}: nothing at "${segment.slice(0, 100)}"`,
        );
      }
      current = (current as Record<string, unknown>)[segment];
    }
    this.#targets.set(targetPointer, current);
    return current;
  }

  #count(amount: number): void {
    this.nodeCount += amount;
    if (this.nodeCount > this.maxNodes) throw tooComplex(this.maxNodes);
  }
}

/** `text` as one flat string: V8 flattens a concatenation when a character is read, and drops its parts. */
function flat(text: string): string {
  if (text.length > 0) text.charCodeAt(0);
  return text;
}

/** The node of `source` at a JSON pointer, or undefined. */
export function nodeAt(source: unknown, pointer: string): unknown {
  let current = source;
  for (const segment of splitPointer(pointer)) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

function tooComplex(maxNodes: number): SpecError {
  return new SpecError(
    `Failed to compile spec: it is too complex to serve (more than ${maxNodes} nodes); split it or remove unused parts`,
  );
}

/** Objects and arrays in a document, counting up to `limit + 1` at most. */
function countNodes(root: unknown, limit: number): number {
  let count = 0;
  const stack: unknown[] = [root];
  const seen = new Set<object>();
  while (stack.length > 0 && count <= limit) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object' || seen.has(node)) continue;
    seen.add(node);
    count += 1;
    if (Array.isArray(node)) {
      for (const item of node) if (item !== null && typeof item === 'object') stack.push(item);
    } else {
      for (const key in node) {
        const value = (node as Record<string, unknown>)[key];
        if (value !== null && typeof value === 'object') stack.push(value);
      }
    }
  }
  return count;
}

/**
 * The JSON pointer of a local reference (`#/components/schemas/Pet` -> `/components/schemas/Pet`);
 * anything else is refused with one line naming the reference.
 */
export function localPointer(ref: string, at: string): string {
  if (ref === '#') return '';
  if (ref.startsWith('#/')) return ref.slice(1);
  if (ref.startsWith('#')) {
    throw new SpecError(
      `Failed to resolve $ref ${quoteRef(ref)} at #${at.slice(0, 200)}: anchors ($anchor) are not supported; refer by JSON pointer (#/components/schemas/...)`,
    );
  }
  throw new SpecError(
    `Failed to resolve $ref ${quoteRef(ref)} at #${at.slice(0, 200)}: external references (other files, URLs) are refused; bundle the spec into one document first (for example: npx @redocly/cli bundle)`,
  );
}

/** `/components/schemas/a~1b` -> ['components', 'schemas', 'a/b'] (RFC 6901, in a URI fragment). */
export function splitPointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((raw) => {
      let segment = raw;
      try {
        segment = decodeURIComponent(raw);
      } catch {
        // Not percent-encoded after all: use it as written.
      }
      return segment.replaceAll('~1', '/').replaceAll('~0', '~');
    });
}

export function escapePointer(segment: string): string {
  return segment.includes('~') || segment.includes('/') ? segment.replaceAll('~', '~0').replaceAll('/', '~1') : segment;
}

/** Short and printable: a reference comes from a file the user may not trust. */
function quoteRef(ref: string): string {
  const short = ref.length > 200 ? `${ref.slice(0, 200)}...` : ref;
  // eslint-disable-next-line no-control-regex
  return short.replace(
    /[\u0000-\u001f\u007f-\u009f]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  // defineProperty keeps a literal "__proto__" key from a hostile document a plain key.
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

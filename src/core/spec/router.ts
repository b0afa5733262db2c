import type { CompiledOperation } from './compiled-spec.js';
import { conditionHolds, type QueryCondition, queryConditionOf, queryValuesOf, routedPath } from './path-key.js';

export type RouteMatch =
  | { kind: 'operation'; operation: CompiledOperation; pathParams: Readonly<Record<string, string>> }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

/** The operations of one path template, by method. */
interface Endpoint {
  /** Position of the template in the spec: of two templates matching one path, the first wins. */
  order: number;
  byMethod: Map<string, CompiledOperation>;
  /**
   * Per method, when one URL carries several operations (keys with a `#fragment` or a `?query` of
   * their own) or one needs a query: each with its key's query condition, in document order (rare:
   * made with the first).
   */
  alternatives: Map<string, Alternative[]> | undefined;
  allow: string[];
  parameterNames: string[];
  /** Some key of it has no query: its path names a resource of its own (`/pets/mine`), not only a query key's. */
  plain: boolean;
}

/** An operation of a URL other operations share, and the query its path key asks for. */
interface Alternative {
  operation: CompiledOperation;
  condition: QueryCondition;
}

/** One segment position of the templated paths. */
interface TrieNode {
  /** Created with its first child: most nodes of a large document are leaves (a Map each was 230 bytes). */
  literal: Map<string, TrieNode> | undefined;
  /** A whole-segment parameter (`{petId}`). */
  parameter: TrieNode | undefined;
  /** Segments mixing text and parameters (`{name}.json`), rare: matched by their own pattern. */
  mixed: { pattern: MixedSegment; node: TrieNode }[];
  endpoints: Endpoint[];
}

const newNode = (): TrieNode => ({ literal: undefined, parameter: undefined, mixed: [], endpoints: [] });

/**
 * Finds the operation for a method and a path relative to the base path, in time that depends on
 * the path, not on the number of operations: literal paths in a map, templated ones in a trie of
 * segments. Literal paths win over templated ones (`/pets/mine` before `/pets/{petId}`), as
 * OpenAPI asks, and of two templates the more specific one that has the method (a literal segment
 * before a parameter, from the left; then the one written first). A path that exists without the
 * method is `method-not-allowed`, with the methods its most specific template has.
 *
 * @example
 * const route = createRouter(spec.operations);
 * route('GET', '/pets/7'); // { kind: 'operation', operation: getPetById, pathParams: { petId: '7' } }
 */
export function createRouter(
  operations: CompiledOperation[],
): (method: string, path: string, query?: string) => RouteMatch {
  const literalPaths = new Map<string, Endpoint>();
  const root = newNode();
  const endpointsByTemplate = new Map<string, Endpoint>();

  operations.forEach((operation, order) => {
    // Requests are routed without trailing slashes: so are the templates (`/items/`, as Django and FastAPI write them).
    const template = withoutTrailingSlashes(routedPath(operation.pathTemplate));
    const condition = queryConditionOf(operation.pathTemplate);
    let endpoint = endpointsByTemplate.get(template);
    if (endpoint === undefined) {
      endpoint = {
        order,
        byMethod: new Map(),
        alternatives: undefined,
        allow: [],
        parameterNames: operation.parameterNames,
        plain: false,
      };
      endpointsByTemplate.set(template, endpoint);
      if (!template.includes('{')) literalPaths.set(template, endpoint);
      else insert(root, template, endpoint);
    }
    if (condition.length === 0) endpoint.plain = true;
    const first = endpoint.byMethod.get(operation.method);
    if (first === undefined) endpoint.byMethod.set(operation.method, operation);
    const listed = endpoint.alternatives?.get(operation.method);
    if (listed !== undefined) listed.push({ operation, condition });
    else if (first !== undefined || condition.length > 0) {
      endpoint.alternatives ??= new Map();
      const before = first === undefined ? [] : [{ operation: first, condition: queryConditionOf(first.pathTemplate) }];
      endpoint.alternatives.set(operation.method, [...before, { operation, condition }]);
    }
  });
  for (const endpoint of endpointsByTemplate.values()) {
    answerHeadAsGet(endpoint);
    endpoint.allow = [...endpoint.byMethod.keys()].sort();
  }

  return (method, path, query = '') => {
    const literal = literalPaths.get(path);
    // A literal path answers for itself, unless its operation for the method needs a query the request lacks,
    // or only query keys name it (`/responses/compact?beta=true`) and it has no operation for the method.
    if (
      literal !== undefined &&
      (operationFor(literal, method, query) !== undefined || (literal.plain && !literal.byMethod.has(method)))
    )
      return answer(literal, method, [], query);
    const matches = findTemplates(root, path.split('/'));
    // The most specific template that has the method (`/media/{id}/watch_data` before `/media/{id}/{status}`),
    // and whose key's query the request meets (`/x/{id}?beta=true` beside `/x/{name}`).
    const found = matches.find((match) => operationFor(match.endpoint, method, query) !== undefined);
    if (found !== undefined) return answer(found.endpoint, method, found.captures, query);
    if (literal !== undefined) return answer(literal, method, [], query);
    if (matches.length === 0) return notFound;
    const fallback = matches.find((match) => match.endpoint.byMethod.has(method)) ?? matches[0]!;
    return answer(fallback.endpoint, method, fallback.captures, query);
  };
}

/**
 * Of the operations one URL carries under several keys, the one the query names: of those whose
 * key's query the request meets (`/responses?beta=true` needs `beta=true`; a plain key always
 * holds), the one whose key asks most of the query; then the most required query parameters all
 * present (Box's `GET /files/{id}?fields=shared_link` is its `#get_shared_link`); then the first
 * written. Undefined when the request meets none (a key with a query and no plain twin).
 */
function alternativeFor(alternatives: readonly Alternative[], query: string): CompiledOperation | undefined {
  const present = queryValuesOf(query);
  let chosen: CompiledOperation | undefined;
  let chosenRank = [-1, -1];
  for (const { operation, condition } of alternatives) {
    if (!conditionHolds(condition, present)) continue;
    const required = operation.parameters.filter((parameter) => parameter.in === 'query' && parameter.required);
    const named = required.every((parameter) => present.has(parameter.name)) ? required.length : -1;
    const rank = [condition.length, named];
    if (rank[0]! > chosenRank[0]! || (rank[0] === chosenRank[0] && rank[1]! > chosenRank[1]!)) {
      chosen = operation;
      chosenRank = rank;
    }
  }
  return chosen;
}

/**
 * HEAD is GET without content (RFC 9110 §9.3.2: every general-purpose server supports both): an
 * endpoint with GET and no HEAD of its own answers HEAD with its GET operations, alternatives
 * included, so HEAD meets GET's auth, limits and validation and `Allow` lists it. The answer's
 * content is dropped where every answer ends (`withoutContentForHead`, recording.ts).
 */
function answerHeadAsGet(endpoint: Endpoint): void {
  const get = endpoint.byMethod.get('GET');
  if (get === undefined || endpoint.byMethod.has('HEAD')) return;
  endpoint.byMethod.set('HEAD', get);
  const alternatives = endpoint.alternatives?.get('GET');
  if (alternatives !== undefined) endpoint.alternatives!.set('HEAD', alternatives);
}

/** The operation of an endpoint for a method and a query; undefined when it has none the query meets. */
function operationFor(endpoint: Endpoint, method: string, query: string): CompiledOperation | undefined {
  const alternatives = endpoint.alternatives?.get(method);
  return alternatives === undefined ? endpoint.byMethod.get(method) : alternativeFor(alternatives, query);
}

function withoutTrailingSlashes(template: string): string {
  let end = template.length;
  while (end > 1 && template.charCodeAt(end - 1) === 47) end -= 1;
  return template.slice(0, end);
}

/** The one answer for a path no operation has (shared, so frozen). */
const notFound: RouteMatch = Object.freeze({ kind: 'not-found' });

function answer(endpoint: Endpoint, method: string, captures: string[], query: string): RouteMatch {
  const operation = operationFor(endpoint, method, query);
  if (operation === undefined)
    // The method is there, under a key whose query the request does not carry: that URL has no operation.
    return endpoint.byMethod.has(method) ? notFound : { kind: 'method-not-allowed', allow: endpoint.allow };
  const pathParams: Record<string, string> = {};
  endpoint.parameterNames.forEach((name, index) => {
    pathParams[name] = safeDecode(captures[index] ?? '');
  });
  return { kind: 'operation', operation, pathParams };
}

function insert(root: TrieNode, template: string, endpoint: Endpoint): void {
  let node = root;
  for (const segment of template.split('/')) {
    if (/^\{[^{}]+\}$/.test(segment)) {
      node.parameter ??= newNode();
      node = node.parameter;
    } else if (segment.includes('{')) {
      const pattern = new MixedSegment(segment);
      let child = node.mixed.find((entry) => entry.pattern.source === pattern.source);
      if (child === undefined) {
        child = { pattern, node: newNode() };
        node.mixed.push(child);
      }
      node = child.node;
    } else {
      node.literal ??= new Map();
      let child = node.literal.get(segment);
      if (child === undefined) {
        child = newNode();
        node.literal.set(segment, child);
      }
      node = child;
    }
  }
  node.endpoints.push(endpoint);
  node.endpoints.sort((a, b) => a.order - b.order);
}

/**
 * Every template matching the path, the most specific first (a literal segment before a mixed one
 * before a parameter, from the left), then in the order written. Every trie node sits at one
 * depth, so each is visited at most once: the cost is bounded by the path's length and the
 * templates that share its prefix, never by the number of operations.
 */
function findTemplates(root: TrieNode, segments: string[]): { endpoint: Endpoint; captures: string[]; rank: string }[] {
  const found: { endpoint: Endpoint; captures: string[]; rank: string }[] = [];
  const walk = (node: TrieNode, index: number, captures: string[], rank: string) => {
    if (index === segments.length) {
      for (const endpoint of node.endpoints) found.push({ endpoint, captures, rank });
      return;
    }
    const segment = segments[index]!;
    const literal = node.literal?.get(segment);
    if (literal !== undefined) walk(literal, index + 1, captures, `${rank}0`);
    if (segment === '') return;
    for (const { pattern, node: child } of node.mixed) {
      const match = pattern.exec(segment);
      if (match) walk(child, index + 1, [...captures, ...match], `${rank}1`);
    }
    if (node.parameter !== undefined) walk(node.parameter, index + 1, [...captures, segment], `${rank}2`);
  };
  walk(root, 0, [], '');
  return found.sort((a, b) => (a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : a.endpoint.order - b.endpoint.order));
}

/**
 * A segment mixing text and parameters (`{a}-{b}.json`), matched without a regular expression: a
 * pattern of several `([^/]+)` groups backtracks in time polynomial in the segment (28 s for 4,000
 * characters of dashes). Each parameter takes the text up to the first occurrence of the literal
 * after it (the last literal must end the segment); in one pass, so linear in the segment.
 */
class MixedSegment {
  readonly source: string;
  /** Literal text and parameters (null) in order, never two parameters side by side. */
  readonly #parts: (string | null)[];

  constructor(segment: string) {
    this.source = segment;
    this.#parts = segment
      .split(/(\{[^{}]+\})/)
      .filter((part) => part !== '')
      .map((part) => (/^\{[^{}]+\}$/.test(part) ? null : part));
  }

  /** The parameters' values in order, or null when the segment does not match. */
  exec(segment: string): string[] | null {
    const parts = this.#parts;
    const captures: string[] = [];
    let at = 0;
    for (let index = 0; index < parts.length; index += 1) {
      const part = parts[index]!;
      if (part !== null) {
        if (!segment.startsWith(part, at)) return null;
        at += part.length;
        continue;
      }
      const next = parts[index + 1];
      // Two parameters side by side: the first takes one character (the split is a guess either way).
      const end =
        next === undefined
          ? segment.length
          : next === null
            ? at + 1
            : index + 2 === parts.length
              ? segment.endsWith(next) && segment.length - next.length > at
                ? segment.length - next.length
                : -1
              : segment.indexOf(next, at + 1);
      if (end === -1 || end <= at || end > segment.length) return null;
      captures.push(segment.slice(at, end));
      at = end;
    }
    return at === segment.length ? captures : null;
  }
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

import type { CompiledOperation } from './compiled-spec.js';

export type RouteMatch =
  | { kind: 'operation'; operation: CompiledOperation; pathParams: Readonly<Record<string, string>> }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

/** The operations of one path template, by method. */
interface Endpoint {
  /** Position of the template in the spec: of two templates matching one path, the first wins. */
  order: number;
  byMethod: Map<string, CompiledOperation>;
  allow: string[];
  parameterNames: string[];
}

/** One segment position of the templated paths. */
interface TrieNode {
  literal: Map<string, TrieNode>;
  /** A whole-segment parameter (`{petId}`). */
  parameter: TrieNode | undefined;
  /** Segments mixing text and parameters (`{name}.json`), rare: matched by their own pattern. */
  mixed: { pattern: RegExp; node: TrieNode }[];
  endpoints: Endpoint[];
}

const newNode = (): TrieNode => ({ literal: new Map(), parameter: undefined, mixed: [], endpoints: [] });

/**
 * Finds the operation for a method and a path relative to the base path, in time that depends on
 * the path, not on the number of operations: literal paths in a map, templated ones in a trie of
 * segments. Literal paths win over templated ones (`/pets/mine` before `/pets/{petId}`), as
 * OpenAPI asks; of two templates matching one path, the one written first wins. A path that
 * exists without the method is `method-not-allowed`, with the methods it has.
 *
 * @example
 * const route = createRouter(spec.operations);
 * route('GET', '/pets/7'); // { kind: 'operation', operation: getPetById, pathParams: { petId: '7' } }
 */
export function createRouter(operations: CompiledOperation[]): (method: string, path: string) => RouteMatch {
  const literalPaths = new Map<string, Endpoint>();
  const root = newNode();
  const endpointsByTemplate = new Map<string, Endpoint>();

  operations.forEach((operation, order) => {
    let endpoint = endpointsByTemplate.get(operation.pathTemplate);
    if (endpoint === undefined) {
      endpoint = { order, byMethod: new Map(), allow: [], parameterNames: operation.parameterNames };
      endpointsByTemplate.set(operation.pathTemplate, endpoint);
      if (!operation.pathTemplate.includes('{')) literalPaths.set(operation.pathTemplate, endpoint);
      else insert(root, operation.pathTemplate, endpoint);
    }
    if (!endpoint.byMethod.has(operation.method)) endpoint.byMethod.set(operation.method, operation);
  });
  for (const endpoint of endpointsByTemplate.values()) endpoint.allow = [...endpoint.byMethod.keys()].sort();

  return (method, path) => {
    const literal = literalPaths.get(path);
    if (literal !== undefined) return answer(literal, method, []);
    const found = findTemplate(root, path.split('/'));
    return found === undefined ? notFound : answer(found.endpoint, method, found.captures);
  };
}

/** The one answer for a path no operation has (shared, so frozen). */
const notFound: RouteMatch = Object.freeze({ kind: 'not-found' });

function answer(endpoint: Endpoint, method: string, captures: string[]): RouteMatch {
  const operation = endpoint.byMethod.get(method);
  if (operation === undefined) return { kind: 'method-not-allowed', allow: endpoint.allow };
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
      const source = segment.split(/(\{[^{}]+\})/).map((part) => (/^\{[^{}]+\}$/.test(part) ? '([^/]+)' : part.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&'))).join('');
      let child = node.mixed.find((entry) => entry.pattern.source === `^${source}$`);
      if (child === undefined) {
        child = { pattern: new RegExp(`^${source}$`), node: newNode() };
        node.mixed.push(child);
      }
      node = child.node;
    } else {
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
 * The first-written template matching the path. Every trie node sits at one depth, so each is
 * visited at most once: the cost is bounded by the path's length and the templates that share its
 * prefix, never by the number of operations.
 */
function findTemplate(root: TrieNode, segments: string[]): { endpoint: Endpoint; captures: string[] } | undefined {
  let best: { endpoint: Endpoint; captures: string[] } | undefined;
  const walk = (node: TrieNode, index: number, captures: string[]) => {
    if (index === segments.length) {
      const endpoint = node.endpoints[0];
      if (endpoint !== undefined && (best === undefined || endpoint.order < best.endpoint.order)) best = { endpoint, captures };
      return;
    }
    const segment = segments[index]!;
    const literal = node.literal.get(segment);
    if (literal !== undefined) walk(literal, index + 1, captures);
    if (segment === '') return;
    if (node.parameter !== undefined) walk(node.parameter, index + 1, [...captures, segment]);
    for (const { pattern, node: child } of node.mixed) {
      const match = pattern.exec(segment);
      if (match) walk(child, index + 1, [...captures, ...match.slice(1)]);
    }
  };
  walk(root, 0, []);
  return best;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

import type { YamlModule } from '../../spec/yaml-module.js';

/**
 * Where each operation and each of its responses is written in an OpenAPI document's text (YAML or
 * JSON alike: JSON is read as YAML), for reports that point into the document (SARIF). Lines are
 * 1-based, as editors and code-scanning views count them.
 */
export interface DocumentLines {
  /** The line of `paths:`; 1 when the document has none. */
  paths: number;
  /** `METHOD /path` as the document writes the path -> the line of the method's key and of each response's key. */
  operations: Map<string, { line: number; responses: Map<string, number> }>;
}

const methods = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace', 'query']);

/**
 * The lines of a document's operations and responses. A text the reader cannot make a mapping of
 * gives no operations (every place is then the document's first line).
 *
 * @example documentLines(text, await loadYamlModule()).operations.get('GET /categories')?.responses.get('200')
 */
export function documentLines(text: string, yaml: YamlModule): DocumentLines {
  const lineCounter = new yaml.LineCounter();
  const document = yaml.parseDocument(text, { lineCounter, uniqueKeys: false, strict: false });
  const lineOf = (node: unknown) => {
    const offset = (node as { range?: [number, number, number] } | null)?.range?.[0];
    return offset === undefined ? 1 : lineCounter.linePos(offset).line;
  };
  const lines: DocumentLines = { paths: 1, operations: new Map() };
  const root = document.contents;
  if (!yaml.isMap(root)) return lines;
  const paths = root.items.find((pair) => keyText(yaml, pair.key) === 'paths');
  if (paths === undefined) return lines;
  lines.paths = lineOf(paths.key);
  if (!yaml.isMap(paths.value)) return lines;
  for (const pathPair of paths.value.items) {
    const path = keyText(yaml, pathPair.key);
    if (path === undefined || !yaml.isMap(pathPair.value)) continue;
    for (const operationPair of pathPair.value.items) {
      const method = keyText(yaml, operationPair.key)?.toLowerCase();
      if (method === undefined || !methods.has(method)) continue;
      const responses = new Map<string, number>();
      if (yaml.isMap(operationPair.value)) {
        const responsesPair = operationPair.value.items.find((pair) => keyText(yaml, pair.key) === 'responses');
        if (responsesPair !== undefined && yaml.isMap(responsesPair.value))
          for (const response of responsesPair.value.items) {
            const status = keyText(yaml, response.key);
            if (status !== undefined) responses.set(status.toUpperCase(), lineOf(response.key));
          }
      }
      lines.operations.set(`${method.toUpperCase()} ${path}`, { line: lineOf(operationPair.key), responses });
    }
  }
  return lines;
}

/** A mapping key as text (`200:` is a number in YAML, a status all the same). */
function keyText(yaml: YamlModule, key: unknown): string | undefined {
  if (!yaml.isScalar(key)) return undefined;
  const value = key.value;
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}

/**
 * The line of the response an operation declares for a status: the exact code, else its range
 * (`4XX`), else `default`; undefined when it declares none of them.
 *
 * @example responseLine(lines.operations.get('GET /categories')!, 401)
 */
export function responseLine(operation: { responses: Map<string, number> }, status: number): number | undefined {
  return (
    operation.responses.get(String(status)) ??
    operation.responses.get(`${String(status)[0]}XX`) ??
    operation.responses.get('DEFAULT')
  );
}

/**
 * The document's operation a request went to: `METHOD /path` as the document writes the path, its
 * templates (`{petId}`) matching one segment each; undefined when none matches.
 *
 * @example operationOfRequest(lines, 'GET', '/pets/10') // 'GET /pets/{petId}'
 */
export function operationOfRequest(lines: DocumentLines, method: string, path: string): string | undefined {
  let best: { key: string; literal: number } | undefined;
  for (const key of lines.operations.keys()) {
    const space = key.indexOf(' ');
    if (key.slice(0, space) !== method.toUpperCase()) continue;
    const template = key.slice(space + 1).replace(/#.*$/, '');
    const templateSegments = template.split('/');
    const segments = path.split('/');
    if (templateSegments.length !== segments.length) continue;
    let literal = 0;
    const matches = templateSegments.every((segment, index) => {
      if (/^\{[^}]*\}$/.test(segment)) return segments[index] !== '';
      if (segment !== segments[index]) return false;
      literal += 1;
      return true;
    });
    // A literal path wins over a template that also matches (`/pets/mine` over `/pets/{petId}`).
    if (matches && (best === undefined || literal > best.literal)) best = { key, literal };
  }
  return best?.key;
}

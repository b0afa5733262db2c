/**
 * The line (1-based) an operation is written on in its document's text: the line of its method key
 * (`get:`, `"get":`) under its path key under `paths`, for a report that points into the file
 * (SARIF's `region.startLine`). A scan of the text, not a parse: the loaded document keeps no
 * syntax tree (it would cost 20 times the text), so lines are found when a report asks, in time
 * linear in the text. Block-style YAML and JSON as formatters write them; an operation written in a
 * flow mapping on its path's line (`/a: {get: ...}`) gets its path's line, and one not found
 * (another file, a key spelled with escapes) undefined.
 *
 * @example operationLine(readFileSync('spec/petstore.openapi.yaml', 'utf8'), '/categories', 'GET') // 53
 */
export function operationLine(documentText: string, path: string, method: string): number | undefined {
  const at = documentText.trimStart().startsWith('{')
    ? jsonOperationOffset(documentText, path, method.toLowerCase())
    : yamlOperationOffset(documentText, path, method.toLowerCase());
  return at === undefined ? undefined : lineOf(documentText, at);
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let index = text.indexOf('\n'); index !== -1 && index < offset; index = text.indexOf('\n', index + 1)) line += 1;
  return line;
}

/** JSON: the first `"method":` after `"path":` after `"paths":`, before the next key of `paths`. */
function jsonOperationOffset(text: string, path: string, method: string): number | undefined {
  const paths = findKey(text, '"paths"', 0);
  if (paths === undefined) return undefined;
  const pathAt = findKey(text, JSON.stringify(path), paths);
  if (pathAt === undefined) return undefined;
  const methodAt = findKey(text, JSON.stringify(method), pathAt);
  return methodAt === undefined ? pathAt : methodAt;
}

/** Offset of `quoted` followed by `:` (a key) at or after `from`. */
function findKey(text: string, quoted: string, from: number): number | undefined {
  for (let index = text.indexOf(quoted, from); index !== -1; index = text.indexOf(quoted, index + 1)) {
    let next = index + quoted.length;
    while (text[next] === ' ' || text[next] === '\t' || text[next] === '\n' || text[next] === '\r') next += 1;
    if (text[next] === ':') return index;
  }
  return undefined;
}

/** A key at the start of a block-style YAML line: its indent and its text (quotes read). */
const yamlKey = /^( *)(?:'((?:[^']|'')*)'|"((?:[^"\\]|\\.)*)"|([^\s#'"{[][^:#]*?))\s*:(?:\s|$)/;

function keyOf(line: string): { indent: number; key: string; rest: string } | undefined {
  const match = yamlKey.exec(line);
  if (match === null) return undefined;
  const key = match[2] !== undefined ? match[2].replaceAll("''", "'") : (match[3] ?? match[4] ?? '').trim();
  return { indent: match[1]!.length, key, rest: line.slice(match[0].length).trim() };
}

/** Block-style YAML: the `method:` line inside the block of the `path:` line inside the top-level `paths:` block. */
function yamlOperationOffset(text: string, path: string, method: string): number | undefined {
  let offset = 0;
  let state: 'paths' | 'path' | 'method' = 'paths';
  let pathIndent = -1;
  let pathOffset = 0;
  for (const line of text.split('\n')) {
    const lineOffset = offset;
    offset += line.length + 1;
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const key = keyOf(line.replace(/\r$/, ''));
    const indent = line.length - line.trimStart().length;
    if (state === 'paths') {
      if (key?.indent === 0 && key.key === 'paths') state = 'path';
    } else if (state === 'path') {
      if (indent === 0) return undefined;
      if (key !== undefined && key.key === path && (pathIndent === -1 || key.indent === pathIndent)) {
        if (key.rest.startsWith('{')) return lineOffset;
        pathIndent = key.indent;
        pathOffset = lineOffset;
        state = 'method';
      } else if (key !== undefined && pathIndent === -1) pathIndent = key.indent;
    } else {
      if (indent <= pathIndent) return pathOffset;
      if (key !== undefined && key.key === method) return lineOffset;
    }
  }
  return state === 'method' ? pathOffset : undefined;
}

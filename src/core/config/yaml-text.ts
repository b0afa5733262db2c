import type { CST, Document } from 'yaml';
import { yamlModule } from '../../../spec/yaml-module.js';

// The one reader of every YAML text the kit is given: the config file, scenario files, the YAML
// body of POST /__mock/scenario and the MSW `scenario` option. Its cost is linear in the size of the
// text, whatever its shape (docs/decisions/024-linear-input-parsing.md):
// - yaml's own duplicate-key check compares each key with every other (40,000 keys: minutes); it
//   is off, and duplicateKey() below makes the same check in one pass;
// - yaml resolves each alias by scanning the anchors before it, so the number of aliases is bounded;
// - yaml's composer recurses per level of nesting (400 levels of `[` overflow the stack, and near the
//   limit V8 can die outright compiling a regular expression), so the depth is measured on yaml's
//   token tree, which is built without recursion, before anything is composed;
// - yaml reads about a megabyte a second in its worst shapes (a long flow sequence), JSON.parse a
//   hundred times that: a JSON text is read by JSON.parse and may be larger.

// Sizes are in characters: the work is per character, and a file or a body was already read bounded in bytes.
/** The longest YAML text read (a config or a scenario is a few thousand characters). */
// 128 Ki: at 256 Ki its worst shapes (deep or unclosed flow sequences) took 1.1-1.3 s of CPU, over the 1 s target.
export const maxYamlTextLength = 128 * 1024;
/** The longest JSON text read (JSON is YAML too, read by JSON.parse in linear time). */
export const maxJsonTextLength = 1024 * 1024;
/** The deepest nesting of mappings and sequences read (a config nests 4 levels). */
export const maxYamlDepth = 64;
/** The most aliases (`*name`) read. */
export const maxYamlAliases = 100;

/** What is wrong with a text: a short phrase (never a quote of the text) and where, when known. */
export class YamlTextError extends Error {
  constructor(
    readonly phrase: string,
    readonly position?: { line: number; column: number },
    /** The top-level keys, when the text got as far as a document (to tell a config with a typo from another file). */
    readonly topLevelKeys: readonly string[] = [],
  ) {
    super(position ? `${phrase} at line ${position.line}, column ${position.column}` : phrase);
    this.name = 'YamlTextError';
  }
}

/**
 * Reads YAML (or JSON) text into plain data, in time linear in its size. Throws a YamlTextError: a
 * syntax error, a key twice in one mapping, too deep, too many aliases, too large.
 *
 * @example readYamlText('plans:\n  pro: { perMinute: 300, perDay: 10000 }\n') // { plans: { pro: { perMinute: 300, perDay: 10000 } } }
 */
export function readYamlText(text: string): unknown {
  const json = readAsJson(text);
  if (json.read) return json.value;
  if (text.length > maxYamlTextLength) {
    throw new YamlTextError(
      `the YAML is ${text.length} characters, more than the ${maxYamlTextLength} read; as JSON, up to ${maxJsonTextLength} are read`,
    );
  }
  const { isMap, isScalar, LineCounter, Parser } = yamlModule();
  const lineCounter = new LineCounter();
  const at = (offset: number | undefined) => {
    if (offset === undefined) return undefined;
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  const tokens = Array.from(new Parser(lineCounter.addNewLine).parse(text));
  const shape = measureShape(tokens);
  if (shape.problem !== undefined) throw new YamlTextError(shape.problem.phrase, at(shape.problem.offset));
  const document = composeOne(tokens, text.length);
  const topLevelKeys = isMap(document.contents)
    ? document.contents.items.map((pair) => String(isScalar(pair.key) ? pair.key.value : ''))
    : [];
  const error = document.errors[0] ?? duplicateKey(document);
  if (error !== undefined) {
    // yaml's message may end quoting the text (`...: "c"`): only its fixed words are kept.
    const phrase = error.message
      .split('\n')[0]!
      .replace(/:\s*".*$/, '')
      .slice(0, 120);
    throw new YamlTextError(phrase, at(error.pos?.[0]), topLevelKeys);
  }
  let value: unknown;
  try {
    // yaml's own bound on repeats, a product of counts, is a backstop: expandsPast() below measures them.
    value = document.toJS({ maxAliasCount: 10 * maxYamlAliases });
  } catch (aliasError) {
    throw new YamlTextError((aliasError as Error).message.replace(/:.*$/s, '').slice(0, 120), undefined, topLevelKeys);
  }
  // An alias repeats what it names without copying it, but whatever reads the data reads every repeat.
  if (shape.aliases > 0 && expandsPast(value, maxJsonTextLength)) {
    throw new YamlTextError(
      `its aliases repeat more data than the ${maxJsonTextLength} characters read as JSON`,
      undefined,
      topLevelKeys,
    );
  }
  return value;
}

/** A text that starts like JSON and is JSON, read by JSON.parse (which keeps the last of repeated keys). */
function readAsJson(text: string): { read: true; value: unknown } | { read: false } {
  const first = text.search(/\S/);
  if (first === -1 || (text[first] !== '{' && text[first] !== '[')) return { read: false };
  if (text.length > maxJsonTextLength) return { read: false };
  try {
    return { read: true, value: JSON.parse(text) as unknown };
  } catch {
    // Not JSON: flow-style YAML (`{ presets: [banned-key] }`), or a mistake yaml will locate.
    return { read: false };
  }
}

/** Depth and aliases, measured on the token tree without recursion, and where the text goes too far. */
function measureShape(tokens: readonly CST.Token[]): { aliases: number; problem?: { phrase: string; offset: number } } {
  // A stack, items pushed last to first: the text is walked in order, so a problem is named where it first is.
  const stack: { token: CST.Token; depth: number }[] = tokens.map((token) => ({ token, depth: 0 })).reverse();
  let aliases = 0;
  while (stack.length > 0) {
    const { token, depth } = stack.pop()!;
    if (token.type === 'alias' && ++aliases > maxYamlAliases)
      return { aliases, problem: { phrase: `more than ${maxYamlAliases} aliases`, offset: token.offset } };
    if (token.type === 'document' && token.value) stack.push({ token: token.value, depth });
    if (token.type !== 'block-map' && token.type !== 'block-seq' && token.type !== 'flow-collection') continue;
    if (depth + 1 > maxYamlDepth)
      return { aliases, problem: { phrase: `nested more than ${maxYamlDepth} levels deep`, offset: token.offset } };
    for (let index = token.items.length - 1; index >= 0; index -= 1) {
      const item = token.items[index]!;
      if (item.value) stack.push({ token: item.value, depth: depth + 1 });
      if (item.key) stack.push({ token: item.key, depth: depth + 1 });
    }
  }
  return { aliases };
}

/**
 * Whether `value`, every repeat of a shared part counted again, is larger than `budget` characters
 * of JSON (roughly: a number, a name or a bracket counts as their text). Stops as soon as it is:
 * the walk costs at most the budget, and a cycle (an alias inside what it names) ends it too.
 */
function expandsPast(value: unknown, budget: number): boolean {
  const pending: unknown[] = [value];
  let size = 0;
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'string') size += next.length + 2;
    else if (Array.isArray(next)) {
      size += 2 + next.length;
      for (const item of next) pending.push(item);
    } else if (next !== null && typeof next === 'object') {
      size += 2;
      for (const [key, item] of Object.entries(next)) {
        size += key.length + 4;
        pending.push(item);
      }
    } else size += 4;
    if (size > budget) return true;
  }
  return false;
}

/** The one document of the text (a second one is an error, as yaml's parse() has it). */
function composeOne(tokens: readonly CST.Token[], length: number): Document.Parsed {
  const { Composer, YAMLParseError } = yamlModule();
  const composer = new Composer({ uniqueKeys: false });
  let document: Document.Parsed | undefined;
  for (const next of composer.compose(tokens, true, length)) {
    if (document === undefined) {
      document = next;
      continue;
    }
    document.errors.push(
      new YAMLParseError([next.range[0], next.range[1]], 'MULTIPLE_DOCS', 'Source contains multiple documents'),
    );
    break;
  }
  return document!;
}

/** The first key repeated in a mapping, as a yaml-like error with its offset; found in one pass. */
function duplicateKey(document: Document.Parsed): { message: string; pos?: [number, number] } | undefined {
  const { isScalar, visit } = yamlModule();
  let found: { message: string; pos?: [number, number] } | undefined;
  visit(document, {
    Map(_key, map) {
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        const key = isScalar(pair.key) ? pair.key.value : pair.key;
        if (seen.has(key)) {
          const offset = isScalar(pair.key) ? pair.key.range?.[0] : undefined;
          found = {
            message: 'Map keys must be unique',
            ...(offset === undefined ? {} : { pos: [offset, offset] as [number, number] }),
          };
          return visit.BREAK;
        }
        seen.add(key);
      }
      return undefined;
    },
  });
  return found;
}

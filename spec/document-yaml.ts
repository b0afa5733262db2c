import { compactRecord } from './compact-record.js';
import { lazyModule } from './lazy-module.js';
import { readYamlDocument } from './yaml-module.js';

// An OpenAPI document in YAML (and each YAML file its $refs bring in), read by js-yaml, which builds the
// values as it reads: `yaml` builds its whole syntax tree first, about 20 times the text (50,000
// one-line operations: 951 MiB at the peak against 178 MiB), and reads 5 to 15 times slower (OpenAI's
// 3 MB document: 2.9 s against 0.2 s). Read as `yaml` reads it (YAML 1.2's core schema, a key twice in
// a mapping refused, objects keyed "200" built small), so the two readers give the same values
// (spec/document-yaml.test.ts compares them). Node only, where a document is read from a file; the
// mock's bin bundles js-yaml (scripts/eager-modules.mjs, scripts/build.mjs); elsewhere (the kit too), without js-yaml
// installed, `yaml` reads.

/** What the two major versions of js-yaml (3 and 4) share of their API, and how each makes a schema. */
interface JsYaml {
  load(text: string, options: { schema: unknown; json?: boolean }): unknown;
  Type: new (tag: string, options: Record<string, unknown>) => unknown;
  Schema: new (definition: { include: unknown[]; implicit: unknown[] }) => unknown;
  FAILSAFE_SCHEMA: { extend?: (types: { implicit: unknown[] }) => unknown };
}

/** Aliases (`*name`) in the text: js-yaml shares what they name, which a walk over the data would read again each time. */
const aliasToken = /(?:^|[\s[{,:])\*[^\s,[\]{}]/m;
/** As many nodes as a document may have (ref-resolver.ts's bound): aliases may not expand a text beyond it. */
const maxExpandedNodes = 2_000_000;

/** js-yaml where it is installed (it is optional); absent, `yaml` reads. */
const lazy = lazyModule<JsYaml>({
  what: 'js-yaml',
  notLoaded: 'js-yaml is read in Node only',
  require: (require) => {
    const module = require('js-yaml') as JsYaml;
    if (typeof module?.load !== 'function') throw new Error('js-yaml has no load()');
    return module;
  },
});
let schema: unknown;

/**
 * A YAML document as plain data, as `readYamlDocument` reads it, in a fraction of its memory and time.
 *
 * @example readYamlDocumentText('paths: {/a: {get: {responses: {"200": {description: ok}}}}}')
 */
export function readYamlDocumentText(text: string): unknown {
  const jsYaml = jsYamlModule();
  if (jsYaml === undefined) return readYamlDocument(text);
  schema ??= coreSchema(jsYaml);
  let value: unknown;
  try {
    value = jsYaml.load(text, { schema });
  } catch (error) {
    // One line, where yaml's own would be: the reason and where it is, without js-yaml's excerpt.
    const { reason, mark } = error as { reason?: string; mark?: { line: number; column: number } };
    if (reason === undefined || mark === undefined) throw error;
    throw new Error(`${reason} at line ${mark.line + 1}, column ${mark.column + 1}`);
  }
  const aliased = aliasToken.test(text);
  if (aliased) refuseAliasExpansion(value);
  return compacted(value, aliased);
}

/** Whether documents are read by js-yaml here (else by `yaml`). */
export function readsYamlWithJsYaml(): boolean {
  return jsYamlModule() !== undefined;
}

function jsYamlModule(): JsYaml | undefined {
  return lazy.tryNow();
}

/**
 * YAML 1.2's core schema as `yaml` resolves it (its own tests, in its `schema/core/` and
 * `schema/common/null.js`): js-yaml 3's core schema also reads `0777`, `1_000` and `1:30` as numbers.
 */
function coreSchema(jsYaml: JsYaml): unknown {
  const scalar = (tag: string, test: RegExp, construct: (text: string) => unknown) =>
    new jsYaml.Type(tag, {
      kind: 'scalar',
      resolve: (text: string | null) => test.test(text ?? ''),
      construct: (text: string | null) => construct(text ?? ''),
    });
  const implicit = [
    scalar('tag:yaml.org,2002:null', /^(?:~|[Nn]ull|NULL)?$/, () => null),
    scalar('tag:yaml.org,2002:bool', /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/, (text) => text.toLowerCase() === 'true'),
    scalar('tag:yaml.org,2002:int', /^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$/, (text) =>
      text.startsWith('0o')
        ? Number.parseInt(text.slice(2), 8)
        : text.startsWith('0x')
          ? Number.parseInt(text.slice(2), 16)
          : Number.parseInt(text, 10),
    ),
    scalar(
      'tag:yaml.org,2002:float',
      /^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
      (text) =>
        /nan$/i.test(text)
          ? Number.NaN
          : /inf$/i.test(text)
            ? text.startsWith('-')
              ? -Infinity
              : Infinity
            : Number.parseFloat(text),
    ),
  ];
  const { FAILSAFE_SCHEMA: failsafe } = jsYaml;
  // js-yaml 4 extends a schema; js-yaml 3 includes one in a new schema.
  return typeof failsafe.extend === 'function'
    ? failsafe.extend({ implicit })
    : new jsYaml.Schema({ include: [failsafe], implicit });
}

/**
 * Refuses data whose aliases expand it beyond the node bound (a "billion laughs"), each shared node
 * counted once, and an alias inside what it names (data JSON cannot hold).
 */
function refuseAliasExpansion(root: unknown): void {
  const sizes = new Map<object, number>();
  const open = new Set<object>();
  const stack: { node: object; expanded: boolean }[] = [];
  if (root !== null && typeof root === 'object') stack.push({ node: root, expanded: false });
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (sizes.has(frame.node)) {
      stack.pop();
      continue;
    }
    const children = Object.values(frame.node).filter(
      (child): child is object => child !== null && typeof child === 'object',
    );
    if (!frame.expanded) {
      frame.expanded = true;
      open.add(frame.node);
      for (const child of children) {
        if (open.has(child)) throw new Error('an alias refers to the node it is written in (a cycle JSON cannot hold)');
        if (!sizes.has(child)) stack.push({ node: child, expanded: false });
      }
      continue;
    }
    stack.pop();
    open.delete(frame.node);
    let size = 1;
    for (const child of children) size += sizes.get(child) ?? 1;
    if (size > maxExpandedNodes)
      throw new Error(`its aliases expand it to more than ${maxExpandedNodes} nodes (a document may hold that many)`);
    sizes.set(frame.node, size);
  }
}

/**
 * The data with each object keyed like an array ("200") rebuilt small (compact-record.ts), walked
 * without recursion; with aliases, each shared node once.
 */
function compacted(root: unknown, aliased: boolean): unknown {
  if (root === null || typeof root !== 'object') return root;
  const top = Array.isArray(root) ? root : compactRecord(root);
  const done = aliased ? new Map<object, object>() : undefined;
  const stack: object[] = [top];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const record = node as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const child = record[key];
      if (child === null || typeof child !== 'object') continue;
      const seen = done?.get(child);
      if (seen !== undefined) {
        record[key] = seen;
        continue;
      }
      const small = Array.isArray(child) ? child : compactRecord(child);
      done?.set(child, small);
      if (small !== child) record[key] = small;
      stack.push(small);
    }
  }
  return top;
}

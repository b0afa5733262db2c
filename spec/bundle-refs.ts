import { readYamlDocumentText } from './document-yaml.js';
import { childOf, type Kind, structure } from './openapi-structure.js';
import { escapePointer, SpecError, splitPointer } from './ref-resolver.js';
import { maxReferencedFileBytes, type RefFolders, readReferencedFile, refFolders } from './referenced-file.js';

/**
 * Multi-file documents made one: every `$ref` to another file (`definitions/error.yaml`,
 * `schemas.json#/Pet`) is read, relative to the file it is written in, and brought into the
 * document. Node only (it reads files).
 *
 * Where a reference stands is read from OpenAPI's structure, not guessed from key names: a schema
 * from another file gets a home in `components.schemas` (so a recursive or shared one stays one
 * schema) and the reference points there; anything else (a security scheme, a response, a path
 * item) is put in place of its reference. A `$ref` inside data (`x-*` extensions, examples,
 * enumerations, defaults) is data and left alone: a Markdown file named by an `x-` extension is
 * never read. URLs are refused unless `allowRemoteRefs`; a file outside the document's folder
 * (`allowRefsOutside` adds folders), not JSON or YAML, not a regular file, too large, or missing is
 * refused naming the reference and where it is (spec/referenced-file.ts).
 */
export interface BundleOptions {
  /** Follow `http(s)://` references too (off by default: a spec should not fetch at start). */
  allowRemoteRefs?: boolean;
  /**
   * Folders outside the document's own that its `$ref`s may read files from (`--allow-refs-outside DIR`).
   * Default: none, only the document's folder and below.
   *
   * @example allowRefsOutside: ['../shared-schemas']
   */
  allowRefsOutside?: readonly string[];
}

/**
 * Bounds of what references may bring in, together: files (DigitalOcean's public API reaches 2,850 of
 * them, the largest multi-file document we know) and bytes (as much as one document may hold, so the
 * memory of a multi-file document is bounded as a one-file one is). Each file: referenced-file.ts.
 */
const maxReferencedFiles = 20_000;
const maxReferencedBytes = 64 * 1024 * 1024;
/** As deep as ref-resolver.ts resolves (and far deeper than any real document): the walk recurses. */
const maxNesting = 1_000;

interface Loaded {
  url: URL;
  root: unknown;
}

/**
 * Brings every file the document refers to into it (see above); the document is changed in place
 * and returned. A document without external references comes back as it was.
 *
 * @example const document = await bundleExternalRefs(parsed, pathToFileURL('api/openapi.yaml'));
 */
export async function bundleExternalRefs<T extends object>(
  document: T,
  entry: URL,
  options: BundleOptions = {},
): Promise<T> {
  const files = new Map<string, Promise<Loaded>>();
  const homes = new Map<string, string>();
  const placed = new Map<string, unknown>();
  const inProgress = new Set<string>();
  // Maps given by a $ref (`components: {schemas: {$ref: schemas/_index.yaml}}`): the file their entries are written in.
  const mapBases = new WeakMap<object, URL>();
  // What the walk already brought in (a schema's home may be placed before its map is walked): walked once.
  const bundled = new WeakSet<object>();
  const entryHref = entry.href.replace(/#.*$/, '');
  const done = <V>(value: V): V => {
    if (value !== null && typeof value === 'object') bundled.add(value);
    return value;
  };
  let bytesRead = 0;
  const isSwagger2 = (document as Record<string, unknown>).swagger !== undefined;
  const schemaHome = isSwagger2 ? ['definitions'] : ['components', 'schemas'];
  // Computed at the first file read: a document without references to files never looks at its folder.
  let folders: Promise<RefFolders> | undefined;
  const foldersOfEntry = () => {
    folders ??= refFolders(entry, options.allowRefsOutside);
    return folders;
  };

  const load = (url: URL, ref: string, at: string): Promise<Loaded> => {
    const key = url.href.replace(/#.*$/, '');
    let loaded = files.get(key);
    if (loaded === undefined) {
      if (files.size >= maxReferencedFiles)
        throw new SpecError(
          `Failed to resolve $ref ${short(ref)} at #${at}: the document references more than ${maxReferencedFiles} files`,
        );
      const where = `Failed to resolve $ref ${short(ref)} at #${at}`;
      const text =
        url.protocol === 'file:'
          ? foldersOfEntry().then((allowed) => readReferencedFile(url, allowed, where))
          : readRemoteText(url, where, options);
      loaded = text.then((text) => {
        bytesRead += Buffer.byteLength(text);
        if (bytesRead > maxReferencedBytes)
          throw new SpecError(
            `${where}: the files the document references hold more than ${maxReferencedBytes / (1024 * 1024)} MiB together`,
          );
        return { url, root: parseReferenced(text, url, ref, at) };
      });
      files.set(key, loaded);
    }
    return loaded;
  };

  /** The target of a reference written in `base` (the entry's local ones are not asked for). */
  const target = async (
    ref: string,
    base: URL,
    at: string,
  ): Promise<{ key: string; node: unknown; url: URL; fragment: string }> => {
    const url = new URL(ref, base);
    const fragment = url.hash.replace(/^#/, '');
    url.hash = '';
    // A document fetched from a URL reads no local file: it would serve the machine's files as its examples.
    if (url.protocol === 'file:' && base.protocol !== 'file:')
      throw new SpecError(
        `Failed to resolve $ref ${short(ref)} at #${at}: ${base.href} may not reference a local file (${short(url.href)})`,
      );
    if (
      url.protocol !== 'file:' &&
      !((url.protocol === 'http:' || url.protocol === 'https:') && options.allowRemoteRefs)
    ) {
      throw new SpecError(
        `Failed to resolve $ref ${short(ref)} at #${at}: ${url.protocol === 'http:' || url.protocol === 'https:' ? 'references to URLs are not followed unless --allow-remote-refs is given' : `the ${url.protocol} scheme is not supported`}`,
      );
    }
    const loaded = url.href === entry.href.replace(/#.*$/, '') ? { url, root: document } : await load(url, ref, at);
    let node: unknown = loaded.root;
    for (const segment of splitPointer(fragment)) {
      if (node === null || typeof node !== 'object' || !Object.hasOwn(node, segment))
        throw new SpecError(
          `Failed to resolve $ref ${short(ref)} at #${at}: nothing at "${short(segment)}" in ${displayName(url)}`,
        );
      node = (node as Record<string, unknown>)[segment];
    }
    return { key: `${url.href}#${fragment}`, node, url, fragment };
  };

  const homeFor = (name: string): string => {
    const container = ensure(document, schemaHome);
    const base = name.replace(/[^A-Za-z0-9._-]/g, '_') || 'Schema';
    let candidate = base;
    for (let index = 2; Object.hasOwn(container, candidate); index += 1) candidate = `${base}_${index}`;
    container[candidate] = {};
    return candidate;
  };

  async function walk(
    node: unknown,
    kind: Kind,
    base: URL,
    pointer: string,
    inEntry: boolean,
    depth = 0,
  ): Promise<unknown> {
    if (node === null || typeof node !== 'object' || bundled.has(node)) return node;
    if (depth > maxNesting)
      throw new SpecError(
        `Failed to resolve $refs: ${displayName(base)} is nested more than ${maxNesting} levels deep (at #${short(pointer)})`,
      );
    if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index += 1)
        node[index] = await walk(node[index], kind, base, `${pointer}/${index}`, inEntry, depth + 1);
      return node;
    }
    const record = node as Record<string, unknown>;
    if (typeof record.$ref === 'string' && (!inEntry || !record.$ref.startsWith('#')))
      return reference(record, kind, base, pointer);
    for (const [key, value] of Object.entries(record)) {
      const child = childOf(kind, key, value);
      if (child === undefined || value === null || typeof value !== 'object') continue;
      const [childKind, shape] = child;
      const at = `${pointer}/${escapePointer(key)}`;
      if (shape === 'map' && !Array.isArray(value)) {
        if (isMapRef(value)) record[key] = await mapGivenByRef(value.$ref, base, at);
        const map = record[key] as Record<string, unknown>;
        const mapBase = mapBases.get(map);
        for (const [name, entryValue] of Object.entries(map))
          map[name] = await walk(
            entryValue,
            childKind,
            mapBase ?? base,
            `${at}/${escapePointer(name)}`,
            mapBase === undefined ? inEntry : mapBase.href === entryHref,
            depth + 2,
          );
      } else record[key] = await walk(value, childKind, base, at, inEntry, depth + 1);
    }
    return record;
  }

  /** A reference to another file (or, inside another file, to that file): its home, or its content in place. */
  async function reference(record: Record<string, unknown>, kind: Kind, base: URL, pointer: string): Promise<unknown> {
    const ref = record.$ref as string;
    const found = await target(ref, base, pointer);
    const siblings = Object.entries(record).filter(([key]) => key !== '$ref');
    if (found.url.href === entry.href.replace(/#.*$/, '')) return { ...record, $ref: `#${found.fragment}` };
    if (kind === 'schema') {
      let home = homes.get(found.key);
      // An entry of the schemas' home that is just a reference to a file is that schema's home: its content goes here.
      if (home === pointer) return done(await walk(copy(found.node, found.url), 'schema', found.url, home, false));
      if (home === undefined) {
        const name = homeFor(splitPointer(found.fragment).at(-1) ?? displayName(found.url).replace(/\.[^.]*$/, ''));
        home = `/${schemaHome.map(escapePointer).join('/')}/${escapePointer(name)}`;
        homes.set(found.key, home);
        ensure(document, schemaHome)[name] = done(
          await walk(copy(found.node, found.url), 'schema', found.url, home, false),
        );
      }
      return { ...Object.fromEntries(siblings), $ref: `#${home}` };
    }
    if (inProgress.has(found.key))
      throw new SpecError(
        `Failed to resolve $ref ${short(ref)} at #${pointer}: it refers back to itself through other files`,
      );
    let content = placed.get(found.key);
    if (content === undefined) {
      inProgress.add(found.key);
      content = done(await walk(copy(found.node, found.url), kind, found.url, pointer, false));
      inProgress.delete(found.key);
      placed.set(found.key, content);
    }
    if (siblings.length === 0 || content === null || typeof content !== 'object' || Array.isArray(content))
      return content;
    return { ...(content as object), ...Object.fromEntries(siblings) };
  }

  /**
   * Maps of the document and of its components given by a reference to another file, read first (the
   * Redocly habit `schemas: {$ref: ./schemas/_index.yaml}`): schemas from other files get homes in them.
   */
  async function readMapsGivenByRef(): Promise<void> {
    const root = document as Record<string, unknown>;
    for (const [holder, kind, at] of [
      [root, 'document', ''],
      [root.components, 'components', '/components'],
    ] as const) {
      if (!isRecord(holder)) continue;
      for (const [key, [, shape]] of Object.entries(structure[kind] ?? {})) {
        const given = holder[key];
        if (shape === 'map' && isMapRef(given)) holder[key] = await mapGivenByRef(given.$ref, entry, `${at}/${key}`);
      }
    }
  }

  /** A map (of schemas, properties, responses...) written as a reference to it: a copy, its entries read where they were written. */
  async function mapGivenByRef(ref: string, base: URL, at: string): Promise<Record<string, unknown>> {
    const found = await target(ref, base, at);
    if (!isRecord(found.node))
      throw new SpecError(
        `Failed to resolve $ref ${short(ref)} at #${at}: ${displayName(found.url)} holds no map there`,
      );
    const map = copy(found.node, found.url) as Record<string, unknown>;
    mapBases.set(map, found.url);
    return map;
  }

  /** Each entry of the schemas' home that is only a reference to another file is that schema's home. */
  function homesOfSchemaEntries(): void {
    const home = (document as Record<string, unknown>)[schemaHome[0]!];
    const map = schemaHome.length === 1 ? home : isRecord(home) ? home[schemaHome[1]!] : undefined;
    if (!isRecord(map)) return;
    const base = mapBases.get(map) ?? entry;
    for (const [name, value] of Object.entries(map)) {
      if (!isRecord(value) || typeof value.$ref !== 'string' || Object.keys(value).length !== 1) continue;
      if (mapBases.get(map) === undefined && value.$ref.startsWith('#')) continue;
      let url: URL;
      try {
        url = new URL(value.$ref, base);
      } catch {
        continue; // walk() refuses it, naming where it is
      }
      const fragment = url.hash.replace(/^#/, '');
      url.hash = '';
      if (url.href === entryHref) continue;
      const key = `${url.href}#${fragment}`;
      if (!homes.has(key)) homes.set(key, `/${schemaHome.map(escapePointer).join('/')}/${escapePointer(name)}`);
    }
  }

  await readMapsGivenByRef();
  homesOfSchemaEntries();
  const result = (await walk(document, 'document', entry, '', true)) as T;
  return result;
}

/** `{$ref: ...}` and nothing else where a map of names belongs: a map given by reference (no name is `$ref`). */
function isMapRef(value: unknown): value is { $ref: string } {
  return isRecord(value) && typeof value.$ref === 'string' && Object.keys(value).length === 1;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A fresh copy of JSON data (a file's node may be referred to from several places and changed in one). */
function copy(node: unknown, from: URL): unknown {
  if (node === null || typeof node !== 'object') return node;
  try {
    return structuredClone(node);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new SpecError(`Failed to resolve $refs: ${displayName(from)} is nested too deep to read`);
  }
}

function ensure(document: object, path: string[]): Record<string, unknown> {
  let current = document as Record<string, unknown>;
  for (const segment of path) {
    if (current[segment] === null || typeof current[segment] !== 'object') current[segment] = {};
    current = current[segment] as Record<string, unknown>;
  }
  return current;
}

async function readRemoteText(url: URL, where: string, options: BundleOptions): Promise<string> {
  if (!options.allowRemoteRefs)
    throw new SpecError(`${where}: references to URLs are not followed unless --allow-remote-refs is given`);
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(10_000), redirect: 'follow' });
  } catch (error) {
    throw new SpecError(`${where}: ${(error as Error).message}`);
  }
  if (!response.ok) throw new SpecError(`${where}: ${url.href} answered ${response.status}`);
  return boundedText(response, `${where}: ${url.href}`);
}

/** The body of an answer as text, refused past the bound on a referenced file, without reading further. */
async function boundedText(response: Response, what: string): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (declared > maxReferencedFileBytes) throw new SpecError(`${what} is over ${maxReferencedFileBytes} bytes`);
  const chunks: Uint8Array[] = [];
  let received = 0;
  if (response.body === null) return '';
  const reader = response.body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    received += read.value.byteLength;
    if (received > maxReferencedFileBytes) {
      await reader.cancel().catch(() => undefined);
      throw new SpecError(`${what} is over ${maxReferencedFileBytes} bytes`);
    }
    chunks.push(read.value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseReferenced(text: string, url: URL, ref: string, at: string): unknown {
  let root: unknown;
  try {
    root = text.trimStart().startsWith('{') ? JSON.parse(text) : readYamlDocumentText(text);
  } catch (error) {
    throw new SpecError(
      `Failed to resolve $ref ${short(ref)} at #${at}: ${displayName(url)} is not valid JSON or YAML (${(error as Error).message.split('\n')[0]!.slice(0, 120)})`,
    );
  }
  if (root === null || typeof root !== 'object')
    throw new SpecError(`Failed to resolve $ref ${short(ref)} at #${at}: ${displayName(url)} holds no object`);
  return root;
}

function displayName(url: URL): string {
  return url.pathname.split('/').at(-1) ?? url.href;
}

function short(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}

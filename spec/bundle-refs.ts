import { copyRecord } from './compact-record.js';
import { childOf, type Kind, structure } from './openapi-structure.js';
import { escapePointer, SpecError, splitPointer } from './ref-resolver.js';
import { displayName, parseReferenced, ReferencedFileReader, readRemoteText, refFolders } from './referenced-file.js';
import { SchemaHomes } from './schema-homes.js';

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
  return (await new DocumentBundler(document as Record<string, unknown>, entry, options).bundle()) as T;
}

/** A file a reference brought in, parsed. */
interface Loaded {
  url: URL;
  root: unknown;
}

/** What a reference names: its file, the node at its fragment, and the key both make (`file:///a/b.yaml#/Pet`). */
interface Target {
  key: string;
  node: unknown;
  url: URL;
  fragment: string;
}

/** Where the walk stands: what OpenAPI says the node is, and where it is written. */
interface Place {
  kind: Kind;
  /** The file the node is written in: its references are relative to it. */
  base: URL;
  /** Its JSON pointer in the document (for a schema's home) and in messages. */
  pointer: string;
  /**
   * Written in the entry document itself: changed in place, its local references (`#/...`) left as
   * they are. A node of another file is never changed: what differs is a copy (see `walk`).
   */
  inEntry: boolean;
  depth: number;
}

/**
 * One bundling of one document: the files read, where each schema from another file lives in the
 * document, and what each other reference brought in, so each is read, walked and placed once.
 */
class DocumentBundler {
  readonly #entryHref: string;
  /** Each file read (or being read), by URL without fragment. */
  readonly #files = new Map<string, Promise<Loaded>>();
  /**
   * What each reference names, by where it is written (the file, or for another file the folder) and
   * its text: references repeat (every operation of DigitalOcean names `../../shared/responses/unauthorized.yml`). Another file's nodes
   * never change (see `walk`), so what such a reference found stays true; the entry's change, and are
   * looked up each time.
   */
  readonly #targets = new Map<string, Target>();
  /** Where each schema from another file lives in the document. */
  readonly #homes: SchemaHomes;
  /** What each other reference brought in (walked), by target key: placed once, shared by its references. */
  readonly #placed = new Map<string, unknown>();
  /** Targets being walked: a reference back to one of them is a cycle through files. */
  readonly #inProgress = new Set<string>();
  /** Maps given by a $ref (`components: {schemas: {$ref: schemas/_index.yaml}}`): the file their entries are written in. */
  readonly #mapBases = new WeakMap<object, URL>();
  /** What the walk already brought in (a schema's home may be placed before its map is walked): walked once. */
  readonly #bundled = new WeakSet<object>();
  #bytesRead = 0;
  /** Made at the first file read: a document without references to files never looks at its folder. */
  #reader: Promise<ReferencedFileReader> | undefined;

  constructor(
    readonly document: Record<string, unknown>,
    readonly entry: URL,
    readonly options: BundleOptions,
  ) {
    this.#entryHref = entry.href.replace(/#.*$/, '');
    this.#homes = new SchemaHomes(document);
  }

  async bundle(): Promise<unknown> {
    await this.#readMapsGivenByRef();
    this.#homes.adoptReferenceEntries((map) => this.#mapBases.get(map), this.entry);
    return this.#walk(this.document, { kind: 'document', base: this.entry, pointer: '', inEntry: true, depth: 0 });
  }

  /**
   * A node with every reference to another file below it brought in. A node of the entry is changed in
   * place; a node of another file is left as it was parsed, and what differs is a copy (only the nodes
   * above a reference are copied), so a file's node is the same whichever reference reads it and
   * nothing is copied whole.
   */
  async #walk(node: unknown, place: Place): Promise<unknown> {
    if (node === null || typeof node !== 'object' || this.#bundled.has(node)) return node;
    if (place.depth > maxNesting)
      throw new SpecError(
        `Failed to resolve $refs: ${displayName(place.base)} is nested more than ${maxNesting} levels deep (at #${short(place.pointer)})`,
      );
    if (Array.isArray(node)) {
      let out = node;
      for (let index = 0; index < node.length; index += 1) {
        const item = node[index];
        const walked = await this.#walk(item, below(place, String(index), place.kind, 1));
        if (walked === item) continue;
        if (out === node && !place.inEntry) out = node.slice();
        out[index] = walked;
      }
      return out;
    }
    const record = node as Record<string, unknown>;
    if (typeof record.$ref === 'string' && (!place.inEntry || !record.$ref.startsWith('#')))
      return this.#reference(record, place);
    let out = record;
    for (const [key, value] of Object.entries(record)) {
      const child = childOf(place.kind, key, value);
      if (child === undefined || value === null || typeof value !== 'object') continue;
      const [kind, shape] = child;
      const walked =
        shape === 'map' && !Array.isArray(value)
          ? await this.#walkMap(value as Record<string, unknown>, below(place, escapePointer(key), kind, 0))
          : await this.#walk(value, below(place, escapePointer(key), kind, 1));
      if (walked === value) continue;
      if (out === record && !place.inEntry) out = copyRecord(record);
      setOwn(out, key, walked);
    }
    return out;
  }

  /** A map of names (schemas, properties, responses...): each entry walked where it is written. */
  async #walkMap(given: Record<string, unknown>, place: Place): Promise<Record<string, unknown>> {
    const map = isMapRef(given) ? await this.#mapGivenByRef(given.$ref, place.base, place.pointer) : given;
    const mapBase = this.#mapBases.get(map);
    // A map given by reference is this walk's own copy: changed in place, as the entry's maps are.
    const owned = place.inEntry || mapBase !== undefined;
    const base = mapBase ?? place.base;
    const inEntry = mapBase === undefined ? place.inEntry : mapBase.href === this.#entryHref;
    let out = map;
    for (const [name, value] of Object.entries(map)) {
      const pointer = `${place.pointer}/${escapePointer(name)}`;
      const walked = await this.#walk(value, { kind: place.kind, base, pointer, inEntry, depth: place.depth + 2 });
      if (walked === value) continue;
      if (out === map && !owned) out = copyRecord(map);
      setOwn(out, name, walked);
    }
    return out;
  }

  /** A reference to another file (or, inside another file, to that file): its home, or its content in place. */
  async #reference(record: Record<string, unknown>, place: Place): Promise<unknown> {
    const ref = record.$ref as string;
    const found = await this.#target(ref, place.base, place.pointer);
    const siblings = Object.entries(record).filter(([key]) => key !== '$ref');
    if (found.url.href === this.#entryHref) return { ...record, $ref: `#${found.fragment}` };
    if (place.kind === 'schema') {
      const home = await this.#schemaHomeOf(found, place.pointer);
      return home === undefined
        ? this.#bundledContent(found, 'schema', place.pointer)
        : { ...Object.fromEntries(siblings), $ref: `#${home}` };
    }
    if (this.#inProgress.has(found.key))
      throw new SpecError(
        `Failed to resolve $ref ${short(ref)} at #${place.pointer}: it refers back to itself through other files`,
      );
    let content = this.#placed.get(found.key);
    if (content === undefined) {
      this.#inProgress.add(found.key);
      content = await this.#bundledContent(found, place.kind, place.pointer);
      this.#inProgress.delete(found.key);
      this.#placed.set(found.key, content);
    }
    if (siblings.length === 0 || content === null || typeof content !== 'object' || Array.isArray(content))
      return content;
    return { ...(content as object), ...Object.fromEntries(siblings) };
  }

  /**
   * The home of the schema a reference names (placed there, walked, at the first reference); undefined
   * when the reference is itself that home (an entry of the schemas' home that is only a reference).
   */
  async #schemaHomeOf(found: Target, pointer: string): Promise<string | undefined> {
    const home = this.#homes.of(found.key);
    if (home === pointer) return undefined;
    if (home !== undefined) return home;
    const added = this.#homes.add(
      found.key,
      splitPointer(found.fragment).at(-1) ?? displayName(found.url).replace(/\.[^.]*$/, ''),
    );
    added.place(await this.#bundledContent(found, 'schema', added.pointer));
    return added.pointer;
  }

  /** The node a reference names, walked where it is written: final, never walked again. */
  async #bundledContent(found: Target, kind: Kind, pointer: string): Promise<unknown> {
    const content = await this.#walk(found.node, { kind, base: found.url, pointer, inEntry: false, depth: 0 });
    if (content !== null && typeof content === 'object') this.#bundled.add(content);
    return content;
  }

  /** The target of a reference written in `base` (the entry's local ones are not asked for). */
  async #target(ref: string, base: URL, at: string): Promise<Target> {
    // A reference to another file means the same from every file of one folder (`../shared/error.yml`).
    const memo = `${ref.startsWith('#') || base.protocol !== 'file:' ? base.href : base.href.slice(0, base.href.lastIndexOf('/') + 1)} ${ref}`;
    const known = this.#targets.get(memo);
    if (known !== undefined) return known;
    const url = new URL(ref, base);
    const fragment = url.hash.replace(/^#/, '');
    url.hash = '';
    // A document fetched from a URL reads no local file: it would serve the machine's files as its examples.
    if (url.protocol === 'file:' && base.protocol !== 'file:')
      throw new SpecError(
        `Failed to resolve $ref ${short(ref)} at #${at}: ${base.href} may not reference a local file (${short(url.href)})`,
      );
    const remote = url.protocol === 'http:' || url.protocol === 'https:';
    if (url.protocol !== 'file:' && !(remote && this.options.allowRemoteRefs)) {
      throw new SpecError(
        `Failed to resolve $ref ${short(ref)} at #${at}: ${remote ? 'references to URLs are not followed unless --allow-remote-refs is given' : `the ${url.protocol} scheme is not supported`}`,
      );
    }
    const loaded = url.href === this.#entryHref ? { url, root: this.document } : await this.#load(url, ref, at);
    let node: unknown = loaded.root;
    for (const segment of splitPointer(fragment)) {
      if (node === null || typeof node !== 'object' || !Object.hasOwn(node, segment))
        throw new SpecError(
          `Failed to resolve $ref ${short(ref)} at #${at}: nothing at "${short(segment)}" in ${displayName(url)}`,
        );
      node = (node as Record<string, unknown>)[segment];
    }
    const found = { key: `${url.href}#${fragment}`, node, url, fragment };
    if (url.href !== this.#entryHref) this.#targets.set(memo, found);
    return found;
  }

  /** The file `url` names (without its fragment), read and parsed once, within the bounds on files and bytes. */
  #load(url: URL, ref: string, at: string): Promise<Loaded> {
    const key = url.href.replace(/#.*$/, '');
    let loaded = this.#files.get(key);
    if (loaded !== undefined) return loaded;
    if (this.#files.size >= maxReferencedFiles)
      throw new SpecError(
        `Failed to resolve $ref ${short(ref)} at #${at}: the document references more than ${maxReferencedFiles} files`,
      );
    const where = `Failed to resolve $ref ${short(ref)} at #${at}`;
    const text =
      url.protocol === 'file:'
        ? this.#fileReader().then((reader) => reader.read(url, where))
        : readRemoteText(url, where, this.options.allowRemoteRefs === true);
    loaded = text.then((text) => {
      this.#bytesRead += Buffer.byteLength(text);
      if (this.#bytesRead > maxReferencedBytes)
        throw new SpecError(
          `${where}: the files the document references hold more than ${maxReferencedBytes / (1024 * 1024)} MiB together`,
        );
      return { url, root: parseReferenced(text, url, where) };
    });
    this.#files.set(key, loaded);
    return loaded;
  }

  #fileReader(): Promise<ReferencedFileReader> {
    this.#reader ??= refFolders(this.entry, this.options.allowRefsOutside).then(
      (folders) => new ReferencedFileReader(folders),
    );
    return this.#reader;
  }

  /**
   * Maps of the document and of its components given by a reference to another file, read first (the
   * Redocly habit `schemas: {$ref: ./schemas/_index.yaml}`): schemas from other files get homes in them.
   */
  async #readMapsGivenByRef(): Promise<void> {
    const root = this.document;
    for (const [holder, kind, at] of [
      [root, 'document', ''],
      [root.components, 'components', '/components'],
    ] as const) {
      if (!isRecord(holder)) continue;
      for (const [key, [, shape]] of Object.entries(structure[kind] ?? {})) {
        const given = holder[key];
        if (shape === 'map' && isMapRef(given))
          holder[key] = await this.#mapGivenByRef(given.$ref, this.entry, `${at}/${key}`);
      }
    }
  }

  /** A map (of schemas, properties, responses...) written as a reference to it: a copy, its entries read where they were written. */
  async #mapGivenByRef(ref: string, base: URL, at: string): Promise<Record<string, unknown>> {
    const found = await this.#target(ref, base, at);
    if (!isRecord(found.node))
      throw new SpecError(
        `Failed to resolve $ref ${short(ref)} at #${at}: ${displayName(found.url)} holds no map there`,
      );
    // The entry's own map stays where it is written (its entries are changed in place); another file's
    // entries are never changed (see `walk`), so its map is copied alone.
    const map = found.url.href === this.#entryHref ? copyDeep(found.node, found.url) : copyRecord(found.node);
    this.#mapBases.set(map, found.url);
    return map;
  }
}

/** The place of a node below `place`: at `segment`, of `kind`, `levels` deeper (a literal: the walk makes one per node). */
function below(place: Place, segment: string, kind: Kind, levels: number): Place {
  const { base, inEntry } = place;
  return { kind, base, pointer: `${place.pointer}/${segment}`, inEntry, depth: place.depth + levels };
}

/** `{$ref: ...}` and nothing else where a map of names belongs: a map given by reference (no name is `$ref`). */
function isMapRef(value: unknown): value is { $ref: string } {
  return isRecord(value) && typeof value.$ref === 'string' && Object.keys(value).length === 1;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A fresh copy of JSON data. */
function copyDeep<T>(node: T, from: URL): T {
  try {
    return structuredClone(node);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new SpecError(`Failed to resolve $refs: ${displayName(from)} is nested too deep to read`);
  }
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  // defineProperty keeps a literal "__proto__" key from a hostile document a plain key.
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

function short(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}

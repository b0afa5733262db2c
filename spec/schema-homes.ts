import { escapePointer } from './ref-resolver.js';

/**
 * Where the schemas other files bring into a document live (bundle-refs.ts): one entry each of the
 * document's `components.schemas` (`definitions` in Swagger 2.0), so a schema referred to from many
 * places, or from itself, stays one schema. Known by the reference's target (`file:///api/pet.yaml#/Pet`).
 */
export class SchemaHomes {
  /** `['components', 'schemas']`, or `['definitions']` in Swagger 2.0. */
  readonly #path: readonly string[];
  /** The pointer of each home (`/components/schemas/Pet`), by target. */
  readonly #pointers = new Map<string, string>();

  constructor(readonly document: Record<string, unknown>) {
    this.#path = document.swagger !== undefined ? ['definitions'] : ['components', 'schemas'];
  }

  /** The home's pointer of the schema `target` names, if it has one. */
  of(target: string): string | undefined {
    return this.#pointers.get(target);
  }

  /**
   * A new home for the schema `target` names, named after `name` (a free name, reserved now so a
   * recursive schema finds its home while it is walked); `place` puts the schema there.
   */
  add(target: string, name: string): { pointer: string; place(schema: unknown): void } {
    const container = this.#container();
    const base = name.replace(/[^A-Za-z0-9._-]/g, '_') || 'Schema';
    let free = base;
    for (let index = 2; Object.hasOwn(container, free); index += 1) free = `${base}_${index}`;
    container[free] = {};
    const pointer = this.#pointerOf(free);
    this.#pointers.set(target, pointer);
    return { pointer, place: (schema) => (this.#container()[free] = schema) };
  }

  /**
   * Each entry of the homes' map that is only a reference to another file (`Pet: {$ref: pet.yaml}`) is
   * that schema's home: its content goes there. `baseOf` gives the file a map given by reference was
   * read from (its entries' references are relative to it).
   */
  adoptReferenceEntries(baseOf: (map: object) => URL | undefined, entry: URL): void {
    const [first, second] = this.#path;
    const home = this.document[first!];
    const map = second === undefined ? home : isRecord(home) ? home[second] : undefined;
    if (!isRecord(map)) return;
    const mapBase = baseOf(map);
    const entryHref = entry.href.replace(/#.*$/, '');
    for (const [name, value] of Object.entries(map)) {
      if (!isRecord(value) || typeof value.$ref !== 'string' || Object.keys(value).length !== 1) continue;
      if (mapBase === undefined && value.$ref.startsWith('#')) continue;
      let url: URL;
      try {
        url = new URL(value.$ref, mapBase ?? entry);
      } catch {
        continue; // the walk refuses it, naming where it is
      }
      const fragment = url.hash.replace(/^#/, '');
      url.hash = '';
      if (url.href === entryHref) continue;
      const target = `${url.href}#${fragment}`;
      if (!this.#pointers.has(target)) this.#pointers.set(target, this.#pointerOf(name));
    }
  }

  #pointerOf(name: string): string {
    return `/${this.#path.map(escapePointer).join('/')}/${escapePointer(name)}`;
  }

  /** The homes' map, made where the document has none. */
  #container(): Record<string, unknown> {
    let current = this.document;
    for (const segment of this.#path) {
      if (current[segment] === null || typeof current[segment] !== 'object') current[segment] = {};
      current = current[segment] as Record<string, unknown>;
    }
    return current;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

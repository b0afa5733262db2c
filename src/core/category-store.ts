import type { Category, NewCategory } from '../../spec/schemas.js';

/**
 * The categories the mock holds. Ids are assigned in sequence and never reused, so they stay
 * unique under any interleaving of requests (the core runs each request to completion).
 *
 * @example
 * const store = new CategoryStore();
 * store.create({ name: 'dog' }); // { id: 1, name: 'dog' }
 */
export class CategoryStore {
  readonly #maxItems: number;
  #items = new Map<number, Category>();
  #nextId = 1;
  #listJson: string | null = null;
  #dropped = 0;

  /** @param maxItems Most categories kept; past it the oldest is dropped (memory stays bounded under a flood). */
  constructor(maxItems = Number.POSITIVE_INFINITY) {
    this.#maxItems = maxItems;
  }

  /** Stores a category; `input` holds only fields the spec declares (the caller picks them). */
  create(input: NewCategory): Category {
    const id = this.#nextId++;
    const category: Category = { id, ...input };
    if (this.#items.size >= this.#maxItems) {
      // Ids are handed out in sequence and nothing else deletes, so the oldest is exactly id - max.
      // (Iterating the Map for its first key would walk every earlier deletion's tombstone.)
      this.#items.delete(id - this.#maxItems);
      this.#dropped += 1;
    }
    this.#items.set(id, category);
    this.#listJson = null;
    return category;
  }

  list(): Category[] {
    return [...this.#items.values()];
  }

  /** The list as JSON text, kept until the next change: listing is the hot path. */
  listJson(): string {
    this.#listJson ??= JSON.stringify(this.list());
    return this.#listJson;
  }

  get size(): number {
    return this.#items.size;
  }

  /** How many categories were dropped to stay within the limit since the last clear. */
  get dropped(): number {
    return this.#dropped;
  }

  clear(): void {
    this.#items.clear();
    this.#nextId = 1;
    this.#listJson = null;
    this.#dropped = 0;
  }
}

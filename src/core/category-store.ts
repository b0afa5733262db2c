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
  #items = new Map<number, Category>();
  #nextId = 1;
  #listJson: string | null = null;

  /** Stores a category; `input` holds only fields the spec declares (the caller picks them). */
  create(input: NewCategory): Category {
    const id = this.#nextId++;
    const category: Category = { id, ...input };
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

  clear(): void {
    this.#items.clear();
    this.#nextId = 1;
    this.#listJson = null;
  }
}

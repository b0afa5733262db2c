import type { Category, NewCategory } from '../../../spec/schemas.js';
import { HttpError } from '../errors.js';
import { type ByteMeter, textBytes } from './memory-account.js';
import type { CreatedCategoryText } from './state-store.js';
import { categoryTooLargeMessage } from './store-checks.js';
import { utf8Length } from './utf8.js';

/** What the store holds and what its bounds dropped, for `GET /__mock/health`. */
export interface CategoryStoreStats {
  count: number;
  /** Size of the list as `GET /categories` serves it (UTF-8 bytes of its JSON). */
  bytes: number;
  maxCount: number;
  maxBytes: number;
  /** Categories dropped (oldest first) to stay within the bounds since the last clear. */
  dropped: number;
}

/**
 * The categories the mock holds, bounded in count and in bytes: past either bound the oldest are
 * dropped, so neither a flood of small categories nor a few huge ones can grow memory, or the list
 * JSON, without limit (a list past V8's string limit could never be served again). Ids are assigned
 * in sequence and never reused, so they stay unique under any interleaving of requests (the core
 * runs each request to completion).
 *
 * @example
 * const store = new CategoryStore({ maxCount: 10_000, maxBytes: 16 * 1024 * 1024 });
 * store.create({ name: 'dog' }); // { id: 1, name: 'dog' }
 */
export class CategoryStore {
  readonly #maxCount: number;
  readonly #maxBytes: number;
  /**
   * Ids `#nextId - size .. #nextId - 1` are all present (only the oldest is ever dropped), so a queue
   * is enough: a ring whose i-th oldest category is `#jsons[(#head + i) & (capacity - 1)]`, its UTF-8
   * size at the same index of `#sizes`. A ring, not an array shifted or sliced: dropping the oldest
   * (every create of a full store) is then the same few steps every time, and the rare compaction a
   * slice needs used to knock that hot path out of optimized code for thousands of requests. The
   * capacity is a power of two, doubled when full, so it never exceeds twice the bound.
   * Kept as JSON text only: one string per category is what the list is built from, and far less for
   * the garbage collector to carry than objects (a busy mock churns through the bound).
   */
  #jsons: (string | undefined)[] = new Array<string | undefined>(initialCapacity).fill(undefined);
  #sizes: number[] = new Array<number>(initialCapacity).fill(0);
  #head = 0;
  #count = 0;
  #nextId = 1;
  /** UTF-8 bytes of `[` + the items' JSON joined by `,` + `]`. */
  #bytes = 2;
  #listJson: string | null = null;
  /** What the cached list counts against the memory budget (0 when none is cached). */
  #listCharge = 0;
  #dropped = 0;
  readonly #meter: ByteMeter | undefined;

  /**
   * @param bounds.maxCount Most categories kept.
   * @param bounds.maxBytes Most bytes of the served list; a single category larger than that is refused (413).
   * @param bounds.meter The memory budget's account: each category's text and the cached list count
   *   against it; a category it has no room for is refused (507), a list it has no room for is served uncached.
   */
  constructor(bounds: { maxCount?: number; maxBytes?: number; meter?: ByteMeter } = {}) {
    this.#maxCount = bounds.maxCount ?? Number.POSITIVE_INFINITY;
    this.#maxBytes = bounds.maxBytes ?? Number.POSITIVE_INFINITY;
    this.#meter = bounds.meter;
  }

  /** Stores a category; `input` holds only fields the spec declares (the caller picks them). */
  create(input: NewCategory): Category {
    return { id: this.createEntry(input).id, ...input };
  }

  /**
   * `create`, answering with the category's id, its JSON text (the store keeps it for the list
   * anyway), its UTF-8 bytes and the count dropped so far: no category object (the answer is the text).
   */
  createEntry(input: NewCategory): CreatedCategoryText {
    const id = this.#nextId;
    const json = JSON.stringify({ id, ...input });
    // Counted here, where the text is made: the byte bound needs it, and the list's count is kept from it.
    const bytes = utf8Length(json);
    // The list is "[" + items + "]" with a comma between items.
    if (2 + bytes > this.#maxBytes)
      throw new HttpError('payload_too_large', categoryTooLargeMessage(bytes, this.#maxBytes));
    // The cached list goes with any change (its room first, for the category).
    this.#forgetList();
    if (this.#meter !== undefined && !this.#meter.take(entryCharge(json, bytes))) throw this.#meter.full('category');
    this.#nextId += 1;
    while (this.size > 0 && (this.size >= this.#maxCount || this.#bytes + bytes + 1 > this.#maxBytes))
      this.#dropOldest();
    this.#bytes += bytes + (this.size > 0 ? 1 : 0);
    if (this.#count === this.#jsons.length) this.#grow();
    const slot = (this.#head + this.#count) & (this.#jsons.length - 1);
    this.#jsons[slot] = json;
    this.#sizes[slot] = bytes;
    this.#count += 1;
    return { id, dropped: this.#dropped, json, bytes };
  }

  /**
   * Of categories about to be created in this order, the first larger than the whole byte bound with
   * its size, or null: with the ids they would get, so a caller can refuse them all before storing one.
   */
  firstTooLarge(inputs: readonly NewCategory[]): { index: number; bytes: number } | null {
    for (let index = 0; index < inputs.length; index += 1) {
      const bytes = utf8Length(JSON.stringify({ id: this.#nextId + index, ...inputs[index] }));
      if (2 + bytes > this.#maxBytes) return { index, bytes };
    }
    return null;
  }

  /** What categories about to be created would count against the memory budget, before the oldest they push out give theirs back. */
  chargeOf(inputs: readonly NewCategory[]): number {
    let total = 0;
    for (let index = 0; index < inputs.length; index += 1) {
      const json = JSON.stringify({ id: this.#nextId + index, ...inputs[index] });
      total += entryCharge(json, utf8Length(json));
    }
    return total;
  }

  #dropOldest(): void {
    const bytes = this.#sizes[this.#head]!;
    this.#meter?.give(entryCharge(this.#jsons[this.#head]!, bytes));
    this.#jsons[this.#head] = undefined;
    this.#head = (this.#head + 1) & (this.#jsons.length - 1);
    this.#count -= 1;
    this.#bytes -= bytes + (this.#count > 0 ? 1 : 0);
    this.#dropped += 1;
  }

  /** Doubles the ring, its entries moved to the front in order. */
  #grow(): void {
    const jsons = this.#live() as (string | undefined)[];
    const sizes: number[] = [];
    for (let index = 0; index < this.#count; index += 1)
      sizes.push(this.#sizes[(this.#head + index) & (this.#sizes.length - 1)]!);
    const capacity = this.#jsons.length * 2;
    while (jsons.length < capacity) {
      jsons.push(undefined);
      sizes.push(0);
    }
    this.#jsons = jsons;
    this.#sizes = sizes;
    this.#head = 0;
  }

  list(): Category[] {
    return this.#live().map((json) => JSON.parse(json) as Category);
  }

  /** The list as JSON text, built from each category's own JSON and kept until the next change: listing is the hot path. */
  listJson(): string {
    if (this.#listJson !== null) return this.#listJson;
    const text = `[${this.#live().join(',')}]`;
    const charge = textBytes(text, this.#bytes);
    // Kept when the budget has room; else served as made, and made again next time.
    if (this.#meter === undefined || this.#meter.take(charge)) {
      this.#listJson = text;
      this.#listCharge = charge;
    } else {
      this.#meter.notKept();
    }
    return text;
  }

  #forgetList(): void {
    if (this.#listJson === null) return;
    this.#meter?.give(this.#listCharge);
    this.#listJson = null;
    this.#listCharge = 0;
  }

  /** The stored JSON texts, oldest first. */
  #live(): string[] {
    const live: string[] = [];
    const mask = this.#jsons.length - 1;
    for (let index = 0; index < this.#count; index += 1) live.push(this.#jsons[(this.#head + index) & mask]!);
    return live;
  }

  /** UTF-8 bytes of `listJson()`, counted as categories come and go. */
  get listBytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#count;
  }

  /** How many categories were dropped to stay within the bounds since the last clear. */
  get dropped(): number {
    return this.#dropped;
  }

  stats(): CategoryStoreStats {
    return {
      count: this.size,
      bytes: this.#bytes,
      maxCount: this.#maxCount,
      maxBytes: this.#maxBytes,
      dropped: this.#dropped,
    };
  }

  /**
   * Exactly these categories, ids kept (consecutive and ascending, as a list of this store always is:
   * the caller checks), the next id after the last; what was dropped before is forgotten.
   */
  restore(categories: readonly Category[]): void {
    this.clear();
    if (categories.length > 0) this.#nextId = categories[0]!.id;
    for (const { id: _id, ...fields } of categories) this.createEntry(fields);
  }

  clear(): void {
    this.#forgetList();
    const live = this.#live();
    for (let index = 0; index < live.length; index += 1)
      this.#meter?.give(entryCharge(live[index]!, this.#sizes[(this.#head + index) & (this.#sizes.length - 1)]!));
    this.#jsons = new Array<string | undefined>(initialCapacity).fill(undefined);
    this.#sizes = new Array<number>(initialCapacity).fill(0);
    this.#head = 0;
    this.#count = 0;
    this.#nextId = 1;
    this.#bytes = 2;
    this.#dropped = 0;
  }
}

/** What a stored category counts against the memory budget: its text, and its two slots and string header. */
function entryCharge(json: string, utf8Bytes: number): number {
  return textBytes(json, utf8Bytes) + 48;
}

/** A power of two (the ring's index arithmetic needs one). */
const initialCapacity = 16;

/** One line of the request log served by `GET /__mock/requests`. Holds no secrets. */
export interface RequestLogEntry {
  time: string;
  method: string;
  path: string;
  operationId: string | null;
  /** Plan of the key, `anonymous` without a valid key, `control` for the control API. */
  plan: string;
  /** The key, masked; null when none was sent. */
  key: string | null;
  status: number;
  code: string | null;
}

/** An entry as recorded: the time stays a number until someone reads the log (the hot path). */
export type RecordedRequest = Omit<RequestLogEntry, 'time'> & { timeMs: number };

/**
 * A fixed-size ring buffer: the newest `capacity` entries, oldest first. Memory never grows past it.
 *
 * @example const log = new RequestLog(2); log.add(a); log.add(b); log.add(c); log.entries() // [b, c]
 */
export class RequestLog {
  readonly #capacity: number;
  #items: RecordedRequest[] = [];
  #next = 0;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  add(entry: RecordedRequest): void {
    if (this.#items.length < this.#capacity) this.#items.push(entry);
    else this.#items[this.#next] = entry;
    this.#next = (this.#next + 1) % this.#capacity;
  }

  entries(): RequestLogEntry[] {
    const ordered = this.#items.length < this.#capacity ? this.#items : [...this.#items.slice(this.#next), ...this.#items.slice(0, this.#next)];
    return ordered.map(({ timeMs, ...entry }) => ({ time: new Date(timeMs).toISOString(), ...entry }));
  }

  clear(): void {
    this.#items = [];
    this.#next = 0;
  }
}

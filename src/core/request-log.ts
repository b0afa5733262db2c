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

/**
 * What the export (`GET /__mock/requests?format=jsonl`, for `petstore-mock replay`) needs besides the
 * log line: never the key itself, only its SHA-256 digest (the export turns it into a pseudonym).
 */
export interface ReplayFields {
  /** The request target with its query. */
  url: string;
  /** SHA-256 hex of a valid key; null otherwise. */
  keyDigest: string | null;
  clientAddress: string | null;
  auth: 'key' | 'invalid' | 'none';
  limits: { perMinute: number; perDay: number };
  prefer: string | null;
  contentType: string | null;
  /** The body as text, cut to the export's bound. */
  body: string | null;
}

/** An entry as recorded: the time stays a number until someone reads the log (the hot path). */
export type RecordedRequest = Omit<RequestLogEntry, 'time'> & { timeMs: number; replay?: ReplayFields };

/** The public log line of a recorded entry (the replay fields stay for the export). */
export function publicLogEntry({ timeMs, replay: _replay, ...entry }: RecordedRequest): RequestLogEntry {
  return { time: new Date(timeMs).toISOString(), ...entry };
}

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
    return ordered.map(publicLogEntry);
  }

  /** The entries as recorded, oldest first (the export reads their replay fields). */
  recorded(): RecordedRequest[] {
    return this.#items.length < this.#capacity ? [...this.#items] : [...this.#items.slice(this.#next), ...this.#items.slice(0, this.#next)];
  }

  clear(): void {
    this.#items = [];
    this.#next = 0;
  }
}

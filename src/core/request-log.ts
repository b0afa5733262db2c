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
 * Kept as columns (one array per field), not as the entry objects: an entry object that the log
 * keeps outlives the young generation, and every object that does is copied by the garbage
 * collector, then promoted, on every request of a busy mock (measured: the log's objects were a
 * third of what survived each POST). Copied into columns, the entry dies young; only its strings
 * are kept, and a text equal to the one of the entry before (the same path, body, content type: a
 * client hammering one endpoint) is kept once. The columns grow with the log, so a large capacity
 * costs nothing until it is used.
 *
 * @example const log = new RequestLog(2); log.add(a); log.add(b); log.add(c); log.entries() // [b, c]
 */
export class RequestLog {
  readonly #capacity: number;
  /** Index of the slot the next entry goes to (once full: the oldest entry). */
  #next = 0;
  #size = 0;
  // Numbers only: V8 keeps them unboxed (double and small-integer elements), nothing to allocate.
  #timeMs: number[] = [];
  #status: number[] = [];
  #method: string[] = [];
  #path: string[] = [];
  #operationId: (string | null)[] = [];
  #plan: string[] = [];
  #key: (string | null)[] = [];
  #code: (string | null)[] = [];
  /** The replay fields; `#url` is null for an entry without them. */
  #url: (string | null)[] = [];
  #keyDigest: (string | null)[] = [];
  #clientAddress: (string | null)[] = [];
  #auth: (ReplayFields['auth'] | null)[] = [];
  #limits: (ReplayFields['limits'] | null)[] = [];
  #prefer: (string | null)[] = [];
  #contentType: (string | null)[] = [];
  #body: (string | null)[] = [];

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  add(entry: RecordedRequest): void {
    const slot = this.#next;
    // The slot of the entry before this one (none in an empty log).
    const previous = this.#size === 0 ? -1 : slot === 0 ? this.#capacity - 1 : slot - 1;
    if (this.#size < this.#capacity) {
      // Appends: the columns grow in step, so `slot` is each one's length.
      this.#size += 1;
    }
    this.#timeMs[slot] = entry.timeMs;
    this.#status[slot] = entry.status;
    this.#method[slot] = entry.method;
    this.#path[slot] = sameAs(this.#path, previous, entry.path);
    this.#operationId[slot] = entry.operationId;
    this.#plan[slot] = entry.plan;
    this.#key[slot] = entry.key;
    this.#code[slot] = entry.code;
    const replay = entry.replay;
    if (replay === undefined) {
      this.#url[slot] = null;
      this.#keyDigest[slot] = null;
      this.#clientAddress[slot] = null;
      this.#auth[slot] = null;
      this.#limits[slot] = null;
      this.#prefer[slot] = null;
      this.#contentType[slot] = null;
      this.#body[slot] = null;
    } else {
      this.#url[slot] = sameAs(this.#url, previous, replay.url);
      this.#keyDigest[slot] = replay.keyDigest;
      this.#clientAddress[slot] = sameAs(this.#clientAddress, previous, replay.clientAddress);
      this.#auth[slot] = replay.auth;
      this.#limits[slot] = replay.limits;
      this.#prefer[slot] = sameAs(this.#prefer, previous, replay.prefer);
      this.#contentType[slot] = sameAs(this.#contentType, previous, replay.contentType);
      this.#body[slot] = sameAs(this.#body, previous, replay.body);
    }
    this.#next = slot + 1 === this.#capacity ? 0 : slot + 1;
  }

  entries(): RequestLogEntry[] {
    return this.#slots().map((slot) => ({ time: new Date(this.#timeMs[slot]!).toISOString(), ...this.#entryAt(slot) }));
  }

  /** The entries as recorded, oldest first (the export reads their replay fields). */
  recorded(): RecordedRequest[] {
    return this.#slots().map((slot) => {
      const recorded: RecordedRequest = { timeMs: this.#timeMs[slot]!, ...this.#entryAt(slot) };
      const url = this.#url[slot];
      if (url !== null && url !== undefined) {
        recorded.replay = {
          url,
          keyDigest: this.#keyDigest[slot]!,
          auth: this.#auth[slot]!,
          limits: this.#limits[slot]!,
          clientAddress: this.#clientAddress[slot]!,
          prefer: this.#prefer[slot]!,
          contentType: this.#contentType[slot]!,
          body: this.#body[slot]!,
        };
      }
      return recorded;
    });
  }

  clear(): void {
    this.#next = 0;
    this.#size = 0;
    for (const column of [this.#timeMs, this.#status, this.#method, this.#path, this.#operationId, this.#plan, this.#key, this.#code, this.#url, this.#keyDigest, this.#clientAddress, this.#auth, this.#limits, this.#prefer, this.#contentType, this.#body]) {
      column.length = 0;
    }
  }

  /** The occupied slots, oldest first. */
  #slots(): number[] {
    const slots: number[] = [];
    const first = this.#size < this.#capacity ? 0 : this.#next;
    for (let index = 0; index < this.#size; index += 1) slots.push((first + index) % this.#capacity);
    return slots;
  }

  #entryAt(slot: number): Omit<RequestLogEntry, 'time'> {
    return {
      method: this.#method[slot]!,
      path: this.#path[slot]!,
      operationId: this.#operationId[slot]!,
      plan: this.#plan[slot]!,
      key: this.#key[slot]!,
      status: this.#status[slot]!,
      code: this.#code[slot]!,
    };
  }
}

/**
 * `text`, or the equal text `column` holds at `previous`: each request brings its own copy of
 * strings that repeat from one request to the next, and one copy is all the log needs to keep.
 */
function sameAs<Text extends string | null>(column: Text[], previous: number, text: Text): Text {
  if (previous === -1) return text;
  const before = column[previous];
  return before === text ? before : text;
}

import type { FaultKind } from '../config/fault-config.js';
import type { ExactWindows as ClientWindows } from '../config/scenario-windows.js';
import type { ByteMeter } from './memory-account.js';

/**
 * Bodies kept per exported request (characters). The log is a ring of up to 100,000 entries, so the
 * integration stores at most this much per entry; a longer body is cut and its replay may differ
 * (the replay lists every status that differs from the recording).
 */
export const maxExportBodyBytes = 2 * 1024;

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
  /**
   * The fault the request met (decision 042): with `reset`, `close` and `timeout` the client saw no
   * status at all (`status` is what the mock had decided); absent when none.
   */
  fault?: FaultKind;
  /** The latency the answer waited before it was written, in ms; absent when none. */
  delayMs?: number;
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
 * One slot of the log, written over in place once the log is full: an entry's fields and its replay
 * fields (`url` null without them), and what it counts against the memory budget.
 */
type LogSlot = Omit<RecordedRequest, 'replay' | 'fault' | 'delayMs'> & {
  fault: NonNullable<RequestLogEntry['fault']> | null;
  delayMs: number;
} & { [Field in keyof ReplayFields]: ReplayFields[Field] | null } & {
  charge: number;
  /** The id of the key the request was counted against, as the store gave it (null when not a key's). */
  keyId: string | null;
} & PostFields;

/**
 * Where the request's client stood just after it (`ClientWindows` as numbers in the slot: `postMinuteStart`
 * NaN when none was given, `postBannedUntil` NaN when not banned), kept so that the store can fold a
 * dropped entry into the log's starting state (docs/decisions/026-faithful-export.md).
 */
interface PostFields {
  postMinuteStart: number;
  postMinuteCount: number;
  postDayStart: number;
  postDayCount: number;
  postStrikes: number;
  postBannedUntil: number;
}

/**
 * An API request the log dropped to stay within its size, with where its client stood just after it
 * (`ClientWindows` as numbers: `postMinuteStart` NaN when the store gave none, `postBannedUntil` NaN when
 * not banned). The slot itself, read before it is written over: nothing is copied for a drop, and
 * nothing may keep it past the call.
 */
export interface DroppedRequest extends Readonly<PostFields> {
  readonly timeMs: number;
  /** Counted against this key id (its digest's first 32 hex digits) when not null, else against `clientAddress`. */
  readonly keyId: string | null;
  readonly clientAddress: string | null;
}

/**
 * A fixed-size ring buffer: the newest `capacity` entries, oldest first. Memory never grows past it.
 *
 * Each slot is an object of its own that later entries are copied into, not the entry objects
 * themselves: an entry object the log keeps outlives the young generation, and every object that
 * does is copied by the garbage collector, then promoted, on every request of a busy mock (measured:
 * the log's objects were a third of what survived a POST, and most of what survived a GET). Copied
 * into a slot, the entry dies young; only its strings are kept, and a text equal to the one of the
 * entry before (the same path, body, content type: a client hammering one endpoint) is kept once.
 * Slots are made as the log fills, so a large capacity costs nothing until it is used.
 *
 * @example const log = new RequestLog(2); log.add(a); log.add(b); log.add(c); log.entries() // [b, c]
 */
export class RequestLog {
  readonly #capacity: number;
  readonly #meter: ByteMeter | undefined;
  #slots: LogSlot[] = [];
  /** Index of the slot the next entry goes to (once full: the oldest entry). */
  #next = 0;

  readonly #onDrop: ((dropped: DroppedRequest) => void) | undefined;

  /**
   * @param meter The memory budget's account: each entry's texts count against it (an entry it has no
   *   room for is not kept; the request was answered all the same).
   * @param onDrop Told of each API request written over once the log is full; what it is given is the
   *   log's own slot, valid only during the call: read it, never keep or change it.
   */
  constructor(capacity: number, meter?: ByteMeter, onDrop?: (dropped: DroppedRequest) => void) {
    this.#capacity = capacity;
    this.#meter = meter;
    this.#onDrop = onDrop;
  }

  /**
   * @param post Where the request's client stood just after it (kept for `onDrop`).
   * @param keyId The id of the key it was counted against (kept for `onDrop`).
   */
  add(entry: RecordedRequest, post?: ClientWindows | null, keyId: string | null = null): void {
    const index = this.#next;
    // The entry before this one, whose texts this one may share (none in an empty log).
    const previous = this.#slots.length === 0 ? undefined : this.#slots[index === 0 ? this.#capacity - 1 : index - 1];
    let slot = this.#slots[index];
    if (this.#meter !== undefined) {
      const charge = chargeOf(entry);
      const more = charge - (slot === undefined ? 0 : slot.charge);
      if (more > 0 && !this.#meter.take(more)) {
        this.#meter.notKept();
        return;
      }
      if (more < 0) this.#meter.give(-more);
      if (slot !== undefined) slot.charge = charge;
      else slot = newSlot(this.#slots, charge);
    } else if (slot === undefined) {
      slot = newSlot(this.#slots, 0);
    }
    // The oldest entry is written over: its API request is told to whoever folds it into the starting state.
    if (slot.url !== null && this.#onDrop !== undefined && !Number.isNaN(slot.timeMs)) this.#onDrop(slot);
    slot.timeMs = entry.timeMs;
    slot.method = entry.method;
    slot.path = sameAs(previous?.path, entry.path);
    slot.operationId = entry.operationId;
    slot.plan = entry.plan;
    slot.key = entry.key;
    slot.status = entry.status;
    slot.code = entry.code;
    slot.fault = entry.fault ?? null;
    slot.delayMs = entry.delayMs ?? 0;
    slot.keyId = keyId;
    if (post === undefined || post === null) {
      slot.postMinuteStart = Number.NaN;
    } else {
      slot.postMinuteStart = post.minuteStartMs;
      slot.postMinuteCount = post.minuteCount;
      slot.postDayStart = post.dayStartMs;
      slot.postDayCount = post.dayCount;
      slot.postStrikes = post.strikes;
      slot.postBannedUntil = post.bannedUntilMs ?? Number.NaN;
    }
    const replay = entry.replay;
    if (replay === undefined) {
      slot.url = null;
      slot.keyDigest = null;
      slot.clientAddress = null;
      slot.auth = null;
      slot.limits = null;
      slot.prefer = null;
      slot.contentType = null;
      slot.body = null;
    } else {
      // The target is most often the path itself (no query): then the path's kept text is the URL's.
      slot.url = replay.url === entry.path ? slot.path : sameAs(previous?.url, replay.url);
      slot.keyDigest = replay.keyDigest;
      slot.clientAddress = sameAs(previous?.clientAddress, replay.clientAddress);
      slot.auth = replay.auth;
      slot.limits = replay.limits;
      slot.prefer = sameAs(previous?.prefer, replay.prefer);
      slot.contentType = sameAs(previous?.contentType, replay.contentType);
      slot.body = sameAs(previous?.body, replay.body);
    }
    this.#next = index + 1 === this.#capacity ? 0 : index + 1;
  }

  entries(): RequestLogEntry[] {
    return this.recorded().map(publicLogEntry);
  }

  /** The entries as recorded, oldest first (the export reads their replay fields). */
  recorded(): RecordedRequest[] {
    return this.#inOrder().map(
      ({
        timeMs,
        method,
        path,
        operationId,
        plan,
        key,
        status,
        code,
        fault,
        delayMs,
        url,
        keyDigest,
        clientAddress,
        auth,
        limits,
        prefer,
        contentType,
        body,
      }) => {
        const recorded: RecordedRequest = { timeMs, method, path, operationId, plan, key, status, code };
        if (fault !== null) recorded.fault = fault;
        if (delayMs > 0) recorded.delayMs = delayMs;
        if (url !== null)
          recorded.replay = { url, keyDigest, auth: auth!, limits: limits!, clientAddress, prefer, contentType, body };
        return recorded;
      },
    );
  }

  clear(): void {
    // The slots go too: they hold the cleared entries' texts.
    for (const slot of this.#slots) this.#meter?.give(slot.charge);
    this.#slots = [];
    this.#next = 0;
  }

  /** The slots in use, oldest first (slots are made only as the log fills: all of them are in use). */
  #inOrder(): LogSlot[] {
    if (this.#slots.length < this.#capacity) return [...this.#slots];
    return [...this.#slots.slice(this.#next), ...this.#slots.slice(0, this.#next)];
  }
}

/** A new slot at the end of the log. */
function newSlot(slots: LogSlot[], charge: number): LogSlot {
  // NaN, not 0: the field holds doubles from the start (a small integer first would change its representation, and the slot's shape, at the first real time).
  const slot: LogSlot = {
    timeMs: Number.NaN,
    method: '',
    path: '',
    operationId: null,
    plan: '',
    key: null,
    status: 0,
    code: null,
    fault: null,
    delayMs: 0,
    url: null,
    keyDigest: null,
    keyId: null,
    clientAddress: null,
    auth: null,
    limits: null,
    prefer: null,
    contentType: null,
    body: null,
    charge,
    postMinuteStart: Number.NaN,
    postMinuteCount: 0,
    postDayStart: Number.NaN,
    postDayCount: 0,
    postStrikes: 0,
    postBannedUntil: Number.NaN,
  };
  slots.push(slot);
  return slot;
}

/**
 * What an entry counts against the memory budget: its slot, and two bytes a character of the texts
 * the request brought (a body with one non-Latin-1 character is two bytes wide); texts shared with the
 * entry before count again (an upper bound, at no cost). The key, plan and code are the mock's own.
 */
function chargeOf(entry: RecordedRequest): number {
  const replay = entry.replay;
  const texts =
    entry.path.length +
    (replay === undefined
      ? 0
      : replay.url.length +
        (replay.body?.length ?? 0) +
        (replay.prefer?.length ?? 0) +
        (replay.contentType?.length ?? 0) +
        (replay.clientAddress?.length ?? 0));
  return 200 + 2 * texts;
}

/**
 * `text`, or the equal text the entry before holds: each request brings its own copy of strings
 * that repeat from one request to the next, and one copy is all the log needs to keep.
 */
function sameAs<Text extends string | null>(before: Text | undefined, text: Text): Text {
  return before !== undefined && before === text ? before : text;
}

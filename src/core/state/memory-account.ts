import type { HttpError } from '../errors.js';

// What the stores and the lab see of the process's memory budget (memory-budget.ts): the account
// each owner of a session's data keeps with it, and what the health answer reports.

/** What `GET /__mock/health` says of the process's memory budget. */
export interface MemoryBudgetStats {
  budgetBytes: number;
  usedBytes: number;
  /** What the budget counts in this process (with Redis, the store's data is Redis's, bounded by its maxmemory). */
  counts: string;
  /** Named sessions forgotten to stay within the budget (least recently used first; never the default one). */
  evictedSessions: number;
  /** Writes answered 507 store_full: nothing more could be forgotten to make room. */
  refusedWrites: number;
  /** Request log entries, cached lists and lab clients not kept for want of room (the answers were given all the same). */
  notKept: number;
}

/**
 * One owner's account with the budget for one session (the memory store's session, its lab): what it
 * takes and gives back, and all of it at once when it drops the session.
 */
export interface ByteMeter {
  /** Counts `bytes` if they fit, forgetting least recently used named sessions to make room; false (nothing counted) when they do not. */
  take(bytes: number): boolean;
  /** Counts `bytes` whatever: for what another bound already keeps small (rate-limit records); makes room as `take` does. */
  charge(bytes: number): void;
  give(bytes: number): void;
  /** Gives back everything this owner counted for the session (it dropped the session). */
  releaseAll(): void;
  /** Notes something not kept for want of room (for `notKept`). */
  notKept(): void;
  /** The answer to a write that did not fit (counted in `refusedWrites`): 507 store_full, with Retry-After. */
  full(what: string): HttpError;
}

/**
 * The process's memory budget as the app uses it (`MemoryBudget` in memory-budget.ts): the memory
 * store counts its sessions against it, the lab counts its judgements, the health answer reports it.
 */
export interface ProcessMemory {
  readonly budgetBytes: number;
  /** Called with each session forgotten to make room: its owners drop it whole. */
  onEvict(listener: (session: string) => void): void;
  /** Marks a session as the most recently used. */
  touch(session: string): void;
  /** An account for one owner of one session. */
  meter(session: string): ByteMeter;
  stats(): MemoryBudgetStats;
}

/**
 * Heap bytes of a text, from its UTF-8 size counted where it was made: one byte a character when it is
 * ASCII (V8 keeps it one byte wide), else two a UTF-16 unit, or its UTF-8 size when that is more.
 */
export function textBytes(text: string, utf8Bytes: number): number {
  return utf8Bytes === text.length ? utf8Bytes : Math.max(utf8Bytes, 2 * text.length);
}

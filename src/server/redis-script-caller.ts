import { randomBytes } from 'node:crypto';
import { defaultSessionName } from '../core/state/sessions.js';
import { StoreCorruptError, StoreFullError, StoreUnavailableError } from '../core/state/state-store.js';
import { describeError, type RedisCommander, type RedisSettings } from './redis-connection.js';
import { lateReply } from './redis-lua-functions.js';
import type { Script } from './redis-scripts.js';

// How the Redis store runs one script: a deadline stamped into each call, one sweeping timer that gives
// up the calls Redis does not answer, and every failure turned into the store's own errors. Its own
// class so that the store's operations read as "these keys and arguments to that script".

interface PendingCall {
  /** performance.now() past which the call is given up, after one more turn of the event loop. */
  deadline: number;
  /** A sweep saw it past its deadline; the next one gives it up if its answer has still not been read. */
  overdue: boolean;
  reject(error: Error): void;
}

/** Whose keys a call reads: a session's, or the session registry's (null). */
export type CallScope = string | null;

const redisReplyUnavailable = /^(BUSY|LOADING|MASTERDOWN|READONLY|TRYAGAIN|CLUSTERDOWN|NOREPLICAS|MISCONF)/;
const redisReplyCorrupt = /^(PETSTORE_CORRUPT |WRONGTYPE)/;

export class RedisScriptCaller {
  readonly #redis: RedisCommander;
  readonly #settings: RedisSettings;
  readonly #inflight = new Set<PendingCall>();
  readonly #sweepMs: number;
  /** How long a script may wait in Redis before it must not start any more: the timeout less the time its answer needs to come back. */
  readonly #scriptBudgetMs: number;
  #sweeper: NodeJS.Timeout | undefined;
  #closed = false;
  #lastCorruptLogMs = Number.NEGATIVE_INFINITY;
  /** A random epoch per session creation or reset (`#nonce`): buckets of an older epoch count as empty. */
  readonly #noncePrefix = randomBytes(6).toString('hex');
  #nonceCounter = 0;

  constructor(redis: RedisCommander, settings: RedisSettings) {
    this.#redis = redis;
    this.#settings = settings;
    this.#sweepMs = Math.min(100, Math.max(10, Math.floor(settings.timeoutMs / 4)));
    this.#scriptBudgetMs = settings.timeoutMs - Math.min(250, Math.floor(settings.timeoutMs / 2));
  }

  /** Gives up every call in flight and closes the connection; a second call does nothing. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#sweeper);
    this.#sweep();
    await this.#redis.close();
  }

  assertOpen(): void {
    if (this.#closed) throw new Error('Failed to use the Redis store: it is closed');
  }

  /**
   * EVALSHA with the call's stamp as ARGV[1] (its deadline in Redis's time and a nonce), loading the
   * script on NOSCRIPT. Every failure to answer becomes StoreUnavailableError: a call is given up once a
   * sweep after its timeout has seen it late twice (so an answer already in the socket is read first);
   * the script itself does nothing if it starts after its deadline, earlier than that. One sweeping
   * timer for all calls in flight (a timer per call was a tenth of the client's CPU per request).
   */
  call(which: Script, keys: string[], args: string[], scope: CallScope): Promise<unknown> {
    const { displayUrl, timeoutMs, retryAfterSeconds } = this.#settings;
    if (!this.#redis.isReady)
      return Promise.reject(
        new StoreUnavailableError(
          `The Redis store ${displayUrl} is unavailable (reconnecting); nothing was sent`,
          retryAfterSeconds,
        ),
      );
    const stamp = `${this.#redis.clock.deadline(this.#scriptBudgetMs)} ${this.#nonce()}`;
    const command = ['EVALSHA', which.sha, String(keys.length), ...keys, stamp, ...args];
    return new Promise((resolve, reject) => {
      const pending: PendingCall = { deadline: performance.now() + timeoutMs, overdue: false, reject };
      this.#inflight.add(pending);
      this.#sweeper ??= setInterval(() => this.#sweep(), this.#sweepMs).unref();
      this.#redis
        .send(command)
        .catch((error: unknown) => {
          if (error instanceof Error && error.message.startsWith('NOSCRIPT'))
            return this.#redis.send(['EVAL', which.source, ...command.slice(2)]);
          throw error;
        })
        .then(
          (reply) => {
            if (!this.#inflight.delete(pending)) return;
            if (reply === lateReply)
              reject(
                new StoreUnavailableError(
                  `The Redis store ${displayUrl} ran a call after its deadline (${timeoutMs} ms): it changed nothing`,
                  retryAfterSeconds,
                ),
              );
            else resolve(reply);
          },
          (error: unknown) => {
            if (this.#inflight.delete(pending)) reject(this.#failure(error, scope));
          },
        );
    });
  }

  /** A stored value the caller parses (a key entry, a log line), or the store's corrupt answer when it is not what the mock writes. */
  parsed<T>(session: string, what: string, parse: () => T): T {
    try {
      return parse();
    } catch {
      throw this.#corrupt(session, `${what}: an entry is not one the mock wrote`);
    }
  }

  #nonce(): string {
    this.#nonceCounter += 1;
    return `${this.#noncePrefix}.${this.#nonceCounter.toString(36)}`;
  }

  #failure(error: unknown, scope: CallScope): Error {
    const { displayUrl, retryAfterSeconds } = this.#settings;
    if (this.#redis.isReplyError(error)) {
      const message = (error as Error).message;
      if (redisReplyCorrupt.test(message)) return this.#corrupt(scope, message);
      // Refused before it ran: a script that may write is not started while Redis is over maxmemory.
      if (message.startsWith('OOM'))
        return new StoreFullError(
          `The Redis store is out of memory (its maxmemory): nothing was changed; free some (reset sessions, or let idle ones expire) or raise maxmemory`,
          retryAfterSeconds,
        );
      // Any other reply error is a bug in a script: the core answers 500.
      if (!redisReplyUnavailable.test(message))
        return new Error(`Failed to run a Redis store script: ${message}`, { cause: error });
    }
    return new StoreUnavailableError(
      `The Redis store ${displayUrl} is unavailable: ${describeError(error)}`,
      retryAfterSeconds,
      { cause: error },
    );
  }

  /** The one answer to data the mock did not write: where it is, and how to repair it (logged once per 10 s). */
  #corrupt(scope: CallScope, message: string): StoreCorruptError {
    const detail = message
      .replace(/^PETSTORE_CORRUPT /, '')
      .replace(/^WRONGTYPE .*/, 'a key of another type than the mock writes')
      .replace(/ script: \w+, on @user_script:\d+\.$/, '');
    const { prefix, logger } = this.#settings;
    const text =
      scope === null
        ? `The Redis store holds data the mock did not write at ${prefix}sessions (${detail}); POST /__mock/reset repairs it, or delete it: redis-cli DEL '${prefix}sessions'`
        : `The Redis store holds data the mock did not write under ${prefix}{${scope}}:* (${detail}); POST /__mock/reset${scope === defaultSessionName ? '' : ` with X-Mock-Session: ${scope}`} rewrites the session's keys, or delete them: redis-cli --scan --pattern '${prefix}{${scope}}:*' | xargs redis-cli DEL`;
    const now = performance.now();
    if (now - this.#lastCorruptLogMs >= 10_000) {
      this.#lastCorruptLogMs = now;
      logger.warn(`Answering 503 store_corrupt: ${text}`);
    }
    return new StoreCorruptError(text);
  }

  /**
   * Gives up the calls past their timeout. Calls are in the set in the order they started, and all have
   * the same timeout: stop at the first still running. A late call is given up at its second late sweep:
   * between two sweeps the event loop has read the sockets, so an answer that had arrived is never
   * mistaken for none (a loop blocked past the timeout runs its timers before it reads).
   */
  #sweep(): void {
    const now = performance.now();
    for (const pending of this.#inflight) {
      if (pending.deadline > now) break;
      if (!pending.overdue && !this.#closed) {
        pending.overdue = true;
        continue;
      }
      this.#inflight.delete(pending);
      pending.reject(
        new StoreUnavailableError(
          `The Redis store ${this.#settings.displayUrl} did not answer within ${this.#settings.timeoutMs} ms; whatever it was asked will not be done`,
          this.#settings.retryAfterSeconds,
        ),
      );
    }
  }
}

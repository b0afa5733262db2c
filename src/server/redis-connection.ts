import { type Logger, silentLogger } from '../core/types.js';
import { scripts } from './redis-scripts.js';

// The connection of the Redis store: its options, node-redis loaded on demand, a client (or a
// cluster) that fails fast instead of queueing, and the estimate of Redis's clock that each script's
// deadline is written in (src/server/redis-store.ts, docs/decisions/019-store-failure-semantics.md).

export interface RedisStoreOptions {
  /** `redis://[[user]:password@]host[:port][/db]` or `rediss://...` for TLS. */
  url: string;
  /** Put in front of every key, so several mocks (or other tools) can share one Redis. Default `petstore-mock:`. */
  prefix?: string;
  /** Longest wait for any Redis call before it fails with StoreUnavailableError. Default 2000 ms (1..5000). */
  timeoutMs?: number;
  /** Retry-After (seconds) carried by StoreUnavailableError. Default 2. */
  retryAfterSeconds?: number;
  /** `url` is one node of a Redis Cluster; the others are discovered. Default false. */
  cluster?: boolean;
  logger?: Logger;
}

/** A startup problem with the Redis store: one line for the CLI to print before it exits with 2. */
export class StoreConfigError extends Error {
  readonly code = 'store_config' as const;

  constructor(message: string) {
    super(message);
    this.name = 'StoreConfigError';
  }
}

/** What the store needs of a connection: send one command, get its reply. A cluster client fits behind it too. */
export interface RedisCommander {
  send(args: string[]): Promise<unknown>;
  readonly isReady: boolean;
  /** Whether `error` is an error reply of Redis (as opposed to a connection or timeout failure). */
  isReplyError(error: unknown): boolean;
  /** Redis's clock as this process estimates it: never ahead of it (see RedisClock). */
  readonly clock: RedisClock;
  close(): Promise<void>;
}

/** This process's clock in microseconds: monotonic (performance.now), on the Unix epoch. */
function localMicros(): number {
  return (performance.timeOrigin + performance.now()) * 1000;
}

/**
 * Redis's clock (TIME) as this process can know it, for the deadline each script is given in Redis's
 * own time. Read from TIME at connect, after every reconnect and every few seconds of use: Redis's time
 * minus the local time the answer arrived is a lower bound of the real difference (the answer took
 * some time to come), so a deadline built from it is never later in Redis than meant here.
 */
class RedisClock {
  #offsetMicros = 0;
  #syncedAtMs = Number.NEGATIVE_INFINITY;
  #syncing: Promise<void> | null = null;

  constructor(private readonly send: (args: string[]) => Promise<unknown>) {}

  /** Reads Redis TIME once; a failure leaves the estimate as it was (the calls fail on their own). */
  sync(): Promise<void> {
    this.#syncing ??= this.send(['TIME'])
      .then((reply) => {
        const [seconds, micros] = reply as [string, string];
        this.#offsetMicros = Number(seconds) * 1_000_000 + Number(micros) - localMicros();
        this.#syncedAtMs = performance.now();
      })
      .catch(() => undefined)
      .finally(() => {
        this.#syncing = null;
      });
    return this.#syncing;
  }

  /** The Redis time (microseconds) `budgetMs` from now; reads TIME again in the background once the estimate is 5 s old. */
  deadline(budgetMs: number): number {
    if (performance.now() - this.#syncedAtMs > 5_000) void this.sync();
    return Math.floor(localMicros() + this.#offsetMicros + budgetMs * 1000);
  }
}

export interface RedisSettings {
  url: string;
  cluster: boolean;
  /** The URL without its password, safe to print. */
  displayUrl: string;
  prefix: string;
  timeoutMs: number;
  retryAfterSeconds: number;
  logger: Logger;
}

export function resolveRedisOptions(options: RedisStoreOptions): RedisSettings {
  let parsed: URL;
  try {
    parsed = new URL(options.url);
  } catch {
    throw new StoreConfigError(
      `Failed to use the store ${JSON.stringify(withoutUserInfo(options.url).slice(0, 200))}: not a URL; expected redis://HOST:PORT/DB`,
    );
  }
  const displayUrl = withoutPassword(parsed);
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new StoreConfigError(
      `Failed to use the store ${displayUrl}: unsupported scheme ${parsed.protocol}; expected redis://HOST:PORT/DB or rediss://`,
    );
  }
  if (parsed.pathname !== '' && parsed.pathname !== '/' && !/^\/\d{1,5}$/.test(parsed.pathname)) {
    throw new StoreConfigError(
      `Failed to use the store ${displayUrl}: the path must be a database number (redis://HOST:PORT/0)`,
    );
  }
  const prefix = options.prefix ?? 'petstore-mock:';
  if (prefix.length > 100 || /[{}\s]/.test(prefix)) {
    throw new StoreConfigError(
      `Failed to use the store ${displayUrl}: the key prefix must be at most 100 characters without braces or spaces (braces are the hash tags)`,
    );
  }
  const timeoutMs = options.timeoutMs ?? 2_000;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 5_000) {
    throw new StoreConfigError(
      `Failed to use the store ${displayUrl}: the timeout must be a whole number of milliseconds from 1 to 5000`,
    );
  }
  const retryAfterSeconds = options.retryAfterSeconds ?? 2;
  if (!Number.isInteger(retryAfterSeconds) || retryAfterSeconds < 1 || retryAfterSeconds > 60) {
    throw new StoreConfigError(
      `Failed to use the store ${displayUrl}: retryAfterSeconds must be a whole number from 1 to 60`,
    );
  }
  if (options.cluster && parsed.pathname !== '' && parsed.pathname !== '/' && parsed.pathname !== '/0') {
    throw new StoreConfigError(`Failed to use the store ${displayUrl}: a Redis Cluster has database 0 only`);
  }
  return {
    url: options.url,
    cluster: options.cluster ?? false,
    displayUrl,
    prefix,
    timeoutMs,
    retryAfterSeconds,
    logger: options.logger ?? silentLogger,
  };
}

/** The URL as it may be printed: its password (however it was written or encoded) as `***`. */
function withoutPassword(parsed: URL): string {
  if (parsed.password === '') return parsed.href;
  const shown = new URL(parsed.href);
  shown.password = '***';
  return shown.href.replace('%2A%2A%2A@', '***@');
}

/** A text that is not a URL, printed: whatever stands between the scheme and the last `@` may hold a password. */
function withoutUserInfo(text: string): string {
  const at = text.lastIndexOf('@');
  const scheme = text.indexOf('://');
  return at === -1 ? text : `${scheme === -1 ? '' : text.slice(0, scheme + 3)}***@${text.slice(at + 1)}`;
}

type RedisModule = typeof import('redis');

/**
 * node-redis is an optional peer: loaded only when a Redis store is asked for. `importer` is for tests.
 *
 * @example await loadRedisModule('redis://127.0.0.1:6379') // or StoreConfigError: "... run npm install redis"
 */
export async function loadRedisModule(
  displayUrl: string,
  importer: () => Promise<RedisModule> = () => import('redis'),
): Promise<RedisModule> {
  try {
    return await importer();
  } catch (error) {
    const missing =
      (error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' ||
      (error as { code?: string }).code === 'MODULE_NOT_FOUND';
    if (missing)
      throw new StoreConfigError(
        `Failed to use the store ${displayUrl}: the Redis client is not installed; run npm install redis`,
      );
    throw new StoreConfigError(
      `Failed to use the store ${displayUrl}: could not load the redis package (${(error as Error).message})`,
    );
  }
}

/** What the store uses of a node-redis client or cluster besides sending commands. */
interface ConnectionHandle {
  connect(): Promise<unknown>;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'ready', listener: () => void): unknown;
  close(): Promise<void>;
  destroy(): void;
  readonly isOpen: boolean;
  readonly isReady: boolean;
}

/** What the connection's listeners share: whether it ever connected, and when it last logged a failure. */
interface ConnectionWatch {
  connectedOnce: boolean;
  lastErrorLogAt: number;
}

/** A connected client (or cluster) and how to send it one command. */
interface OpenConnection {
  client: ConnectionHandle;
  send: (args: string[]) => Promise<unknown>;
}

export async function connectCommander(settings: RedisSettings): Promise<RedisCommander> {
  const redis = await loadRedisModule(settings.displayUrl);
  const watch: ConnectionWatch = { connectedOnce: false, lastErrorLogAt: 0 };
  const { client, send } = openConnection(redis, settings, watch);
  const clock = new RedisClock(send);
  logAvailability(client, settings, watch, clock);
  try {
    await handshake({ client, send }, settings, clock);
    watch.connectedOnce = true;
  } catch (error) {
    try {
      client.destroy();
    } catch {
      // Never opened: nothing to release.
    }
    throw new StoreConfigError(
      `Failed to connect to the store ${settings.displayUrl}${settings.cluster ? ' (cluster)' : ''}: ${describeError(error)}`,
    );
  }
  return {
    send,
    clock,
    isReplyError: (error) => error instanceof redis.ErrorReply,
    get isReady() {
      return client.isReady;
    },
    async close() {
      try {
        if (client.isOpen) await client.close();
      } catch {
        client.destroy();
      }
    },
  };
}

/** A client (or a cluster) made, not yet connected, that fails fast instead of queueing. */
function openConnection(redis: RedisModule, settings: RedisSettings, watch: ConnectionWatch): OpenConnection {
  const connection = {
    // Requests made while Redis is away fail at once (503) instead of waiting in a queue.
    disableOfflineQueue: true,
    // The store times calls itself, with one timer for all (node-redis would start one per command).
    commandOptions: { timeout: 0 },
    // A Redis that accepts connections but never answers: the queue stops growing here.
    commandsQueueMaxLength: 10_000,
    socket: {
      connectTimeout: settings.timeoutMs,
      // Before the first connection, fail (startup says so in one line); after it, reconnect for ever,
      // backing off to 1 s so the mock serves again within a second of Redis coming back.
      reconnectStrategy: (retries: number, cause: Error) =>
        watch.connectedOnce ? Math.min(50 * 2 ** retries, 1_000) : cause,
    },
  };
  // A cluster is found from one of its nodes. Every script's keys share a hash tag, so a cluster sends
  // each call to the one node that owns the slot of its first key (EVALSHA sha numkeys KEY ...).
  if (settings.cluster) {
    const cluster = redis.createCluster({
      rootNodes: [{ url: settings.url }],
      defaults: connection,
      commandOptions: { timeout: 0 },
    });
    return { client: cluster, send: (args) => cluster.sendCommand(args[3], false, args) };
  }
  const single = redis.createClient({ url: settings.url, ...connection });
  return { client: single, send: (args) => single.sendCommand(args) };
}

/** Says when Redis goes away (once per 10 s) and when it is back; a Redis back after a restart may run on another clock. */
function logAvailability(
  client: ConnectionHandle,
  settings: RedisSettings,
  watch: ConnectionWatch,
  clock: RedisClock,
): void {
  client.on('error', (error: Error) => {
    // node-redis reports every failed reconnect; one line per 10 s is enough for whoever watches.
    if (!watch.connectedOnce) return;
    const now = Date.now();
    if (now - watch.lastErrorLogAt < 10_000) return;
    watch.lastErrorLogAt = now;
    settings.logger.warn(
      `Redis store ${settings.displayUrl} unavailable: ${error.message || error.name}; answering 503 until it is back`,
    );
  });
  client.on('ready', () => {
    if (watch.connectedOnce && watch.lastErrorLogAt !== 0)
      settings.logger.info(`Redis store ${settings.displayUrl} is back`);
    watch.lastErrorLogAt = 0;
    // A restarted (or failed-over) Redis may run on another clock.
    if (watch.connectedOnce) void clock.sync();
  });
}

/** The first connection within the timeout, the Redis version checked, the scripts loaded and the clock read. */
async function handshake({ client, send }: OpenConnection, settings: RedisSettings, clock: RedisClock): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client.connect(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${settings.timeoutMs} ms`)), settings.timeoutMs);
      }),
    ]);
    // Loaded once here so the first burst of requests does not all meet NOSCRIPT (EVALSHA falls back to
    // EVAL on its own after a Redis restart empties the script cache, and on each node of a cluster).
    if (!settings.cluster) {
      // The scripts are `#!lua` (Redis 7.0): on an older Redis every call would fail, so say it once here.
      const version = /redis_version:(\d+)\.(\d+)/.exec(String(await send(['INFO', 'server'])));
      if (version !== null && Number(version[1]) < 7)
        throw new Error(`Redis ${version[1]}.${version[2]} is too old; the store needs Redis 7.0 or later`);
      await Promise.all(Object.values(scripts).map(({ source }) => send(['SCRIPT', 'LOAD', source])));
    }
    await clock.sync();
  } finally {
    clearTimeout(timer);
  }
}

export function describeError(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return describeError(error.errors[0]);
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

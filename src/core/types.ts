/**
 * Plain-data request and response records of the behaviour core. No Node or DOM types: every
 * transport (node:http, MSW, a test) translates to and from these.
 */

/** A request as the core sees it. Header names are lower-case. */
export interface MockRequest {
  method: string;
  /** Path and query, as sent on the request line (for example `/v1/categories?x=1`). */
  url: string;
  headers: Readonly<Record<string, string | undefined>>;
  /** The raw body bytes, or `null` when the request had none. */
  body: Uint8Array | null;
  /** Set by the transport when the body was larger than `config.maxBodyBytes` and was not read. */
  bodyTooLarge?: boolean;
  /**
   * Set by the transport when a body was announced but not read, because the head alone decides the
   * answer (`Expect: 100-continue` refused, see `MockApp.needsBody`): the body is judged by its headers.
   */
  bodyUnread?: boolean;
  /**
   * Who is calling, for the anonymous rate-limit budget (an IP address from node:http, a fixed
   * name in a browser). `undefined` means a local, trusted caller.
   */
  clientAddress?: string;
  /**
   * The local address the connection arrived on (node:http's `socket.localAddress`): the mock's own
   * address, which a `Host` header may name for the controls. Absent in a browser.
   */
  serverAddress?: string;
}

/** A response as the core produces it. Header names are as they go on the wire. */
export interface MockResponse {
  status: number;
  headers: Record<string, string>;
  /** Serialised body (JSON or other text) or `null` for none (and for bytes). */
  body: string | null;
  /** A body of bytes (an image, a file), when `body` is null: transports send it as it is. */
  bytes?: Uint8Array;
  /** What the transport must do beyond writing the answer: a latency, a fault (decision 042). Absent: write at once. */
  fault?: TransportFault;
}

/**
 * A latency or a fault the core decided for one answer, which the transport carries out: wait
 * `delayMs`, then `reset` the connection, `close` it unanswered, hold it unanswered for `timeoutMs`
 * (`timeout`), or drip the body in `slowBody.chunks` pieces over `slowBody.durationMs` (`slow-body`).
 * Without `kind`, the answer is written after the delay.
 */
export interface TransportFault {
  delayMs: number;
  kind?: 'reset' | 'close' | 'timeout' | 'slow-body';
  timeoutMs: number;
  slowBody: { chunks: number; durationMs: number };
}

/** Time source in milliseconds since the epoch, injected so tests and the virtual clock control it. */
export interface Clock {
  now(): number;
}

/** Minimal logger; the core never writes to the console itself. */
export interface Logger {
  /** When false or absent, debug lines are not even formatted (they would be on every request). */
  readonly verbose?: boolean;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  debug(message: string): void;
}

export const silentLogger: Logger = {
  info() {},
  warn() {},
  error() {},
  debug() {},
};

import { connect, type Socket } from 'node:net';
import { setImmediate as yieldToLoop } from 'node:timers/promises';

/** What one raw TCP conversation with the server produced. */
export interface RawExchange {
  /** Every byte the server sent, in order. */
  bytes: Buffer;
  /** The client-side socket error (EPIPE, ECONNRESET...) if there was one. */
  errorCode: string | undefined;
  /** True when the server neither answered nor closed before the deadline. */
  timedOut: boolean;
  durationMs: number;
  /** The client's port: the server sees it as the socket's `remotePort`. */
  localPort: number | undefined;
}

export interface RawExchangeOptions {
  /**
   * Wait this long (ms) between pieces; 0 still yields to the event loop so each piece goes out as
   * its own write (a slow, fragmenting client). Default 0.
   */
  pauseMs?: number;
  /**
   * Half-close after the last piece, so the server sees the end of input and must finish: answer,
   * or reject what it could not parse. Default true.
   */
  halfClose?: boolean;
  /** Give up (and report `timedOut`) after this many ms. Default 5,000. */
  deadlineMs?: number;
}

/**
 * Sends `pieces` over a fresh loopback connection and collects everything the server sends until it
 * closes the connection. Raw sockets, not an HTTP client, because the point is to send what a client
 * library would refuse to produce and to see the server's bytes unparsed.
 *
 * @example const { bytes } = await rawExchange(port, [Buffer.from('GET / HTTP/1.1\r\n\r\n')]);
 */
export async function rawExchange(
  port: number,
  pieces: readonly Uint8Array[],
  options: RawExchangeOptions = {},
): Promise<RawExchange> {
  const { pauseMs = 0, halfClose = true, deadlineMs = 5_000 } = options;
  const started = performance.now();
  const socket = connect({ port, host: '127.0.0.1' });
  const received: Buffer[] = [];
  let errorCode: string | undefined;
  let timedOut = false;
  let localPort: number | undefined;
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  socket.on('error', (error: NodeJS.ErrnoException) => {
    errorCode ??= error.code ?? error.message;
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const deadline = setTimeout(() => {
    timedOut = true;
    socket.destroy();
  }, deadlineMs);
  try {
    await Promise.race([new Promise<void>((resolve) => socket.once('connect', () => resolve())), closed]);
    localPort = socket.localPort;
    for (const [index, piece] of pieces.entries()) {
      if (!isOpenForWriting(socket)) break;
      socket.write(piece);
      if (index < pieces.length - 1) {
        if (pauseMs > 0) await Promise.race([delay(pauseMs), closed]);
        else await yieldToLoop();
      }
    }
    if (halfClose && isOpenForWriting(socket)) socket.end();
    await closed;
  } finally {
    clearTimeout(deadline);
    socket.destroy();
  }
  return { bytes: Buffer.concat(received), errorCode, timedOut, durationMs: performance.now() - started, localPort };
}

function isOpenForWriting(socket: Socket): boolean {
  return !socket.destroyed && socket.writable;
}

/** A short pause that never keeps the process alive on its own. */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

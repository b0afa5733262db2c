import type { Socket } from 'node:net';

/**
 * How long and how much a refused connection is read, and what it reads thrown away, before it is
 * closed. The times are nginx's (`lingering_time` 30 s, `lingering_timeout` 5 s; Apache: 30 s, and
 * 2 s without data); the size bounds the work: over loopback a client sends a gigabyte a second.
 */
export interface LingerLimits {
  /** The longest a connection is read after its answer. */
  maxMs: number;
  /** Closed sooner when nothing comes for this long. */
  idleMs: number;
  /** Closed sooner once this much has been read and thrown away (checked every `idleMs / 20`). */
  maxBytes: number;
}

export const defaultLingerLimits: LingerLimits = { maxMs: 30_000, idleMs: 5_000, maxBytes: 64 * 1024 * 1024 };

/**
 * A lingering close, for a connection whose request body the server will not read (a 413, an
 * answer instead of `100 Continue`, a request node:http could not parse). Closing at once while the
 * client is still sending makes the kernel answer the data that keeps coming with a reset, and a
 * reset throws away the answer the client has not read yet: it sees EPIPE or ECONNRESET instead of
 * the 413. So the answer is followed by a FIN (the write side shut), and what still comes is read
 * and discarded until the client closes, stops sending for `idleMs`, or `maxMs` or `maxBytes` is
 * reached; only then is the socket closed.
 *
 * Whatever reads the socket (node's HTTP parser, which hands a refused body to nobody) must keep
 * reading: the socket is resumed here.
 *
 * @example lingerThenClose(socket) // after the last byte of the 413 was handed to the socket
 */
export function lingerThenClose(socket: Socket, limits: LingerLimits = defaultLingerLimits): void {
  if (socket.destroyed) return;
  socket.end();
  const startedAt = Date.now();
  const startBytes = socket.bytesRead;
  let lastBytes = startBytes;
  let lastProgressAt = startedAt;
  const timer = setInterval(
    () => {
      const now = Date.now();
      const bytes = socket.bytesRead;
      if (bytes !== lastBytes) {
        lastBytes = bytes;
        lastProgressAt = now;
      }
      if (now - startedAt >= limits.maxMs || bytes - startBytes > limits.maxBytes) return void socket.destroy();
      // Timers run before the event loop reads sockets: after a stall of the whole process, data may
      // be waiting unread. Idle only if nothing was read once the loop has polled (setImmediate).
      if (now - lastProgressAt >= limits.idleMs) setImmediate(() => socket.bytesRead === bytes && socket.destroy());
    },
    Math.max(10, Math.floor(limits.idleMs / 20)),
  ).unref();
  socket.once('close', () => clearInterval(timer));
  // The client closed its side: nothing more comes, nothing is left unread.
  socket.once('end', () => socket.destroy());
  socket.resume();
}

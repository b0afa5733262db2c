import { connect } from 'node:net';

/** What happened to an upload the server should refuse. */
export interface UploadOutcome {
  /** Body bytes the client managed to hand to its socket (includes what sat in kernel buffers). */
  sent: number;
  /** Everything the server answered. */
  bytes: Buffer;
  errorCode: string | undefined;
  /** Highest `heapUsed + arrayBuffers` of this process seen while uploading, minus the value before. */
  peakMemoryGrowth: number;
  timedOut: boolean;
}

/**
 * Uploads `totalBytes` of body after `head` (Content-Length or chunked framing), honouring
 * backpressure, and stops as soon as the server closes or resets the connection. The same 64 KiB
 * buffer is sent over and over, so the client itself allocates almost nothing: memory growth seen
 * while uploading is the server's (which runs in this process).
 *
 * @example await oversizedUpload(port, { head, totalBytes: 50 * MiB, chunked: false, deadlineMs: 10_000 })
 */
export async function oversizedUpload(
  port: number,
  options: { head: string; totalBytes: number; chunked: boolean; deadlineMs: number },
): Promise<UploadOutcome> {
  const socket = connect({ port, host: '127.0.0.1' });
  const received: Buffer[] = [];
  let errorCode: string | undefined;
  let timedOut = false;
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  socket.on('error', (error: NodeJS.ErrnoException) => {
    errorCode ??= error.code;
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const deadline = setTimeout(() => {
    timedOut = true;
    socket.destroy();
  }, options.deadlineMs);

  const memory = () => {
    const usage = process.memoryUsage();
    return usage.heapUsed + usage.arrayBuffers;
  };
  const before = memory();
  let peak = before;
  let sent = 0;
  const block = Buffer.alloc(64 * 1024, 0x61);
  const framedBlock = options.chunked
    ? Buffer.concat([Buffer.from(`${block.length.toString(16)}\r\n`, 'latin1'), block, Buffer.from('\r\n', 'latin1')])
    : block;
  try {
    await Promise.race([new Promise<void>((resolve) => socket.once('connect', () => resolve())), closed]);
    if (socket.writable) socket.write(options.head, 'latin1');
    while (sent < options.totalBytes && socket.writable && !socket.destroyed) {
      const flushed = socket.write(framedBlock);
      sent += block.length;
      peak = Math.max(peak, memory());
      if (!flushed) await Promise.race([new Promise<void>((resolve) => socket.once('drain', () => resolve())), closed]);
    }
    if (options.chunked && socket.writable) socket.write('0\r\n\r\n', 'latin1');
    if (socket.writable) socket.end();
    await closed;
  } finally {
    clearTimeout(deadline);
    socket.destroy();
  }
  return {
    sent,
    bytes: Buffer.concat(received),
    errorCode,
    peakMemoryGrowth: Math.max(peak, memory()) - before,
    timedOut,
  };
}

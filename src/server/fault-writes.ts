import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

// How node:http carries out a fault (decision 042), for the mock's adapter and the judging proxy alike:
// a wait that the connection's end cancels, a connection closed or held unanswered, a body dripped.

/** Runs `then` after `delayMs`, or never when the connection goes first (the timer does not hold the process). */
export function afterDelay(socket: Socket, delayMs: number, then: () => void): void {
  const timer = setTimeout(() => {
    socket.off('close', cancel);
    then();
  }, delayMs).unref();
  const cancel = () => clearTimeout(timer);
  socket.once('close', cancel);
}

/** `close`: the connection ends (FIN) with no answer; destroyed a moment later if the client keeps it open. */
function closeUnanswered(socket: Socket): void {
  socket.end();
  setTimeout(() => socket.destroy(), 1_000).unref();
}

/** `timeout`: no answer; the connection is closed after `timeoutMs` unless the client gave up first. */
function holdUnanswered(socket: Socket, timeoutMs: number): void {
  afterDelay(socket, timeoutMs, () => socket.destroy());
}

/** `reset`, `close` or `timeout` on a connection: it ends without an answer. */
export function endUnanswered(socket: Socket, kind: 'reset' | 'close' | 'timeout', timeoutMs: number): void {
  if (kind === 'reset') socket.resetAndDestroy();
  else if (kind === 'close') closeUnanswered(socket);
  else holdUnanswered(socket, timeoutMs);
}

/**
 * `slow-body`: after the head (written by the caller, with the whole body's Content-Length: a client
 * sees a slow body, not a short one), the body in `chunks` pieces spread over `durationMs`.
 */
export function dripBody(
  response: ServerResponse,
  body: Uint8Array,
  { chunks, durationMs }: { chunks: number; durationMs: number },
): void {
  const pieces = Math.max(1, Math.min(chunks, body.byteLength));
  const size = Math.ceil(body.byteLength / pieces);
  const intervalMs = durationMs / pieces;
  let index = 0;
  const next = () => {
    if (response.destroyed) return;
    const piece = body.subarray(index * size, (index + 1) * size);
    index += 1;
    if (index >= pieces) return void response.end(piece);
    response.write(piece);
    setTimeout(next, intervalMs).unref();
  };
  next();
}

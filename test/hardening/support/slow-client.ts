import { connect } from 'node:net';

/** What happened to a client that dribbled its request. */
export interface SlowClientOutcome {
  /** Milliseconds from connecting until the server closed the connection; undefined if it never did. */
  closedAfterMs: number | undefined;
  /** What the server sent before closing. */
  bytes: Buffer;
  /** How many bytes of the request went out. */
  sent: number;
}

/**
 * A slowloris client: sends `opening` at once, then one byte of `trickle` every `intervalMs`
 * (cycling through it, so it never runs out), and reports when the server gave up on it. Stops on
 * its own at `deadlineMs`, so a server without timeouts fails the test instead of hanging it.
 *
 * Waiting on the wall clock is the point here: the server's timeouts are what is under test.
 *
 * @example await slowClient(port, { opening: 'GET / HTTP/1.1\r\n', trickle: 'X-A: b\r\n', intervalMs: 50, deadlineMs: 3_000 })
 */
export function slowClient(
  port: number,
  options: { opening: string; trickle: string; intervalMs: number; deadlineMs: number },
): Promise<SlowClientOutcome> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = connect({ port, host: '127.0.0.1' });
    const received: Buffer[] = [];
    let sent = 0;
    let position = 0;
    let closedAfterMs: number | undefined;
    let ticker: NodeJS.Timeout | undefined;
    let gaveUp = false;
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', () => {
      // A reset is one way for the server to give up; 'close' follows and records it.
    });
    socket.once('connect', () => {
      if (options.opening !== '') {
        socket.write(options.opening, 'latin1');
        sent += Buffer.byteLength(options.opening, 'latin1');
      }
      if (options.trickle === '') return;
      ticker = setInterval(() => {
        if (!socket.writable) return;
        socket.write(options.trickle[position % options.trickle.length]!, 'latin1');
        position += 1;
        sent += 1;
      }, options.intervalMs);
    });
    const deadline = setTimeout(() => {
      gaveUp = true;
      socket.destroy();
    }, options.deadlineMs);
    socket.once('close', () => {
      // Closing at our own deadline is not the server giving up.
      if (!gaveUp) closedAfterMs = performance.now() - started;
      clearInterval(ticker);
      clearTimeout(deadline);
      resolve({ closedAfterMs, bytes: Buffer.concat(received), sent });
    });
  });
}

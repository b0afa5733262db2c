import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type LingerLimits, lingerThenClose } from './lingering-close.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A server that answers `answer` to whatever comes, then lingers with `limits`; resolves with its side of the connection once closed. */
async function lingeringServer(
  limits: LingerLimits,
): Promise<{ port: number; closed: Promise<{ socket: Socket; afterMs: number }> }> {
  let settle: (value: { socket: Socket; afterMs: number }) => void;
  const closed = new Promise<{ socket: Socket; afterMs: number }>((resolve) => (settle = resolve));
  server = createServer({ allowHalfOpen: true }, (socket) => {
    socket.once('data', () => {
      socket.write('answer');
      const started = Date.now();
      socket.on('data', () => {});
      socket.once('close', () => settle({ socket, afterMs: Date.now() - started }));
      lingerThenClose(socket, limits);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { port: (server!.address() as { port: number }).port, closed };
}

describe('lingerThenClose', () => {
  it('shuts the write side at once: the client reads the answer and the end while it may still send', async () => {
    const { port, closed } = await lingeringServer({ maxMs: 5_000, idleMs: 5_000, maxBytes: 1024 * 1024 });
    const client = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    let received = '';
    client.on('data', (chunk: Buffer) => (received += chunk.toString()));
    const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
    client.write('request');
    await ended;
    expect(received).toBe('answer');
    // Still sending after the server's FIN is fine: it reads and throws the bytes away.
    expect(client.write('more body')).toBe(true);
    client.end();
    const { afterMs } = await closed;
    expect(afterMs).toBeLessThan(4_000);
  });

  it('closes once nothing has come for idleMs', async () => {
    const { port, closed } = await lingeringServer({ maxMs: 10_000, idleMs: 200, maxBytes: 1024 * 1024 });
    const client = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    client.on('data', () => {}).on('error', () => {});
    client.write('request');
    const { afterMs } = await closed;
    expect(afterMs).toBeGreaterThanOrEqual(150);
    expect(afterMs).toBeLessThan(4_000);
    client.destroy();
  });

  it('closes once maxBytes have been thrown away, however fast the client sends', async () => {
    const { port, closed } = await lingeringServer({ maxMs: 20_000, idleMs: 5_000, maxBytes: 256 * 1024 });
    const client = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    client.on('data', () => {}).on('error', () => {});
    client.write('request');
    const block = Buffer.alloc(64 * 1024);
    const pump = setInterval(() => client.writable && client.write(block), 5);
    const { socket, afterMs } = await closed;
    clearInterval(pump);
    client.destroy();
    expect(socket.bytesRead).toBeGreaterThan(256 * 1024);
    expect(afterMs).toBeLessThan(15_000);
  });
});

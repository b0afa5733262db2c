import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Where a server listens once bound: `http://127.0.0.1:4010` (`http://[::1]:4010` for IPv6), and the port. */
export interface ListeningAt {
  origin: string;
  port: number;
}

/**
 * Listens on host:port; a port in use (or any other refusal) is one line naming where.
 *
 * @example const { origin } = await listen(server, 0, '127.0.0.1'); // 'http://127.0.0.1:41234'
 */
export function listen(server: Server, port: number, host: string): Promise<ListeningAt> {
  return new Promise<ListeningAt>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          `Failed to listen on ${host}:${port}: ${error.code === 'EADDRINUSE' ? 'the port is in use' : error.message}`,
        ),
      ),
    );
    server.listen(port, host, () => {
      const address = server.address() as AddressInfo;
      const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve({ origin: `http://${shown}:${address.port}`, port: address.port });
    });
  });
}

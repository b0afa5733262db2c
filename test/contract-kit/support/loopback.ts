import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Starts a test server on 127.0.0.1, a free port, and gives its Petstore base URL and a close
 * that also drops open connections (so a test never waits for keep-alive sockets).
 *
 * @example const { baseUrl, close } = await listenOnLoopback(createServer(handler));
 */
export async function listenOnLoopback(server: Server): Promise<{ baseUrl: string; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

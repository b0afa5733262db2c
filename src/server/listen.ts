import type { Server } from 'node:http';

/** Listens on host:port; a port in use (or any other refusal) is one line naming where. */
export function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          `Failed to listen on ${host}:${port}: ${error.code === 'EADDRINUSE' ? 'the port is in use' : error.message}`,
        ),
      ),
    );
    server.listen(port, host, () => resolve());
  });
}

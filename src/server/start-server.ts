import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse } from 'yaml';
import { readSpecFile } from '../../spec/load-spec.js';
import type { OpenApiDocument } from '../../spec/openapi-types.js';
import type { NewCategory } from '../../spec/schemas.js';
import { createMockApp, type MockApp } from '../core/mock-app.js';
import { parseMockConfig, type MockConfig, type MockConfigInput } from '../core/mock-config.js';
import { silentLogger, type Clock, type Logger } from '../core/types.js';
import { createNodeListener } from './node-adapter.js';

export interface MockServerOptions {
  /** Port to listen on; 0 picks a free one. Default 4010. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Spec file; default the kit's own spec. Ignored when `spec` is given. */
  specPath?: string;
  spec?: OpenApiDocument;
  /** Config file (YAML). Ignored when `config` is given. */
  configPath?: string;
  config?: MockConfigInput | MockConfig;
  seed?: number;
  clock?: Clock;
  /** Categories to start with instead of faker-seeded ones (also restored by reset). */
  initialCategories?: NewCategory[];
  logger?: Logger;
  /** Time allowed for a request's headers, then for the whole request (slow clients are dropped). */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
}

export interface RunningMockServer {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  /** `http://127.0.0.1:PORT/v1`: the API's base URL. */
  baseUrl: string;
  port: number;
  app: MockApp;
  server: Server;
  /** Stops accepting, lets in-flight requests finish (up to `graceMs`), then closes. */
  close(graceMs?: number): Promise<void>;
}

/**
 * Starts the mock on node:http.
 *
 * @example
 * const mock = await startMockServer({ port: 0 });
 * await fetch(`${mock.baseUrl}/categories`, { headers: { authorization: 'Bearer demo-free' } });
 * await mock.close();
 */
export async function startMockServer(options: MockServerOptions = {}): Promise<RunningMockServer> {
  const logger = options.logger ?? silentLogger;
  const spec = options.spec ?? (await readSpecFile(options.specPath));
  const config = options.config ?? (options.configPath ? await readConfigFile(options.configPath) : undefined);
  const app = createMockApp({ spec, config, seed: options.seed, clock: options.clock, initialCategories: options.initialCategories, logger });
  const server = createServer({ headersTimeout: options.headersTimeoutMs ?? 10_000, requestTimeout: options.requestTimeoutMs ?? 30_000, keepAliveTimeout: 5_000 }, createNodeListener(app, logger));
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    // Unparseable HTTP: answer like the API does, in its Error shape, then drop the socket.
    if (!socket.writable) return socket.destroy();
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const body = JSON.stringify({ code: status === 431 ? 'headers_too_large' : status === 408 ? 'request_timeout' : 'bad_request', message: `Failed to read the HTTP request: ${error.code ?? 'malformed request'}`, status });
    socket.end(`HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  });
  const port = options.port ?? 4010;
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(new Error(`Failed to listen on ${host}:${port}: ${error.code === 'EADDRINUSE' ? 'the port is in use' : error.message}`)));
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const origin = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  return {
    origin,
    baseUrl: `${origin}${app.basePath}`,
    port: address.port,
    app,
    server,
    close: (graceMs = 10_000) =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), graceMs).unref();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}

/** Reads a YAML config file; errors name the file and the field. */
export async function readConfigFile(path: string): Promise<MockConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(`Failed to load config ${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    throw new Error(`Failed to load config ${path}: ${(error as Error).message.split('\n')[0]}`);
  }
  return parseMockConfig(document ?? {}, `config ${path}`);
}

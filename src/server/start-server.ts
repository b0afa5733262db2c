import { createServer, type Server } from 'node:http';
import { Server as NetServer } from 'node:net';
import { readSpecFile } from '../../spec/load-spec.js';
import type { OpenApiDocument } from '../../spec/openapi-types.js';
import type { NewCategory } from '../../spec/schemas.js';
import { type MockConfig, type MockConfigInput, parseMockConfig } from '../core/config/mock-config.js';
import { createMockApp, type MockApp, mockStoreOptions } from '../core/mock-app.js';
import type { StateStore } from '../core/state/state-store.js';
import { type Clock, type Logger, silentLogger } from '../core/types.js';
import { dashboardPageResponse } from '../ui/dashboard-csp.js';
import { readConfigFile } from './config-file.js';
import { type ListeningAt, listen } from './listen.js';
import { createNodeListeners, type NodeListeners } from './node-adapter.js';
import { installProtocolGuards } from './protocol-guards.js';
import { connectRedisStore } from './redis-store.js';

export { readConfigFile } from './config-file.js';

export interface MockServerOptions {
  /** Port to listen on; 0 picks a free one. Default 4010. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Spec file (OpenAPI 3.1, 3.0 or Swagger 2.0); default the kit's own spec. Ignored when `spec` is given. */
  specPath?: string;
  /** Follow `$ref`s to http(s) URLs when reading `specPath` (off by default). */
  allowRemoteRefs?: boolean;
  /** Folders outside the spec's own that its `$ref`s may read (`--allow-refs-outside`); default none. */
  allowRefsOutside?: readonly string[];
  spec?: OpenApiDocument;
  /** Config file (YAML). Ignored when `config` is given. */
  configPath?: string;
  config?: MockConfigInput | MockConfig;
  seed?: number;
  clock?: Clock;
  /** Categories to start with instead of faker-seeded ones (also restored by reset). */
  initialCategories?: NewCategory[];
  logger?: Logger;
  /**
   * The state store. Default: Redis when the config has `store: { url }` (connected here; a store
   * that cannot be reached throws one line naming it), else a new in-memory store.
   */
  store?: StateStore;
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
  /**
   * Stops accepting, lets in-flight requests finish (up to `graceMs`), runs `drained` (the state is
   * complete and the store still open: the CLI writes the lab report there), then closes the store.
   */
  close(graceMs?: number, drained?: () => Promise<void>): Promise<void>;
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
  const { app, ownedStore } = await createServedApp(options, logger);
  let closing = false;
  // Once closing, the next answer on each connection says Connection: close and nothing after it runs.
  const listeners = createNodeListeners(app, logger, { isClosing: () => closing });
  const server = createMockHttpServer(listeners, options);
  installProtocolGuards(server, app, listeners);
  const port = options.port ?? 4010;
  const host = options.host ?? '127.0.0.1';
  let bound: ListeningAt;
  try {
    bound = await listen(server, port, host);
  } catch (error) {
    await ownedStore?.close().catch(() => {});
    throw error;
  }
  return {
    origin: bound.origin,
    baseUrl: `${bound.origin}${app.basePath}`,
    port: bound.port,
    app,
    server,
    close: (graceMs = 10_000, drained?: () => Promise<void>) => {
      closing = true;
      return closeGracefully(server, { graceMs, drained, ownedStore });
    },
  };
}

/**
 * The app the server serves, over its store. Replicas share their state through Redis; one process
 * keeps it in memory. A store this function connected (`ownedStore`) is the server's to close; a
 * given one is the caller's, and the default memory store stays readable after the close (what was
 * created can still be inspected).
 */
async function createServedApp(
  options: MockServerOptions,
  logger: Logger,
): Promise<{ app: MockApp; ownedStore: StateStore | undefined }> {
  const spec =
    options.spec ??
    (await readSpecFile(options.specPath, {
      allowRemoteRefs: options.allowRemoteRefs,
      allowRefsOutside: options.allowRefsOutside,
    }));
  const configInput = options.config ?? (options.configPath ? await readConfigFile(options.configPath) : undefined);
  const config = parseMockConfig(configInput);
  const ownedStore =
    options.store === undefined && config.store
      ? await connectRedisStore(
          { ...config.store, logger },
          mockStoreOptions({
            spec,
            config: configInput,
            seed: options.seed,
            initialCategories: options.initialCategories,
          }),
        )
      : undefined;
  // The input, not the decoded config: decoded again, the default config would not be `{}` and would load zod.
  const app = createMockApp({
    spec,
    config: configInput,
    seed: options.seed,
    clock: options.clock,
    initialCategories: options.initialCategories,
    logger,
    store: options.store ?? ownedStore,
    dashboardPage: dashboardPageResponse,
  });
  return { app, ownedStore };
}

/** node:http's server with the mock's timeouts: slow clients are dropped, a request without Host is served. */
function createMockHttpServer(listeners: NodeListeners, options: MockServerOptions): Server {
  const headersTimeout = options.headersTimeoutMs ?? 10_000;
  const requestTimeout = options.requestTimeoutMs ?? 30_000;
  const server = createServer(
    {
      headersTimeout,
      requestTimeout,
      keepAliveTimeout: 5_000,
      // Node checks the timeouts every 30 s by default: a slow client would outlive them by that much.
      connectionsCheckingInterval: Math.max(
        50,
        Math.min(1_000, Math.floor(Math.min(headersTimeout, requestTimeout) / 2)),
      ),
      // The API does not care about Host; answering without it beats Node's bodiless 400.
      requireHostHeader: false,
    },
    listeners.onRequest,
  );
  server.on('checkContinue', listeners.onCheckContinue);
  return server;
}

/**
 * Stops accepting, lets in-flight requests finish (up to `graceMs`), runs `drained`, then closes
 * the store this server connected; rejects with what `drained` threw, once the store is closed.
 */
function closeGracefully(
  server: Server,
  {
    graceMs,
    drained,
    ownedStore,
  }: { graceMs: number; drained?: (() => Promise<void>) | undefined; ownedStore: StateStore | undefined },
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let failure: unknown;
    const force = setTimeout(() => server.closeAllConnections(), graceMs).unref();
    const sweep = setInterval(() => server.closeIdleConnections(), 250).unref();
    // node:http's own close() drops idle keep-alive sockets at once, losing a request a client
    // may just have sent on one; net's close() only stops accepting, and the sweep does the rest.
    NetServer.prototype.close.call(server, () => {
      clearTimeout(force);
      clearInterval(sweep);
      // The store last: in-flight requests and `drained` still need it. Only a store this function
      // connected is closed; the default memory store stays readable (what was created can be inspected).
      void (drained ?? (async () => {}))()
        .catch((error: unknown) => {
          failure = error;
        })
        .then(() => ownedStore?.close().catch(() => {}))
        .then(() =>
          failure === undefined ? resolve() : reject(failure instanceof Error ? failure : new Error(String(failure))),
        );
    });
  });
}

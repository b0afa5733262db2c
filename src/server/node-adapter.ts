import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { MockApp } from '../core/mock-app.js';
import type { Logger } from '../core/types.js';
import { silentLogger } from '../core/types.js';
import { NodeConnection, type NodeServing } from './node-connection.js';

export interface NodeListenerOptions {
  /** True once the server is shutting down: answers say `Connection: close` and nothing after them runs. */
  isClosing?: () => boolean;
}

/** The node:http listeners of one app: `request` and `checkContinue`, plus the hook the protocol guards use. */
export interface NodeListeners {
  onRequest(request: IncomingMessage, response: ServerResponse): void;
  /** `Expect: 100-continue`: `100 Continue` only when the answer depends on the body. */
  onCheckContinue(request: IncomingMessage, response: ServerResponse): void;
  /**
   * Runs `answer` once every request of `socket` that can still be answered has been (requests whose
   * body never arrived are dropped unexecuted), and makes sure nothing after them is executed. For an
   * error that ends a connection (unparseable bytes, a timeout), so the requests pipelined before the
   * bad bytes are answered before the error, and none is executed unanswered.
   */
  answerAfterPending(socket: Socket, answer: () => void): void;
}

/**
 * The node:http transport: translates an IncomingMessage to a MockRequest, calls the core, writes
 * the MockResponse, per connection in the order the requests came (node-connection.ts). No routing,
 * auth or validation here. A body over `maxBodyBytes` is never read into memory: the core answers
 * 413 and the connection is closed after a lingering close (lingering-close.ts), so the client reads
 * the 413.
 *
 * @example const listeners = createNodeListeners(app); http.createServer(listeners.onRequest).listen(4010)
 */
export function createNodeListeners(
  app: MockApp,
  logger: Logger = silentLogger,
  options: NodeListenerOptions = {},
): NodeListeners {
  const serving: NodeServing = {
    app,
    logger,
    isClosing: options.isClosing ?? (() => false),
    maxBodyBytes: app.config.maxBodyBytes,
  };
  // Each connection's state is kept on its socket, under a key of this listener set: a property read,
  // where a WeakMap lookup hashes on every request. (A symbol: code that lists a socket's own symbols sees it.)
  const connectionKey: unique symbol = Symbol('petstore-kit connection');
  type ServedSocket = Socket & { [connectionKey]?: NodeConnection };

  const connectionOf = (socket: ServedSocket): NodeConnection => {
    let connection = socket[connectionKey];
    if (connection === undefined) {
      connection = new NodeConnection(socket, serving);
      socket[connectionKey] = connection;
    }
    return connection;
  };

  return {
    onRequest: (request, response) => connectionOf(request.socket).receive(request, response, false),
    onCheckContinue: (request, response) => connectionOf(request.socket).receive(request, response, true),
    answerAfterPending: (socket, answer) => connectionOf(socket).answerAfterPending(answer),
  };
}

/**
 * The `request` listener alone, for callers of the first version.
 *
 * @example http.createServer(createNodeListener(app)).listen(4010)
 */
export function createNodeListener(
  app: MockApp,
  logger: Logger = silentLogger,
  options: NodeListenerOptions = {},
): (request: IncomingMessage, response: ServerResponse) => void {
  return createNodeListeners(app, logger, options).onRequest;
}

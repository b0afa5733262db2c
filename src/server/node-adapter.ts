// Imported, not the global: node's global Buffer is a getter, read through a slow global load on every response.
import { Buffer } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { errorBodyText } from '../core/errors.js';
import type { MockApp } from '../core/mock-app.js';
import type { Logger, MockRequest, MockResponse } from '../core/types.js';
import { silentLogger } from '../core/types.js';
import { afterDelay, dripBody, endUnanswered } from './fault-writes.js';
import { lingerThenClose } from './lingering-close.js';

/**
 * What the adapter knows of one connection: the requests it has received and not yet executed, in
 * the order they arrived, and how many executed ones are still to be written.
 *
 * node:http emits every pipelined request as soon as it is parsed, and a GET is complete at once
 * while a POST before it is still reading its body: executing on arrival would run them out of
 * order. So each request waits in its connection's queue until those before it have run; the core
 * still runs each one to completion.
 */
interface Connection {
  queue: Pending[];
  /**
   * The response written last, which node may still be writing. node finishes a connection's
   * responses in order (the next one gets the socket when the one before has finished), so once this
   * one is done all are. Only `answerAfterPending` needs to know when, so only it listens for its
   * end: a listener, or a list kept, per response would cost every request.
   */
  lastWritten?: ServerResponse | undefined;
  /** Responses `answerAfterPending` waits for (their 'close' has not come yet). */
  awaited: number;
  /** A response said `Connection: close`: nothing after it is executed, node would never write its answer. */
  closed: boolean;
  /** The connection's last answer refused a body it did not read, and the socket is read and discarded until it closes. */
  lingering?: boolean;
  /** A request is executing (awaiting the core): the next one waits for its answer. */
  running?: boolean;
  /** Set by `answerAfterPending`: runs once every executed request is answered. */
  thenAnswer?: () => void;
  readonly socket: Socket;
  /** The socket's addresses, read once: each read of `socket.remoteAddress` is a call into node. */
  clientAddress: string;
  serverAddress: string | undefined;
}

interface Pending {
  incoming: IncomingMessage;
  response: ServerResponse;
  /** The request as the core takes it, once its body is read; undefined while reading. */
  ready?: MockRequest;
  /** Answered without reading the body (413, or a `100-continue` refused): the connection closes after it. */
  unread?: boolean;
}

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
 * the MockResponse, per connection in the order the requests came. No routing, auth or validation
 * here. A body over `maxBodyBytes` is never read into memory: the core answers 413 and the
 * connection is closed after a lingering close (lingering-close.ts), so the client reads the 413.
 *
 * @example const listeners = createNodeListeners(app); http.createServer(listeners.onRequest).listen(4010)
 */
export function createNodeListeners(
  app: MockApp,
  logger: Logger = silentLogger,
  options: NodeListenerOptions = {},
): NodeListeners {
  const maxBodyBytes = app.config.maxBodyBytes;
  const isClosing = options.isClosing ?? (() => false);
  // Each connection's state is kept on its socket, under a key of this listener set: a property read,
  // where a WeakMap lookup hashes on every request. (A symbol: code that lists a socket's own symbols sees it.)
  const connectionKey: unique symbol = Symbol('petstore-kit connection');
  type ServedSocket = Socket & { [connectionKey]?: Connection };

  const connectionOf = (socket: ServedSocket): Connection => {
    let connection = socket[connectionKey];
    if (connection === undefined) {
      connection = {
        socket,
        queue: [],
        awaited: 0,
        closed: false,
        clientAddress: socket.remoteAddress ?? 'unknown',
        serverAddress: socket.localAddress,
      };
      socket[connectionKey] = connection;
    }
    return connection;
  };

  const settle = (connection: Connection) => {
    if (
      connection.thenAnswer !== undefined &&
      connection.queue.length === 0 &&
      !connection.running &&
      connection.awaited === 0
    ) {
      const answer = connection.thenAnswer;
      connection.thenAnswer = undefined;
      answer();
    }
  };

  /** `answerAfterPending` waits for this response's end ('close' follows 'finish', and comes when the socket dies first). */
  const awaitEnd = (connection: Connection, response: ServerResponse) => {
    connection.awaited += 1;
    response.once('close', () => {
      connection.awaited -= 1;
      settle(connection);
    });
  };

  /**
   * Executes the request at the head of the queue once its body is in, then the next: one at a time
   * per connection, so pipelined requests run, and are answered, in the order they came (a store
   * round trip could otherwise let a later request overtake). With the in-memory store the core
   * answers at once and the response is written in the same turn, like a plain node:http handler.
   */
  const pump = (connection: Connection) => {
    while (!connection.running && connection.queue.length > 0 && connection.queue[0]!.ready !== undefined) {
      const { response, ready, unread } = connection.queue.shift()!;
      if (connection.closed || response.destroyed || connection.socket.destroyed) continue;
      if (execute(connection, response, ready!, unread)) return;
    }
    settle(connection);
  };

  /**
   * Runs one request and writes its answer: at once when the core answers at once (the in-memory
   * store), else when its promise settles, the connection marked running meanwhile. True when the
   * answer is still to come (the caller then stops: the promise pumps on).
   */
  const execute = (
    connection: Connection,
    response: ServerResponse,
    ready: MockRequest,
    unread: boolean | undefined,
  ): boolean => {
    let answer: MockResponse | Promise<MockResponse>;
    try {
      answer = app.respond(ready);
    } catch (error) {
      answer = Promise.reject(error);
    }
    if (!(answer instanceof Promise)) {
      if (answer.fault !== undefined && carryOutFault(connection, response, answer, unread)) return true;
      writeAnswer(connection, response, answer, unread);
      return false;
    }
    connection.running = true;
    answer.then(
      (result) => {
        connection.running = false;
        if (result.fault !== undefined && carryOutFault(connection, response, result, unread)) return;
        writeAnswer(connection, response, result, unread);
        pump(connection);
      },
      (error: unknown) => {
        // The core turns every failure into an answer; this is the last line of defence.
        logger.error(
          `Failed to handle a request: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        );
        connection.running = false;
        writeAnswer(
          connection,
          response,
          {
            status: 500,
            headers: {},
            body: errorBodyText('internal_error', 'The mock failed to handle this request; see its log'),
          },
          unread,
        );
        pump(connection);
      },
    );
    return true;
  };

  /**
   * An answer with a latency or a fault (decision 042): the connection waits (`running`) through the
   * latency, so the requests pipelined after it keep their order; then the answer is written (its body
   * dripped for `slow-body`), or the connection reset, closed unanswered, or held unanswered until the
   * client gives up or `timeoutMs` passes. True: the queue is pumped when it is done; false: nothing
   * to carry out, the caller writes the answer as usual.
   */
  const carryOutFault = (
    connection: Connection,
    response: ServerResponse,
    result: MockResponse,
    unread: boolean | undefined,
  ): boolean => {
    const fault = result.fault!;
    const { socket } = connection;
    if (fault.kind === undefined && fault.delayMs === 0) return false;
    connection.running = true;
    const act = () => {
      connection.running = false;
      if (response.destroyed || socket.destroyed) return pump(connection);
      if (fault.kind === undefined || fault.kind === 'slow-body') {
        writeAnswer(connection, response, result, unread);
        return pump(connection);
      }
      // Nothing after this request is executed: the connection ends without its answer.
      connection.closed = true;
      connection.queue.length = 0;
      endUnanswered(socket, fault.kind, fault.timeoutMs);
      settle(connection);
    };
    if (fault.delayMs === 0) act();
    else afterDelay(socket, fault.delayMs, act);
    return true;
  };

  const writeAnswer = (
    connection: Connection,
    response: ServerResponse,
    result: MockResponse,
    unread: boolean | undefined,
  ) => {
    const { socket } = connection;
    if (response.destroyed || socket.destroyed) return;
    if (unread || isClosing()) {
      // The last answer on this connection: node closes it after writing this one.
      connection.closed = true;
      response.shouldKeepAlive = false;
      if (unread) {
        result.headers.Connection = 'close';
        // node closes the connection of a last answer with socket.destroySoon() once it is written;
        // the rest of the unread body may still be on its way: a lingering close instead.
        socket.destroySoon = () => {
          connection.lingering = true;
          lingerThenClose(socket);
        };
      }
    }
    // A `slow-body` fault drips the body; every other answer goes out in one write.
    if (result.fault?.kind === 'slow-body') dripAnswer(response, result, logger);
    else write(response, result, logger);
    // The client's own `Connection: close` (or HTTP/1.0 without keep-alive) ends the connection too.
    if (!response.shouldKeepAlive) connection.closed = true;
    if (connection.thenAnswer !== undefined) awaitEnd(connection, response);
    else connection.lastWritten = response;
  };

  const receive = (request: IncomingMessage, response: ServerResponse, expectsContinue: boolean) => {
    // No 'error' listeners: an IncomingMessage emits 'error' only to listeners (an aborted body just
    // never ends, and its connection is gone), and the response is written once, checked, so node has
    // no error to give it. Listeners per request are measurable (docs/decisions/015-hot-path.md).
    const socket = request.socket;
    const connection = connectionOf(socket);
    // A request after a refused body: the body is all in, nothing the client waits for is left to
    // read, and what else it sends would only pile up unanswered requests.
    if (connection.lingering) return void socket.destroy();
    // After a Connection: close answer, node never writes another one on this socket: run nothing.
    if (connection.closed || connection.thenAnswer !== undefined) return;
    const base = toMockRequestHead(request, connection);
    // Read once: a lookup in node's headers object is a generic (megamorphic) one, every time.
    const contentLength = base.headers['content-length'];
    const chunked = base.headers['transfer-encoding'] !== undefined;
    // The common case, without the queue: nothing before it on this connection and no body to wait for.
    if (
      !expectsContinue &&
      connection.queue.length === 0 &&
      !connection.running &&
      contentLength === undefined &&
      !chunked
    ) {
      execute(connection, response, base, false);
      return;
    }
    const pending: Pending = { incoming: request, response };
    connection.queue.push(pending);

    const declaredLength = contentLength === undefined ? undefined : Number(contentLength);
    const done = (ready: MockRequest, unread = false) => {
      pending.ready = ready;
      pending.unread = unread;
      pump(connection);
    };
    // Without a length or chunks there is no body to wait for.
    const readBody = () => (declaredLength === undefined && !chunked ? done(base) : readBodyOf(request, base, done));

    if (declaredLength !== undefined && declaredLength > maxBodyBytes)
      return done({ ...base, body: null, bodyTooLarge: true }, true);
    if (expectsContinue) {
      // RFC 9110 section 10.1.1: a final answer instead of 100 when the head already decides it.
      // The client sends nothing more until it hears from us, so the body is read only after.
      void app.needsBody(base).then(
        (needed) => {
          if (!needed) return done({ ...base, body: null, bodyUnread: true }, true);
          if (!response.destroyed) response.writeContinue();
          readBody();
        },
        () => readBody(),
      );
      return;
    }
    readBody();
  };

  const readBodyOf = (
    request: IncomingMessage,
    base: MockRequest,
    done: (ready: MockRequest, unread?: boolean) => void,
  ) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let finished = false;
    request.on('data', (chunk: Buffer) => {
      if (finished) return;
      received += chunk.length;
      if (received > maxBodyBytes) {
        // Not paused: what still comes is read and thrown away, and the answer is followed by a lingering close.
        finished = true;
        chunks.length = 0;
        done({ ...base, body: null, bodyTooLarge: true }, true);
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      if (finished) return;
      finished = true;
      // A Buffer is a Uint8Array: the core takes it as it is.
      base.body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      done(base);
    });
  };

  return {
    onRequest: (request, response) => receive(request, response, false),
    onCheckContinue: (request, response) => receive(request, response, true),
    answerAfterPending(socket, answer) {
      const connection = connectionOf(socket);
      // A request whose body is not complete now never will be: it and all after it are dropped unexecuted.
      const firstIncomplete = connection.queue.findIndex(
        (pending) => pending.ready === undefined && !pending.incoming.complete,
      );
      if (firstIncomplete !== -1) connection.queue.length = firstIncomplete;
      connection.thenAnswer = answer;
      const last = connection.lastWritten;
      connection.lastWritten = undefined;
      if (last !== undefined && !last.writableFinished && !last.destroyed) awaitEnd(connection, last);
      pump(connection);
    },
  };
}

/**
 * The request line and headers as the core takes them. An absolute-form target (RFC 9112 section
 * 3.2.2, `GET http://host:port/v1/categories`, what a client talking to a proxy sends) is served
 * like its origin form, and its authority replaces `Host`, as the RFC asks of an origin server.
 */
function toMockRequestHead(request: IncomingMessage, connection: Connection): MockRequest {
  const headers = flattenHeaders(request.headers);
  let url = request.url ?? '/';
  if (url.charCodeAt(0) !== 47 && /^https?:\/\//i.test(url)) {
    try {
      const parsed = new URL(url);
      url = `${parsed.pathname}${parsed.search}`;
      headers.host = parsed.host;
    } catch {
      // Not a URL after all: the core answers the target as it came (404).
    }
  }
  // body null until one is read (a request without one goes to the core as it is).
  return {
    method: request.method ?? 'GET',
    url,
    headers,
    body: null,
    clientAddress: connection.clientAddress,
    serverAddress: connection.serverAddress,
  };
}

function write(response: ServerResponse, result: MockResponse, logger: Logger): void {
  if (response.headersSent || response.destroyed) return;
  try {
    if (result.body === null) {
      // A body of bytes (an image the spec declares) goes out as it is; no content, no Content-Length (RFC 9110 8.6).
      if (result.bytes !== undefined) result.headers['Content-Length'] = `${result.bytes.byteLength}`;
      response.writeHead(result.status, result.headers);
      response.end(result.bytes);
    } else {
      // A string body goes out in one write with the headers; a Buffer would take two.
      result.headers['Content-Length'] = `${Buffer.byteLength(result.body, 'utf8')}`;
      response.writeHead(result.status, result.headers);
      response.end(result.body, 'utf8');
    }
  } catch (error) {
    logger.error(`Failed to write a response: ${(error as Error).message}`);
    response.destroy();
  }
}

/** `slow-body`: the answer's head at once, then its body dripped (fault-writes.ts). */
function dripAnswer(response: ServerResponse, result: MockResponse, logger: Logger): void {
  const body =
    result.body !== null
      ? Buffer.from(result.body, 'utf8')
      : result.bytes === undefined
        ? Buffer.alloc(0)
        : Buffer.from(result.bytes.buffer, result.bytes.byteOffset, result.bytes.byteLength);
  try {
    result.headers['Content-Length'] = `${body.byteLength}`;
    response.writeHead(result.status, result.headers);
  } catch (error) {
    logger.error(`Failed to write a response: ${(error as Error).message}`);
    response.destroy();
    return;
  }
  dripBody(response, body, result.fault!.slowBody);
}

function flattenHeaders(headers: IncomingMessage['headers']): Record<string, string | undefined> {
  // node joins repeated request headers into one string, except set-cookie: only then is a copy needed.
  if (headers['set-cookie'] === undefined) return headers as Record<string, string | undefined>;
  const out: Record<string, string | undefined> = {};
  for (const name in headers) {
    const value = headers[name];
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
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

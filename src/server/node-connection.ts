import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { errorBodyText } from '../core/errors.js';
import type { MockApp } from '../core/mock-app.js';
import type { Logger, MockRequest, MockResponse } from '../core/types.js';
import { afterDelay, endUnanswered } from './fault-writes.js';
import { lingerThenClose } from './lingering-close.js';
import { readMockRequestBody, toMockRequestHead } from './node-request-read.js';
import { dripResponse, writeResponse } from './node-response-write.js';

/** What every connection of one listener set shares: the app and how its answers are written. */
export interface NodeServing {
  readonly app: MockApp;
  readonly logger: Logger;
  /** True once the server is shutting down: answers say `Connection: close` and nothing after them runs. */
  readonly isClosing: () => boolean;
  /** `app.config.maxBodyBytes`, read once. */
  readonly maxBodyBytes: number;
}

/** A request received and not yet executed. */
interface PendingRequest {
  incoming: IncomingMessage;
  response: ServerResponse;
  /** The request as the core takes it, once its body is read; undefined while reading. */
  ready?: MockRequest;
  /** Answered without reading the body (413, or a `100-continue` refused): the connection closes after it. */
  unread?: boolean;
}

/**
 * What the adapter knows of one connection: the requests it has received and not yet executed, in
 * the order they arrived, and how many executed ones are still to be written.
 *
 * node:http emits every pipelined request as soon as it is parsed, and a GET is complete at once
 * while a POST before it is still reading its body: executing on arrival would run them out of
 * order. So each request waits in its connection's queue until those before it have run; the core
 * still runs each one to completion.
 *
 * Every field is set in the constructor, so all connections share one shape (V8 keeps the property
 * reads of the request path monomorphic); one instance per connection, nothing allocated per request
 * that the request path did not allocate before.
 */
export class NodeConnection {
  readonly queue: PendingRequest[] = [];
  /**
   * The response written last, which node may still be writing. node finishes a connection's
   * responses in order (the next one gets the socket when the one before has finished), so once this
   * one is done all are. Only `answerAfterPending` needs to know when, so only it listens for its
   * end: a listener, or a list kept, per response would cost every request.
   */
  lastWritten: ServerResponse | undefined = undefined;
  /** Responses `answerAfterPending` waits for (their 'close' has not come yet). */
  awaited = 0;
  /** A response said `Connection: close`: nothing after it is executed, node would never write its answer. */
  closed = false;
  /** The connection's last answer refused a body it did not read, and the socket is read and discarded until it closes. */
  lingering = false;
  /** A request is executing (awaiting the core): the next one waits for its answer. */
  running = false;
  /** Set by `answerAfterPending`: runs once every executed request is answered. */
  thenAnswer: (() => void) | undefined = undefined;
  /** The socket's addresses, read once: each read of `socket.remoteAddress` is a call into node. */
  readonly clientAddress: string;
  readonly serverAddress: string | undefined;

  constructor(
    readonly socket: Socket,
    private readonly serving: NodeServing,
  ) {
    this.clientAddress = socket.remoteAddress ?? 'unknown';
    this.serverAddress = socket.localAddress;
  }

  /**
   * One request of this connection, as node:http emitted it (`expectsContinue`: from `checkContinue`).
   * Run at once when nothing waits before it and it has no body; else queued until its body is in.
   */
  receive(request: IncomingMessage, response: ServerResponse, expectsContinue: boolean): void {
    // No 'error' listeners: an IncomingMessage emits 'error' only to listeners (an aborted body just
    // never ends, and its connection is gone), and the response is written once, checked, so node has
    // no error to give it. Listeners per request are measurable (docs/decisions/015-hot-path.md).
    // A request after a refused body: the body is all in, nothing the client waits for is left to
    // read, and what else it sends would only pile up unanswered requests.
    if (this.lingering) return void this.socket.destroy();
    // After a Connection: close answer, node never writes another one on this socket: run nothing.
    if (this.closed || this.thenAnswer !== undefined) return;
    const base = toMockRequestHead(request, this);
    // Read once: a lookup in node's headers object is a generic (megamorphic) one, every time.
    const contentLength = base.headers['content-length'];
    const chunked = base.headers['transfer-encoding'] !== undefined;
    // The common case, without the queue: nothing before it on this connection and no body to wait for.
    if (!expectsContinue && this.queue.length === 0 && !this.running && contentLength === undefined && !chunked) {
      this.execute(response, base, false);
      return;
    }
    const pending: PendingRequest = { incoming: request, response };
    this.queue.push(pending);

    const { app, maxBodyBytes } = this.serving;
    const declaredLength = contentLength === undefined ? undefined : Number(contentLength);
    const done = (ready: MockRequest, unread = false) => {
      pending.ready = ready;
      pending.unread = unread;
      this.pump();
    };
    // Without a length or chunks there is no body to wait for.
    const readBody = () =>
      declaredLength === undefined && !chunked ? done(base) : readMockRequestBody(request, base, maxBodyBytes, done);

    if (declaredLength !== undefined && declaredLength > maxBodyBytes) {
      done({ ...base, body: null, bodyTooLarge: true }, true);
      return;
    }
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
  }

  /**
   * Runs `answer` once every request that can still be answered has been (requests whose body never
   * arrived are dropped unexecuted), and makes sure nothing after them is executed.
   */
  answerAfterPending(answer: () => void): void {
    // A request whose body is not complete now never will be: it and all after it are dropped unexecuted.
    const firstIncomplete = this.queue.findIndex(
      (pending) => pending.ready === undefined && !pending.incoming.complete,
    );
    if (firstIncomplete !== -1) this.queue.length = firstIncomplete;
    this.thenAnswer = answer;
    const last = this.lastWritten;
    this.lastWritten = undefined;
    if (last !== undefined && !last.writableFinished && !last.destroyed) this.awaitEnd(last);
    this.pump();
  }

  /**
   * Executes the request at the head of the queue once its body is in, then the next: one at a time
   * per connection, so pipelined requests run, and are answered, in the order they came (a store
   * round trip could otherwise let a later request overtake). With the in-memory store the core
   * answers at once and the response is written in the same turn, like a plain node:http handler.
   */
  private pump(): void {
    const queue = this.queue;
    while (!this.running && queue.length > 0 && queue[0]!.ready !== undefined) {
      const { response, ready, unread } = queue.shift()!;
      if (this.closed || response.destroyed || this.socket.destroyed) continue;
      if (this.execute(response, ready!, unread)) return;
    }
    this.settle();
  }

  /**
   * Runs one request and writes its answer: at once when the core answers at once (the in-memory
   * store), else when its promise settles, the connection marked running meanwhile. True when the
   * answer is still to come (the caller then stops: the promise pumps on).
   */
  private execute(response: ServerResponse, ready: MockRequest, unread: boolean | undefined): boolean {
    let answer: MockResponse | Promise<MockResponse>;
    try {
      answer = this.serving.app.respond(ready);
    } catch (error) {
      answer = Promise.reject(error);
    }
    if (!(answer instanceof Promise)) {
      if (answer.fault !== undefined && this.carryOutFault(response, answer, unread)) return true;
      this.writeAnswer(response, answer, unread);
      return false;
    }
    this.running = true;
    answer.then(
      (result) => {
        this.running = false;
        if (result.fault !== undefined && this.carryOutFault(response, result, unread)) return;
        this.writeAnswer(response, result, unread);
        this.pump();
      },
      (error: unknown) => {
        // The core turns every failure into an answer; this is the last line of defence.
        this.serving.logger.error(
          `Failed to handle a request: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        );
        this.running = false;
        const body = errorBodyText('internal_error', 'The mock failed to handle this request; see its log');
        this.writeAnswer(response, { status: 500, headers: {}, body }, unread);
        this.pump();
      },
    );
    return true;
  }

  /**
   * An answer with a latency or a fault (decision 042): the connection waits (`running`) through the
   * latency, so the requests pipelined after it keep their order; then the answer is written (its body
   * dripped for `slow-body`), or the connection reset, closed unanswered, or held unanswered until the
   * client gives up or `timeoutMs` passes. True: the queue is pumped when it is done; false: nothing
   * to carry out, the caller writes the answer as usual.
   */
  private carryOutFault(response: ServerResponse, result: MockResponse, unread: boolean | undefined): boolean {
    const fault = result.fault!;
    const socket = this.socket;
    if (fault.kind === undefined && fault.delayMs === 0) return false;
    this.running = true;
    const act = () => {
      this.running = false;
      if (response.destroyed || socket.destroyed) return this.pump();
      if (fault.kind === undefined || fault.kind === 'slow-body') {
        this.writeAnswer(response, result, unread);
        return this.pump();
      }
      // Nothing after this request is executed: the connection ends without its answer.
      this.closed = true;
      this.queue.length = 0;
      endUnanswered(socket, fault.kind, fault.timeoutMs);
      this.settle();
    };
    if (fault.delayMs === 0) act();
    else afterDelay(socket, fault.delayMs, act);
    return true;
  }

  private writeAnswer(response: ServerResponse, result: MockResponse, unread: boolean | undefined): void {
    const socket = this.socket;
    if (response.destroyed || socket.destroyed) return;
    if (unread || this.serving.isClosing()) {
      // The last answer on this connection: node closes it after writing this one.
      this.closed = true;
      response.shouldKeepAlive = false;
      if (unread) {
        result.headers.Connection = 'close';
        // node closes the connection of a last answer with socket.destroySoon() once it is written;
        // the rest of the unread body may still be on its way: a lingering close instead.
        socket.destroySoon = () => {
          this.lingering = true;
          lingerThenClose(socket);
        };
      }
    }
    // A `slow-body` fault drips the body; every other answer goes out in one write.
    if (result.fault?.kind === 'slow-body') dripResponse(response, result, this.serving.logger);
    else writeResponse(response, result, this.serving.logger);
    // The client's own `Connection: close` (or HTTP/1.0 without keep-alive) ends the connection too.
    if (!response.shouldKeepAlive) this.closed = true;
    if (this.thenAnswer !== undefined) this.awaitEnd(response);
    else this.lastWritten = response;
  }

  /** Runs `thenAnswer` once nothing is queued, running or still being written. */
  private settle(): void {
    if (this.thenAnswer !== undefined && this.queue.length === 0 && !this.running && this.awaited === 0) {
      const answer = this.thenAnswer;
      this.thenAnswer = undefined;
      answer();
    }
  }

  /** `answerAfterPending` waits for this response's end ('close' follows 'finish', and comes when the socket dies first). */
  private awaitEnd(response: ServerResponse): void {
    this.awaited += 1;
    response.once('close', () => {
      this.awaited -= 1;
      this.settle();
    });
  }
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/**
 * What the proxy remembers of each client connection so that every client gets the answer to its
 * own request, pipelined or not (RFC 9112 section 9.3.2: answers in the order of the requests):
 *
 * - after the proxy refuses a request, the connection is done: requests pipelined behind it are
 *   neither forwarded nor answered, and node closes the connection once the 400 is out;
 * - when node's parser fails on bytes after complete requests whose answers are still coming, the
 *   400 waits for those answers (node's own default writes it at once, and the client would read
 *   it as the answer to an earlier request); a request whose body was being read when the parser
 *   failed is abandoned, not answered.
 *
 * @example
 * const connections = createConnectionLedger();
 * server.on('request', (request, response) => connections.track(request, response));
 * server.on('clientError', (error, socket) => connections.afterAnswers(socket, () => socket.end(bytes)));
 */
export interface ConnectionLedger {
  /** Called for every request: follows its answer until it is written or abandoned. */
  track(request: IncomingMessage, response: ServerResponse): void;
  /** The proxy refused a request on this connection: nothing after it is forwarded. */
  refuse(socket: Socket): void;
  isRefused(socket: Socket): boolean;
  /**
   * Runs `then` once every complete request of this connection has its answer written; never when
   * the proxy already refused a request on it (that 400 is the last answer).
   */
  afterAnswers(socket: Duplex, then: () => void): void;
}

interface ConnectionState {
  open: Set<ServerResponse>;
  /** The last request whose body node's parser had not finished when it arrived. */
  reading: { request: IncomingMessage; response: ServerResponse } | undefined;
  refused: boolean;
  /** node's parser failed on this connection: its 400 is written once, after the answers before it. */
  unreadable: boolean;
  whenAnswered: (() => void) | undefined;
}

export function createConnectionLedger(): ConnectionLedger {
  const states = new WeakMap<Duplex, ConnectionState>();
  const stateOf = (socket: Duplex): ConnectionState => {
    let state = states.get(socket);
    if (state === undefined) {
      state = { open: new Set(), reading: undefined, refused: false, unreadable: false, whenAnswered: undefined };
      states.set(socket, state);
    }
    return state;
  };
  const settle = (state: ConnectionState) => {
    if (state.open.size > 0 || state.whenAnswered === undefined) return;
    const then = state.whenAnswered;
    state.whenAnswered = undefined;
    then();
  };
  return {
    track(request, response) {
      const state = stateOf(request.socket);
      state.open.add(response);
      if (!request.complete) state.reading = { request, response };
      const done = () => {
        state.open.delete(response);
        settle(state);
      };
      response.once('finish', done);
      response.once('close', done);
    },
    refuse: (socket) => {
      stateOf(socket).refused = true;
    },
    isRefused: (socket) => states.get(socket)?.refused === true,
    afterAnswers(socket, then) {
      const state = stateOf(socket);
      // Once only; and after a refusal of the proxy's own, its 400 is the last answer and closes the connection.
      if (state.unreadable || state.refused) return;
      state.unreadable = true;
      state.refused = true;
      // `complete` is set by the parser itself, before the stream's 'end' reaches anyone.
      if (state.reading !== undefined && !state.reading.request.complete) state.open.delete(state.reading.response);
      state.reading = undefined;
      state.whenAnswered = then;
      settle(state);
    },
  };
}

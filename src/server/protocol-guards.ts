import { type Server, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { type ErrorCode, errorBodyText, errorCatalogue } from '../core/errors.js';
import type { MockApp } from '../core/mock-app.js';
import { lingerThenClose } from './lingering-close.js';
import type { NodeListeners } from './node-adapter.js';

/**
 * What node:http answers itself, before a request reaches the core (unparseable HTTP, slow
 * headers, an unknown `Expect`, `CONNECT`), answered in the API's Error shape from the same
 * catalogue instead of Node's bare status lines, then the socket is dropped.
 */
export function installProtocolGuards(
  server: Server,
  app: Pick<MockApp, 'anonymousHead'>,
  listeners: Pick<NodeListeners, 'answerAfterPending'>,
): void {
  // Date of the virtual clock and the anonymous budget, peeked in the store (never rejects: without the store, Date alone).
  const headersOf = (clientAddress: string | undefined) => app.anonymousHead(clientAddress);
  // Node reports a bad request again for each further chunk; only the first gets an answer, or the
  // second would destroy the socket before the first answer is flushed.
  const answered = new WeakSet<Duplex>();
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (answered.has(socket)) return;
    if (!socket.writable) return void socket.destroy();
    answered.add(socket);
    const code: ErrorCode =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? 'headers_too_large'
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? 'request_timeout'
          : 'bad_request';
    // Requests pipelined before the bad bytes were parsed, and may be running: they are answered
    // first (or, if their body never came, never run), then the error, then the connection ends.
    // A client that stops reading cannot hold the socket open past this.
    setTimeout(() => socket.destroy(), 10_000).unref();
    listeners.answerAfterPending(socket as Socket, () => {
      if (!socket.writable) return void socket.destroy();
      void headersOf(remoteAddress(socket)).then((headers) => {
        if (socket.writable)
          answerRaw(socket, code, `Failed to read the HTTP request: ${error.code ?? 'malformed request'}`, headers);
        else socket.destroy();
      });
    });
  });
  server.on('checkExpectation', (request, response) => {
    const body = errorBodyText('expectation_failed', 'Only Expect: 100-continue is supported');
    void headersOf(request.socket.remoteAddress).then((headers) => {
      if (response.destroyed) return;
      response.writeHead(417, {
        ...headers,
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
      });
      response.end(body);
    });
  });
  server.on('connect', (_request, socket: Duplex) => {
    void headersOf(remoteAddress(socket)).then((headers) =>
      answerRaw(socket, 'method_not_allowed', 'CONNECT is not supported', headers),
    );
  });
}

function remoteAddress(socket: Duplex): string | undefined {
  return (socket as Duplex & { remoteAddress?: string }).remoteAddress;
}

/**
 * Writes a whole HTTP response on a socket node:http no longer manages, then lets it go. It carries
 * the client's anonymous X-RateLimit-* like every other answer (the request never got as far as a key).
 */
function answerRaw(socket: Duplex, code: ErrorCode, message: string, rateLimitHeaders: Record<string, string>): void {
  const status = errorCatalogue[code].status;
  const body = errorBodyText(code, message);
  const extra = Object.entries(rateLimitHeaders)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.write(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${extra}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  // A client may still be sending: it reads the answer, not a reset.
  lingerThenClose(socket as Socket);
}

import { connect } from 'node:net';
import { headerValue, type ParsedResponse, parseResponses } from './http-response-parser.js';

/** What one keep-alive connection saw while it kept a server busy. */
export interface WorkerReport {
  sent: number;
  /** Complete, readable responses. */
  answered: number;
  /** A response that started but was cut off, or bytes that did not read as HTTP. */
  broken: string | undefined;
  /** The request still waiting for its answer when the connection ended; 0 or 1. */
  unanswered: number;
  /** How the connection ended, from the client's side. */
  ending: string;
}

/**
 * A well-behaved HTTP/1.1 client on one keep-alive connection: sends `request`, waits for the
 * complete answer, sends the next, until `stop()` is called or the server ends the connection. It
 * honours `Connection: close` as any client library does, so a server that announces its
 * shutdown that way loses no request.
 *
 * @example const worker = keepAliveWorker(port, 'GET /v1/categories HTTP/1.1\r\nHost: x\r\n\r\n'); ...; worker.stop(); await worker.done;
 */
export function keepAliveWorker(
  port: number,
  request: string,
  onAnswer: () => void = () => {},
): { stop(): void; done: Promise<WorkerReport> } {
  const socket = connect({ port, host: '127.0.0.1' });
  const report: WorkerReport = {
    sent: 0,
    answered: 0,
    broken: undefined,
    unanswered: 0,
    ending: 'closed by the server',
  };
  let buffer: Buffer = Buffer.alloc(0);
  let stopping = false;
  let closing = false;
  let closed = false;

  const send = () => {
    if (stopping || closing || !socket.writable) return;
    socket.write(request, 'latin1');
    report.sent += 1;
  };
  socket.once('connect', send);
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      const next = takeResponse(buffer);
      if (next === undefined) return;
      if (typeof next === 'string') {
        report.broken = next;
        socket.destroy();
        return;
      }
      buffer = next.rest;
      report.answered += 1;
      onAnswer();
      if (headerValue(next.response.headers, 'connection')?.toLowerCase() === 'close') closing = true;
      send();
    }
  });
  socket.on('error', (error: NodeJS.ErrnoException) => {
    report.ending = error.code ?? error.message;
  });
  const done = new Promise<WorkerReport>((resolve) =>
    socket.once('close', () => {
      closed = true;
      report.unanswered = report.sent - report.answered;
      if (buffer.length > 0) report.broken ??= `${buffer.length} bytes of an unfinished response`;
      resolve(report);
    }),
  );
  return {
    stop: () => {
      stopping = true;
      if (closed) return;
      // Let the outstanding answer arrive, then leave.
      if (report.sent === report.answered) {
        report.ending = 'closed by the client';
        socket.end();
      } else {
        socket.once('data', () => {
          if (report.sent === report.answered) report.ending = 'closed by the client';
          socket.end();
        });
      }
    },
    done,
  };
}

/** The first complete response in `buffer` and what follows it; undefined when incomplete; a string when unreadable. */
function takeResponse(buffer: Buffer): { response: ParsedResponse; rest: Buffer } | string | undefined {
  const headEnd = buffer.indexOf('\r\n\r\n', 0, 'latin1');
  if (headEnd === -1) return undefined;
  const length = /\r\ncontent-length: *(\d+)\r\n/i.exec(`${buffer.toString('latin1', 0, headEnd)}\r\n`);
  if (!length) return `a response without Content-Length: ${buffer.toString('latin1', 0, Math.min(headEnd, 80))}`;
  const end = headEnd + 4 + Number(length[1]);
  if (buffer.length < end) return undefined;
  try {
    const [response] = parseResponses(buffer.subarray(0, end), { connectionClosed: false });
    return { response: response!, rest: buffer.subarray(end) };
  } catch (error) {
    return (error as Error).message;
  }
}

import { connect } from 'node:net';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { type ParsedResponse, parseResponses } from '../../hardening/support/http-response-parser.js';

export interface ClientConversation {
  /** The final answers read off the connection, in order (1xx left out). */
  answers: ParsedResponse[];
  /** True when the proxy closed the connection. */
  closed: boolean;
  /** Why the bytes could not be read as answers, when they could not. */
  unreadable: string | undefined;
  timedOut: boolean;
}

/**
 * One client connection to the proxy over a raw socket: writes `pieces` (one write each, so
 * pipelined requests can arrive together or apart), then reads answers until it has `answers` of
 * them (and, when `untilClosed`, the connection is closed), or the deadline passes. Raw, because
 * the point is to send what no HTTP client would and to read the proxy's bytes unparsed.
 *
 * @example const { answers } = await converse(proxy.port, [Buffer.from(head)], { answers: 1, untilClosed: false });
 */
export async function converse(
  port: number,
  pieces: readonly Buffer[],
  until: { answers: number; untilClosed: boolean; deadlineMs?: number },
): Promise<ClientConversation> {
  const socket = connect({ port, host: '127.0.0.1' });
  const received: Buffer[] = [];
  let closed = false;
  let timedOut = false;
  let settle: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const readAnswers = (connectionClosed: boolean) =>
    parseResponses(Buffer.concat(received), { connectionClosed }).filter((answer) => answer.status >= 200);
  socket.on('data', (chunk: Buffer) => {
    received.push(chunk);
    if (until.untilClosed) return;
    try {
      if (readAnswers(false).length >= until.answers) settle();
    } catch {
      // Not all of an answer yet: wait for more bytes.
    }
  });
  socket.on('error', () => {});
  socket.on('close', () => {
    closed = true;
    settle();
  });
  const deadline = setTimeout(() => {
    timedOut = true;
    settle();
  }, until.deadlineMs ?? 5_000);
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  for (const piece of pieces) {
    if (closed) break;
    socket.write(piece);
    await yieldToLoop();
  }
  if (until.answers === 0 && !until.untilClosed) settle();
  await done;
  clearTimeout(deadline);
  socket.destroy();
  try {
    return { answers: readAnswers(closed), closed, unreadable: undefined, timedOut };
  } catch (error) {
    return { answers: [], closed, unreadable: (error as Error).message, timedOut };
  }
}

/** The id the upstream echoed in an answer, or undefined for an answer the upstream did not make. */
export function echoedId(answer: ParsedResponse): string | undefined {
  const header = answer.headers.find(([name]) => name.toLowerCase() === 'x-echo-id');
  return header?.[1];
}

// Imported, not the global: node's global Buffer is a getter, read through a slow global load on every response.
import { Buffer } from 'node:buffer';
import type { ServerResponse } from 'node:http';
import type { Logger, MockResponse } from '../core/types.js';
import { dripBody } from './fault-writes.js';

// How the node adapter puts one MockResponse on the wire: its head and body in one write, or (a
// `slow-body` fault) its head at once and its body dripped.

/** The answer in one write: a string body with its head, bytes as they are, no body without Content-Length. */
export function writeResponse(response: ServerResponse, result: MockResponse, logger: Logger): void {
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
export function dripResponse(response: ServerResponse, result: MockResponse, logger: Logger): void {
  const body =
    result.body !== null
      ? Buffer.from(result.body, 'utf8')
      : result.bytes === undefined
        ? Buffer.alloc(0)
        : Buffer.from(result.bytes.buffer, result.bytes.byteOffset, result.bytes.byteLength);
  try {
    // A HEAD answer has no content and the Content-Length of the GET's, written by the core (head-answer.ts).
    result.headers['Content-Length'] ??= `${body.byteLength}`;
    response.writeHead(result.status, result.headers);
  } catch (error) {
    logger.error(`Failed to write a response: ${(error as Error).message}`);
    response.destroy();
    return;
  }
  dripBody(response, body, result.fault!.slowBody);
}

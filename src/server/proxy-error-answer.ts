import type { ServerResponse } from 'node:http';
import { type ErrorCode, errorBodyText, errorCatalogue } from '../core/errors.js';

/** An answer of the proxy's own, in the API's Error shape with its catalogued status (decision 049). */
export function sendError(response: ServerResponse, code: ErrorCode, message: string): void {
  const body = errorBodyText(code, message);
  response.writeHead(errorCatalogue[code].status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
  });
  response.end(body);
}

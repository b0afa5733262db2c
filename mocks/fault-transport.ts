import { delay, HttpResponse } from 'msw';
import type { MockResponse } from '../src/core/types.js';

/**
 * The MSW half of a latency or fault the core decided (decision 042). A fetch intercepted by MSW has
 * no socket of its own, so the kinds map to the closest a page or a test can see:
 * - the latency: msw's `delay(ms)`;
 * - `reset` and `close`: `HttpResponse.error()`, a network error (fetch rejects with a TypeError),
 *   the only way MSW has to fail a request; a client cannot tell the two apart here;
 * - `timeout`: nothing until the client aborts its request, or `timeoutMs` passes, then a network error;
 * - `slow-body`: the head at once, the body streamed in pieces over the duration (a ReadableStream);
 * - `status`, `malformed`, `empty`: already in the answer the core made.
 */
export async function withFault(
  response: MockResponse,
  request: Request,
  toResponse: (response: MockResponse, method: string) => Response,
): Promise<Response> {
  const fault = response.fault!;
  if (fault.delayMs > 0) await delay(fault.delayMs);
  if (fault.kind === 'reset' || fault.kind === 'close') return HttpResponse.error();
  if (fault.kind === 'timeout') {
    await untilAborted(request.signal, fault.timeoutMs);
    return HttpResponse.error();
  }
  const answer = toResponse(response, request.method);
  if (fault.kind !== 'slow-body' || answer.body === null) return answer;
  const bytes = new Uint8Array(await answer.arrayBuffer());
  return new HttpResponse(dripped(bytes, fault.slowBody), { status: answer.status, headers: answer.headers });
}

/** Resolves when the request is aborted or after `timeoutMs`, whichever comes first. */
function untilAborted(signal: AbortSignal | undefined, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, timeoutMs);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** The bytes as a stream of `chunks` pieces, one every `durationMs / chunks`. */
function dripped(bytes: Uint8Array, { chunks, durationMs }: { chunks: number; durationMs: number }) {
  const pieces = Math.max(1, Math.min(chunks, bytes.byteLength));
  const size = Math.ceil(bytes.byteLength / pieces);
  let index = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (index > 0) await delay(durationMs / pieces);
      controller.enqueue(bytes.subarray(index * size, (index + 1) * size));
      index += 1;
      if (index >= pieces) controller.close();
    },
  });
}

/** What MSW does with a request no handler matches (both majors accept these three). */
export type UnhandledRequestStrategy = 'bypass' | 'warn' | 'error';

/**
 * MSW's "unhandled request" option under both of its names, for code that runs on msw 2 and 3:
 * msw 2 reads `onUnhandledRequest`, msw 3 renamed it `onUnhandledFrame` (it covers WebSocket
 * frames too) and silently ignores the old key, which would turn a strict `'error'` setup back
 * into the default `'warn'`. Each major ignores the other's key, so passing both is exact on both.
 * On one known msw major, write that major's own option instead.
 *
 * @example
 * server.listen(unhandledRequests('error'));                  // setupPetstoreServer(): strict
 * await worker.start({ ...unhandledRequests('bypass'), quiet: true }); // setupPetstoreWorker()
 */
export function unhandledRequests<S extends UnhandledRequestStrategy>(
  strategy: S,
): { onUnhandledRequest: S; onUnhandledFrame: S } {
  return { onUnhandledRequest: strategy, onUnhandledFrame: strategy };
}

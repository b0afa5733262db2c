import { setupWorker } from 'msw/browser';
import { type PersistOption, persistMockState, storageOf } from './browser-persistence.js';
import { createPetstoreHandlers, type PetstoreHandlers, type PetstoreHandlersOptions } from './handlers-browser.js';

// No fs here: the spec comes in as data (`petstore-kit/mocks/spec`, bundled at build time, or any
// parsed document). Keep every import of this file browser-safe.

export type { PersistOption } from './browser-persistence.js';
export * from './handlers-browser.js';

export interface PetstoreWorkerOptions extends PetstoreHandlersOptions {
  /**
   * Keeps the session's state (spent budgets, bans, run-time keys, categories, the clock) across page
   * reloads in `sessionStorage` (this tab) or `localStorage` (the origin): saved after requests, applied
   * before the first one of the next page (`await ready`). Default false: every page load starts fresh.
   *
   * @example setupPetstoreWorker({ spec: petstoreSpec, persist: 'sessionStorage' })
   */
  persist?: PersistOption;
}

/** What `setupPetstoreWorker` returns: the handlers' parts (`createPetstoreHandlers`) and MSW's worker over them. */
export interface PetstoreWorker extends PetstoreHandlers {
  /** MSW's worker, not started yet: `await worker.start()` (MSW's own convention). */
  worker: ReturnType<typeof setupWorker>;
}

/**
 * The Petstore mock in a browser: MSW's `setupWorker` over `createPetstoreHandlers`. Needs
 * `mockServiceWorker.js` at the site root (`npx msw init public/ --save`).
 *
 * @example
 * import { petstoreSpec } from 'petstore-kit/mocks/spec';
 * const { worker, controls } = setupPetstoreWorker({ spec: petstoreSpec, seed: 42 });
 * await worker.start(unhandledRequests('bypass')); // msw 2 and 3; or your major's own option
 * await fetch('/v1/categories', { headers: { authorization: 'Bearer demo-free' } }); // 200, from the worker
 * controls.reset();
 */
export function setupPetstoreWorker(options: PetstoreWorkerOptions): PetstoreWorker {
  const { persist = false, ...handlerOptions } = options;
  let changed = () => {};
  const observers =
    persist === false ? handlerOptions.observers : [...(handlerOptions.observers ?? []), () => changed()];
  const created = createPetstoreHandlers({ ...handlerOptions, ...(observers ? { observers } : {}) });
  const { handlers, controls, app, report, expectWellBehaved } = created;
  let ready = created.ready;
  const worker = setupWorker(...handlers);
  if (persist !== false) {
    const storage = storageOf(persist);
    if (storage === null)
      console.warn(`petstore-kit: persist: '${persist}' is not available in this page; the state is not kept`);
    else {
      const persistence = persistMockState(app, { storage, ...(options.session ? { session: options.session } : {}) });
      changed = () => persistence.changed();
      ready = Promise.all([ready, persistence.restored]).then(() => undefined);
      // Controls (reset, keys, scenarios) are no API requests: MSW's own event tells of them where it has one.
      (worker as { events?: { on?(event: string, listener: () => void): void } }).events?.on?.(
        'response:mocked',
        changed,
      );
    }
  }
  return { worker, controls, app, handlers, report, expectWellBehaved, ready };
}

import type { HttpHandler } from 'msw';
import { setupWorker } from 'msw/browser';
import {
  createPetstoreHandlers,
  type MockApp,
  type MockControls,
  type PetstoreHandlers,
  type PetstoreHandlersOptions,
} from './handlers.js';

// No fs here: the spec comes in as data (`petstore-kit/mocks/spec`, bundled at build time, or any
// parsed document). Keep every import of this file browser-safe.

export * from './handlers.js';

export type PetstoreWorkerOptions = PetstoreHandlersOptions;

export interface PetstoreWorker {
  /** MSW's worker, not started yet: `await worker.start()` (MSW's own convention). */
  worker: ReturnType<typeof setupWorker>;
  controls: MockControls;
  app: MockApp;
  handlers: HttpHandler[];
  /** The rate-limit lab's report (client verdicts and coverage) of the session. */
  report: PetstoreHandlers['report'];
  /** Throws when a client broke a rule or a listed situation was never served (see `createPetstoreHandlers`). */
  expectWellBehaved: PetstoreHandlers['expectWellBehaved'];
  /** Resolves once the `scenario` option (if any) is applied; requests wait for it on their own. */
  ready: PetstoreHandlers['ready'];
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
  const { handlers, controls, app, report, expectWellBehaved, ready } = createPetstoreHandlers(options);
  return { worker: setupWorker(...handlers), controls, app, handlers, report, expectWellBehaved, ready };
}

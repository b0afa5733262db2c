import { setupServer } from 'msw/node';
import { readBoundedTextSync } from '../spec/bounded-file.js';
import { defaultSpecPath, maxSpecFileBytes, parseSpecText } from '../spec/load-spec.js';
import { createPetstoreHandlers, type PetstoreHandlers, type PetstoreHandlersOptions } from './handlers.js';

export * from './handlers.js';

export interface PetstoreServerOptions extends Omit<PetstoreHandlersOptions, 'spec'> {
  /** The spec, parsed or compiled. Default: read from `specPath`. */
  spec?: PetstoreHandlersOptions['spec'];
  /** Spec file (YAML or JSON) read when `spec` is not given. Default: the kit's own spec. */
  specPath?: string;
}

/** What `setupPetstoreServer` returns: the handlers' parts (`createPetstoreHandlers`) and MSW's server over them. */
export interface PetstoreServer extends PetstoreHandlers {
  /** MSW's server, not listening yet: call `server.listen()` (MSW's own convention). */
  server: ReturnType<typeof setupServer>;
}

/**
 * The Petstore mock for Node tests: MSW's `setupServer` over `createPetstoreHandlers`. MSW in Node
 * answers the global `fetch`, node:http and XMLHttpRequest. Requests made with the `undici`
 * package's own API (`request`, `Client`, its `fetch`) are not answered: msw 2 never sees them,
 * msw 3 sees their sockets but passes them through. To reach a real server from a test that has
 * MSW listening, send `fetch(bypass(url))` (MSW's own marker) rather than relying on the client.
 *
 * @example
 * const { server, controls } = setupPetstoreServer({ seed: 42 });
 * beforeAll(() => server.listen(unhandledRequests('error'))); // or msw 3's { onUnhandledFrame: 'error' }
 * afterEach(() => controls.reset());
 * afterAll(() => server.close());
 * // in a test: await fetch('http://localhost/v1/categories', { headers: { authorization: 'Bearer demo-free' } })
 */
export function setupPetstoreServer(options: PetstoreServerOptions = {}): PetstoreServer {
  const { specPath, spec, ...rest } = options;
  const { handlers, controls, app, report, expectWellBehaved, ready } = createPetstoreHandlers({
    ...rest,
    spec: spec ?? readSpecFileSync(specPath),
  });
  return { server: setupServer(...handlers), controls, app, handlers, report, expectWellBehaved, ready };
}

/** Sync so that `setupPetstoreServer()` can run at a module's top level, as MSW setups usually do. */
function readSpecFileSync(path: string = defaultSpecPath) {
  let text: string;
  try {
    // Bounded as readSpecFile reads (spec/bounded-file.ts): no FIFO or device, the size counted while reading.
    text = readBoundedTextSync(path, { maxBytes: maxSpecFileBytes, expected: 'an OpenAPI document (YAML or JSON)' });
  } catch (error) {
    throw new Error(`Failed to load spec ${path}: ${(error as Error).message}`);
  }
  return parseSpecText(text, path);
}

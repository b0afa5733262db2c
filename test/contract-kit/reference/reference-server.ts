import { createServer } from 'node:http';
import { listenOnLoopback } from '../support/loopback.js';
import { type OpenChoiceOptions, withOpenChoices } from './open-choice-petstore.js';
import { type Plan, plans } from './plans.js';
import type { ReferenceHooks } from './reference-hooks.js';
import { createReferencePetstore, type PlainRequest, type PlainResponse } from './reference-petstore.js';

/** The keys of the reference server: a Pro key for most checks, a Free key to drive into 429. */
export const referenceKeys = { main: 'ref-main-key', limited: 'ref-limited-key' } as const;

/** The plan of each reference key. */
export const referenceKeyPlans: ReadonlyMap<string, Plan> = new Map<string, Plan>([
  [referenceKeys.main, plans.pro],
  [referenceKeys.limited, plans.free],
]);

export interface ReferenceServer {
  /** `http://127.0.0.1:PORT/v1` */
  baseUrl: string;
  close(): Promise<void>;
}

export interface ReferenceServerOptions {
  clock: { now(): number };
  keys?: ReadonlyMap<string, Plan>;
  /** Lines a buggy backend adds (test/contract-kit/bug-servers/ only); none by default. */
  hooks?: ReferenceHooks;
  /** Open choices made differently (test/contract-kit/open-choices.test.ts); the reference's own by default. */
  choices?: OpenChoiceOptions;
  /** Wraps the handler in one line a buggy backend adds (test/contract-kit/generators-catch.test.ts). */
  wrap?: (handle: ReferenceHandler) => ReferenceHandler;
}

/** The reference's handler, as a wrapper sees it. */
export type ReferenceHandler = (request: PlainRequest) => PlainResponse | Promise<PlainResponse>;

/**
 * The reference's handler as the server calls it, without sockets (the bug corpus's witnesses call it in-process).
 *
 * @example const handle = createReferenceHandler({ clock }); await handle(request);
 */
export function createReferenceHandler(
  options: ReferenceServerOptions,
): (request: PlainRequest) => PlainResponse | Promise<PlainResponse> {
  const start = () =>
    createReferencePetstore({ clock: options.clock, keys: options.keys ?? referenceKeyPlans, hooks: options.hooks });
  // Stryker disable next-line all: a hook point of the bug corpus; the reference has no hooks
  return options.hooks?.deploy?.(start) ?? start();
}

/**
 * The reference Petstore (reference-petstore.ts) on node:http, 127.0.0.1, a free port: it only
 * translates requests and responses. `clock` is the one the kit waits on in tests.
 *
 * @example
 * const server = await startReferenceServer({ clock: createVirtualClock({ startMs: Date.now() }) });
 * await runContract({ baseUrl: server.baseUrl, apiKey: referenceKeys.main, clock });
 * await server.close();
 */
export async function startReferenceServer(options: ReferenceServerOptions): Promise<ReferenceServer> {
  const reference = createReferenceHandler(options);
  // Stryker disable next-line ConditionalExpression: the mutation run serves the reference alone; the open-choice variants are test support (open-choices.test.ts)
  const chosen = options.choices === undefined ? reference : withOpenChoices(reference, options.choices);
  const handle = options.wrap?.(chosen) ?? chosen;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const answer = await handle({
        method: String(request.method),
        target: String(request.url),
        headers: request.headers as Record<string, string | undefined>,
        body: Buffer.concat(chunks),
        client: String(request.socket.remoteAddress),
      });
      // The answer carries its own Date (from the server's clock, maybe a test's virtual one): node adds none then.
      response.writeHead(answer.status, answer.headers);
      response.end(answer.body);
    });
  });
  return listenOnLoopback(server);
}

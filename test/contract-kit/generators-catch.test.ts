import { afterEach, describe, expect, it } from 'vitest';
import { type ReferenceHandler, referenceKeys, startReferenceServer } from './reference/reference-server.js';
import { createVirtualClock } from './reference/virtual-clock.js';
import { idsWith, runKit } from './support/run-kit.js';

/**
 * Issue 39, item 3: bugs of the kind real backends ship that the kit's fixed cases never met, one
 * line each on the reference, each caught by a generator in a default run whatever the seed picks
 * (the class, spelling or method is sent in every run). The kit before the generators said
 * CONFORMS to each of them.
 */
type Handler = ReferenceHandler;

const bugs: { name: string; wrap: (handle: Handler) => Handler; caughtBy: string }[] = [
  {
    // A template layer escaping on the way in: every HTML class variant holds < or &.
    name: 'stores names HTML-escaped',
    wrap: (handle) => (request) => {
      const text = new TextDecoder().decode(request.body);
      const escaped = text.replace(/</g, '&lt;');
      return handle({ ...request, body: new TextEncoder().encode(escaped) });
    },
    caughtBy: 'values.grammar',
  },
  {
    // A parser that takes whatever follows the first word as the token, when that word is "Token".
    name: 'accepts the key under the scheme Token',
    wrap: (handle) => (request) => {
      const auth = request.headers.authorization;
      const fixed = auth?.startsWith('Token ') ? `Bearer ${auth.slice(6)}` : auth;
      return handle({ ...request, headers: { ...request.headers, authorization: fixed } });
    },
    caughtBy: 'credentials.scheme',
  },
  {
    // A server that reads bodies by Content-Length only: a chunked body arrives empty.
    name: 'drops chunked request bodies',
    wrap: (handle) => (request) =>
      handle(request.headers['transfer-encoding'] === undefined ? request : { ...request, body: new Uint8Array() }),
    caughtBy: 'methods.with-key',
  },
];

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

describe('the generators catch bugs the fixed cases did not', () => {
  for (const { name, wrap, caughtBy } of bugs) {
    for (const seed of [1, 2]) {
      it(`a server that ${name} fails ${caughtBy} (seed ${seed})`, async () => {
        const clock = createVirtualClock({ startMs: Date.parse('2026-03-02T10:00:20.000Z') });
        const server = await startReferenceServer({ clock, wrap });
        close = server.close;
        const baseUrl = server.baseUrl;
        const run = await runKit({
          baseUrl,
          apiKey: referenceKeys.main,
          rateLimitKey: referenceKeys.limited,
          clock,
          timeoutSeconds: 2,
          seed,
        });
        expect(run.exitCode).toBe(1);
        expect(idsWith(run, 'FAIL')).toContain(caughtBy);
      });
    }
  }
});

// A page that keeps the browser mock's state across reloads (`persist: 'sessionStorage'`), for
// test/browser/persistence.test.ts: it exposes one fetch helper and says when the mock is ready.
import { petstoreSpec } from 'virtual:petstore-spec';
import { setupPetstoreWorker, unhandledRequests } from '../../../mocks/browser.js';

const { worker, ready } = setupPetstoreWorker({ spec: petstoreSpec, seed: 42, persist: 'sessionStorage' });

async function api(method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = { authorization: 'Bearer demo-free' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`/v1${path}`, {
    method,
    headers,
    body: body === undefined ? null : JSON.stringify(body),
  });
  return {
    status: response.status,
    remaining: response.headers.get('x-ratelimit-remaining'),
    body: await response.text(),
  };
}

(globalThis as unknown as { api: typeof api }).api = api;
await worker.start({ serviceWorker: { url: './mockServiceWorker.js' }, ...unhandledRequests('bypass'), quiet: true });
await ready;
document.body.dataset.state = 'ready';

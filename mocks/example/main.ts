// The example page: a frontend that talks to `/v1` with plain fetch, unaware that a service worker
// answers. Everything it shows comes from the same core as the node:http mock server.
import { petstoreSpec } from 'virtual:petstore-spec';
import { setupPetstoreWorker, unhandledRequests } from '../browser.js';

const apiKey = 'demo-free';
const { worker, controls } = setupPetstoreWorker({ spec: petstoreSpec, seed: 42 });

const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const status = element<HTMLParagraphElement>('status');
const list = element<HTMLUListElement>('categories');
const lastResponse = element<HTMLParagraphElement>('last-response');
const createResult = element<HTMLParagraphElement>('create-result');
const limitResult = element<HTMLParagraphElement>('limit-result');

interface ApiResult {
  status: number;
  headers: Headers;
  body: unknown;
}

async function api(method: string, path: string, body?: unknown): Promise<ApiResult> {
  const headers: Record<string, string> = { authorization: `Bearer ${apiKey}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`/v1${path}`, {
    method,
    headers,
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text === '' ? null : (JSON.parse(text) as unknown),
  };
}

function rateText(result: ApiResult): string {
  const header = (name: string) => result.headers.get(name) ?? '?';
  return `X-RateLimit-Remaining ${header('X-RateLimit-Remaining')}/${header('X-RateLimit-Limit')}`;
}

function errorText(result: ApiResult): string {
  const error = result.body as { code?: string; message?: string } | null;
  return `${result.status} ${error?.code ?? ''}: ${error?.message ?? ''}`;
}

async function refresh(): Promise<void> {
  const result = await api('GET', '/categories');
  lastResponse.dataset.status = String(result.status);
  lastResponse.textContent = `${result.status} · ${rateText(result)}`;
  if (result.status !== 200) {
    lastResponse.textContent = `${errorText(result)} · ${rateText(result)}`;
    return;
  }
  // textContent, never innerHTML: names are user input.
  list.replaceChildren(
    ...(result.body as { id: number; name: string; description?: string }[]).map((category) => {
      const item = document.createElement('li');
      item.dataset.id = String(category.id);
      item.textContent = `#${category.id} ${category.name}${category.description ? ` - ${category.description}` : ''}`;
      return item;
    }),
  );
}

element<HTMLFormElement>('create-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const name = element<HTMLInputElement>('name').value.trim();
  const description = element<HTMLInputElement>('description').value.trim();
  void (async () => {
    // An empty name field sends a body without `name`: the mock answers 400, as the API would.
    const result = await api('POST', '/categories', {
      ...(name ? { name } : {}),
      ...(description ? { description } : {}),
    });
    createResult.dataset.status = String(result.status);
    if (result.status === 201) {
      const created = result.body as { id: number; name: string };
      createResult.textContent = `201 created #${created.id} ${created.name} (Location: ${result.headers.get('Location') ?? '?'})`;
      await refresh();
    } else {
      createResult.textContent = errorText(result);
    }
  })();
});

element<HTMLButtonElement>('flood').addEventListener('click', () => {
  void (async () => {
    limitResult.textContent = 'Sending...';
    // Past the Free plan's 60 per minute within a few hundred requests at most; stop at the first 429.
    for (let sent = 1; sent <= 500; sent += 1) {
      const result = await api('GET', '/categories');
      if (result.status === 429) {
        limitResult.dataset.status = '429';
        limitResult.dataset.retryAfter = result.headers.get('Retry-After') ?? '';
        limitResult.textContent = `${errorText(result)} · after ${sent} requests · Retry-After: ${result.headers.get('Retry-After') ?? '?'} s · ${rateText(result)}`;
        return;
      }
    }
    limitResult.textContent = 'No 429 after 500 requests';
  })();
});

element<HTMLButtonElement>('advance').addEventListener('click', async () => {
  const clock = await controls.advanceClock(60);
  limitResult.dataset.status = '';
  limitResult.textContent = `Mock clock moved to ${clock.now}: a new minute window`;
  void refresh();
});

element<HTMLButtonElement>('reset').addEventListener('click', () => {
  void controls.reset();
  createResult.textContent = '';
  limitResult.textContent = 'Mock reset: seeded categories, fresh limits';
  void refresh();
});

try {
  // quiet: the page is the log. bypass: the page's own files still load from the network.
  await worker.start({ serviceWorker: { url: './mockServiceWorker.js' }, ...unhandledRequests('bypass'), quiet: true });
  status.dataset.state = 'ready';
  status.textContent = 'Mock Service Worker is answering /v1/* in this tab.';
  await refresh();
} catch (error) {
  status.dataset.state = 'error';
  status.textContent = `Failed to start the mock: ${(error as Error).message}`;
}

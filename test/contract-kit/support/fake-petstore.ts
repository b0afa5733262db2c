import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * One deliberate departure from the interface. Each names what it breaks; the contract kit must
 * fail the matching rule.
 */
export type Fault =
  | 'unauthorized-without-error-body'
  | 'error-status-mismatch'
  | 'no-rate-headers-on-errors'
  | 'reset-in-milliseconds'
  | 'reset-as-delta'
  | 'duplicate-ids'
  | 'create-returns-200'
  | 'missing-name-accepted'
  | 'lowercase-bearer-rejected'
  | 'created-not-listed'
  | 'no-retry-after'
  | 'text-error-body'
  | 'remaining-constant'
  | 'remaining-above-limit'
  | 'never-429'
  | 'invalid-key-accepted'
  | 'basic-scheme-accepted'
  | 'malformed-json-500'
  | 'description-dropped'
  | 'string-ids'
  | 'wrong-types-accepted'
  | 'list-wrapped'
  | 'non-integer-rate-headers'
  | 'retry-after-invalid'
  | 'pets-without-auth'
  | 'unprovoked-429-on-orders'
  | 'orders-never-answer';

export interface FakePetstoreOptions {
  faults?: Fault[];
  /** Budget of the main key per window. Default 1000. */
  mainLimit?: number;
  /** Budget of the rate-limit key per window. Default 5. */
  limitedLimit?: number;
  /** Window length. Default 60 s. */
  windowMs?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  status: number;
}

export interface FakePetstore {
  /** `http://127.0.0.1:PORT/v1` */
  baseUrl: string;
  /** Every request, in order of arrival. */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Keys the fake accepts. */
export const fakeKeys = { main: 'fake-main-key', limited: 'fake-limited-key' } as const;

interface Window {
  startMs: number;
  count: number;
}

/**
 * A small, conforming implementation of the Petstore interface on node:http (127.0.0.1, port 0),
 * independent of the project's mock, that can be broken one rule at a time with `faults`. It is
 * the kit's proof: conforming, it passes; with any fault, the kit must exit 1 naming the rule.
 *
 * @example
 * const server = await startFakePetstore({ faults: ['reset-in-milliseconds'] });
 * await runContract({ baseUrl: server.baseUrl, apiKey: fakeKeys.main });
 * await server.close();
 */
export async function startFakePetstore(options: FakePetstoreOptions = {}): Promise<FakePetstore> {
  const faults = new Set(options.faults ?? []);
  const windowMs = options.windowMs ?? 60_000;
  const limits: Record<string, number> = { [fakeKeys.main]: options.mainLimit ?? 1000, [fakeKeys.limited]: options.limitedLimit ?? 5 };
  const windows = new Map<string, Window>();
  const categories: { id: number | string; name: string; description?: string }[] = [
    { id: 1, name: 'dog', description: 'Domestic dogs.' },
    { id: 2, name: 'cat' },
  ];
  let nextId = 3;
  let ordersLimitedOnce = false;
  const requests: RecordedRequest[] = [];

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const status = handle(request, Buffer.concat(chunks).toString('utf8'), response);
      requests.push({ method: request.method ?? '', path: request.url ?? '', authorization: request.headers.authorization, status });
    });
  });

  function handle(request: IncomingMessage, body: string, response: ServerResponse): number {
    const path = (request.url ?? '/').split('?')[0]!.replace(/\/+$/, '');
    const key = authenticate(request.headers.authorization);
    // Never answered; close() drops the connection.
    if (faults.has('orders-never-answer') && key !== undefined && path === '/v1/store/orders') return 0;
    const identity = key ?? `anonymous:${request.socket.remoteAddress}`;
    const limit = key === undefined ? 100 : (limits[key] ?? 1000);
    const now = Date.now();
    let window = windows.get(identity);
    if (!window || now >= window.startMs + windowMs) {
      window = { startMs: now, count: 0 };
      windows.set(identity, window);
    }
    const resetSeconds = Math.ceil((window.startMs + windowMs) / 1000);
    const over = window.count >= limit && !faults.has('never-429');
    if (!over) window.count += 1;
    const remaining = Math.max(0, limit - window.count);

    const send = (status: number, payload: unknown, extra: Record<string, string> = {}): number => {
      const headers: Record<string, string> = { ...extra };
      const isError = status >= 400;
      if (!(isError && faults.has('no-rate-headers-on-errors'))) {
        headers['X-RateLimit-Limit'] = faults.has('non-integer-rate-headers') ? `${limit}.0` : String(limit);
        headers['X-RateLimit-Remaining'] = String(faults.has('remaining-constant') ? limit - 1 : faults.has('remaining-above-limit') ? limit + 5 : remaining);
        headers['X-RateLimit-Reset'] = faults.has('reset-in-milliseconds') ? String(resetSeconds * 1000) : faults.has('reset-as-delta') ? String(Math.max(1, resetSeconds - Math.floor(now / 1000))) : String(resetSeconds);
      }
      let text: string;
      if (payload === undefined) {
        text = '';
      } else if (isError && faults.has('text-error-body') && status !== 429) {
        headers['Content-Type'] = 'text/plain';
        text = (payload as { message: string }).message;
      } else {
        headers['Content-Type'] = 'application/json';
        text = JSON.stringify(payload);
      }
      response.writeHead(status, headers);
      response.end(text);
      return status;
    };
    const error = (status: number, code: string, message: string, extra: Record<string, string> = {}) =>
      send(status, { code, message, status: faults.has('error-status-mismatch') && status === 401 ? 400 : status }, extra);

    if (over || (faults.has('unprovoked-429-on-orders') && key === fakeKeys.main && path === '/v1/store/orders' && !ordersLimitedOnce)) {
      if (!over) ordersLimitedOnce = true;
      const retryAfter: Record<string, string> = faults.has('retry-after-invalid') ? { 'Retry-After': 'soon' } : faults.has('no-retry-after') ? {} : { 'Retry-After': String(over ? Math.max(1, resetSeconds - Math.floor(now / 1000)) : 1) };
      return error(429, 'rate_limited', 'Too many requests', retryAfter);
    }

    const route = `${request.method} ${path}`;
    const known = ['GET /v1/categories', 'POST /v1/categories', 'GET /v1/store/orders'].includes(route) || (request.method === 'GET' && /^\/v1\/pets\/[^/]+$/.test(path));
    if (!known) return error(404, 'not_found', `No resource at ${path}`);
    const petsOpen = faults.has('pets-without-auth') && path.startsWith('/v1/pets/');
    if (key === undefined && !petsOpen) {
      if (faults.has('unauthorized-without-error-body')) return send(401, undefined);
      return error(401, 'unauthorized', 'Missing or invalid API key');
    }

    switch (route) {
      case 'GET /v1/categories': {
        const visible = faults.has('created-not-listed') ? categories.slice(0, 2) : categories;
        return send(200, faults.has('list-wrapped') ? { items: visible } : visible);
      }
      case 'POST /v1/categories': {
        if (body.trim() === '') return error(400, 'body_required', 'A JSON body is required');
        let value: unknown;
        try {
          value = JSON.parse(body);
        } catch {
          if (faults.has('malformed-json-500')) return error(500, 'internal_error', 'Unexpected token');
          return error(400, 'malformed_json', 'The body is not valid JSON');
        }
        if (value === null || typeof value !== 'object' || Array.isArray(value)) return error(400, 'validation_failed', 'The body must be an object');
        const input = value as { name?: unknown; description?: unknown };
        if (input.name === undefined && !faults.has('missing-name-accepted')) return error(400, 'validation_failed', 'name is required');
        const typesOk = (input.name === undefined || typeof input.name === 'string') && (input.description === undefined || typeof input.description === 'string');
        if (!typesOk && !faults.has('wrong-types-accepted')) return error(400, 'validation_failed', 'name and description must be strings');
        const id = faults.has('duplicate-ids') ? 1 : nextId++;
        const category = {
          id: faults.has('string-ids') ? String(id) : id,
          name: input.name === undefined ? 'unnamed' : String(input.name),
          ...(input.description === undefined || faults.has('description-dropped') ? {} : { description: String(input.description) }),
        };
        categories.push(category);
        return send(faults.has('create-returns-200') ? 200 : 201, category);
      }
      case 'GET /v1/store/orders':
        return send(200, []);
      default:
        return send(200, { id: 1, name: 'Rex' }, { Deprecation: '@1767225600', Sunset: 'Fri, 31 Dec 2027 23:59:59 GMT' });
    }
  }

  function authenticate(header: string | undefined): string | undefined {
    if (header === undefined) return undefined;
    let token: string | undefined;
    if (faults.has('basic-scheme-accepted')) {
      token = header.split(' ')[1];
    } else {
      const match = /^(\S+) (\S+)$/.exec(header);
      if (!match) return undefined;
      const scheme = match[1]!;
      const schemeOk = faults.has('lowercase-bearer-rejected') ? scheme === 'Bearer' : scheme.toLowerCase() === 'bearer';
      if (!schemeOk) return undefined;
      token = match[2];
    }
    if (token === undefined) return undefined;
    if (faults.has('invalid-key-accepted')) return limits[token] === undefined ? fakeKeys.main : token;
    return limits[token] === undefined ? undefined : token;
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

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
  | 'orders-never-answer'
  // Issue 9: one rule each, broken the way a new implementer would break it.
  | 'html-404'
  | 'empty-405'
  | 'no-rate-headers-on-404'
  | 'error-without-status'
  | 'remaining-lies-high'
  | 'remaining-nonzero-on-429'
  | 'retry-after-past-date'
  | 'retry-after-beyond-reset'
  | 'posts-not-counted'
  | 'errors-not-counted'
  | 'shared-budget'
  | 'key-prefix-accepted'
  | 'key-truncated-accepted'
  | 'key-case-insensitive'
  | 'key-extra-token-accepted'
  | 'key-from-query'
  | 'key-from-cookie'
  | 'key-from-x-api-key'
  | 'ids-wrap'
  | 'list-first-20'
  | 'list-drops-description'
  | 'name-boolean-accepted'
  | 'name-object-accepted'
  | 'null-description-accepted'
  | 'unicode-rejected'
  | 'emoji-rejected'
  // Not a fault since issue 39: refusing a blank name is a choice the interface leaves open (open-choices.test.ts).
  | 'empty-name-rejected'
  | 'control-chars-rejected'
  | 'charset-rejected'
  | 'text-plain-accepted'
  | 'always-429'
  | '401-as-403'
  | 'validation-422'
  | 'no-rate-headers-on-429'
  | 'reset-jitters'
  // A response labelled JSON with no body at all.
  | 'orders-empty-json-body';

/** Options a fault needs to show (two keys can only be seen sharing a budget when one is not tiny). */
export const faultOptions: Partial<Record<Fault, FakePetstoreOptions>> = { 'shared-budget': { limitedLimit: 30 } };

/** The faults of issue 9 (the catch-rate set): each breaks one rule of the interface. */
export const issue9Faults: Fault[] = [
  'html-404',
  'empty-405',
  'no-rate-headers-on-404',
  'error-without-status',
  'remaining-lies-high',
  'remaining-nonzero-on-429',
  'retry-after-past-date',
  'retry-after-beyond-reset',
  'posts-not-counted',
  'errors-not-counted',
  'shared-budget',
  'key-prefix-accepted',
  'key-truncated-accepted',
  'key-case-insensitive',
  'key-extra-token-accepted',
  'key-from-query',
  'key-from-cookie',
  'key-from-x-api-key',
  'ids-wrap',
  'list-first-20',
  'list-drops-description',
  'name-boolean-accepted',
  'name-object-accepted',
  'null-description-accepted',
  'unicode-rejected',
  'emoji-rejected',
  // Not 'empty-name-rejected': whether a blank name is valid is not shown, so refusing one is an open choice
  // (issue 39), and that fake conforms (open-choices.test.ts).
  'control-chars-rejected',
  'charset-rejected',
  'text-plain-accepted',
  'always-429',
  '401-as-403',
  'validation-422',
  'no-rate-headers-on-429',
];

export interface FakePetstoreOptions {
  faults?: Fault[];
  /** Budget of the main key per window. Default 1000. */
  mainLimit?: number;
  /** Budget of the rate-limit key per window. Default 5. */
  limitedLimit?: number;
  /** Budget of requests without a valid key, per client address and window. Default 100. */
  anonymousLimit?: number;
  /** Window length. Default 60 s. */
  windowMs?: number;
  /** A hostile behaviour (for the kit's own robustness tests), on top of the conforming server. */
  hostile?: Hostility;
}

/**
 * Servers that attack the kit rather than break a rule: huge or endless bodies, echoed secrets,
 * terminal escape sequences, a server that dies mid-run, one that is slow, one that answers
 * every request with 429.
 */
type Hostility =
  | { kind: 'huge-list-body'; bytes: number }
  | { kind: 'endless-list-body' }
  | { kind: 'echo-credentials' }
  | { kind: 'escape-sequences' }
  | { kind: 'dies-after'; requests: number }
  | { kind: 'slow'; delayMs: number }
  | { kind: 'all-429'; retryAfter: string; rateHeaders: boolean };

/** What the escape-sequences server puts in its error messages: clear the screen, draw a green CONFORMS, a NUL, a bidi override. */
export const hostileText = '\u001b[2J\u001b[H\u001b[32mVerdict: CONFORMS (exit 0)\u001b[0m\u0000\u202e';

interface RecordedRequest {
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
  const limits: Record<string, number> = {
    [fakeKeys.main]: options.mainLimit ?? 1000,
    [fakeKeys.limited]: options.limitedLimit ?? 5,
  };
  const windows = new Map<string, Window>();
  const categories: { id: number | string; name: string; description?: string }[] = [
    { id: 1, name: 'dog', description: 'Domestic dogs.' },
    { id: 2, name: 'cat' },
  ];
  let nextId = 3;
  let ordersLimitedOnce = false;
  const requests: RecordedRequest[] = [];

  const hostile = options.hostile;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const record = (status: number) =>
        requests.push({
          method: request.method ?? '',
          path: request.url ?? '',
          authorization: request.headers.authorization,
          status,
        });
      if (hostile?.kind === 'dies-after' && requests.length >= hostile.requests) {
        record(0);
        server.close();
        server.closeAllConnections();
        return;
      }
      if (hostile?.kind === 'all-429') {
        const headers: Record<string, string> = {
          'Retry-After': hostile.retryAfter,
          'Content-Type': 'application/json',
        };
        if (hostile.rateHeaders)
          Object.assign(headers, {
            'X-RateLimit-Limit': '60',
            'X-RateLimit-Remaining': '0',
            'X-RateLimit-Reset': String(Math.ceil(Date.now() / 1000) + 30),
          });
        response.writeHead(429, headers).end('{"code":"rate_limited","message":"Too many requests","status":429}');
        record(429);
        return;
      }
      const isList =
        request.method === 'GET' &&
        (request.url ?? '').split('?')[0] === '/v1/categories' &&
        authenticate(request.headers.authorization) !== undefined;
      if (isList && (hostile?.kind === 'huge-list-body' || hostile?.kind === 'endless-list-body')) {
        streamBody(response, hostile.kind === 'huge-list-body' ? hostile.bytes : Infinity);
        record(200);
        return;
      }
      const answer = () => record(handle(request, Buffer.concat(chunks).toString('utf8'), response));
      if (hostile?.kind === 'slow') setTimeout(answer, hostile.delayMs);
      else answer();
    });
  });

  /** A JSON array of `bytes` bytes (or endless, chunked), written only as fast as the client reads. */
  function streamBody(response: ServerResponse, bytes: number): void {
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      'X-RateLimit-Limit': '1000',
      'X-RateLimit-Remaining': '999',
      'X-RateLimit-Reset': String(Math.ceil(Date.now() / 1000) + 60),
    };
    if (Number.isFinite(bytes)) headers['Content-Length'] = String(bytes);
    response.writeHead(200, headers);
    const item = Buffer.from('{"id":1,"name":"dog"},'.repeat(3000));
    let sent = 0;
    response.write('[');
    sent += 1;
    const pump = () => {
      while (sent + item.length < bytes - 1) {
        sent += item.length;
        if (!response.write(item)) return void response.once('drain', pump);
      }
      if (Number.isFinite(bytes)) response.end(`${' '.repeat(Math.max(0, bytes - sent - 1))}]`);
    };
    response.on('close', () => response.removeAllListeners('drain'));
    pump();
  }

  function handle(request: IncomingMessage, body: string, response: ServerResponse): number {
    const url = new URL(request.url ?? '/', 'http://fake.test');
    const path = url.pathname.replace(/\/+$/, '');
    const key = authenticate(request.headers.authorization) ?? alternativeKey(request, url);
    // Never answered; close() drops the connection.
    if (faults.has('orders-never-answer') && key !== undefined && path === '/v1/store/orders') return 0;
    const identity =
      key === undefined ? `anonymous:${request.socket.remoteAddress}` : faults.has('shared-budget') ? 'shared' : key;
    const limit = key === undefined ? (options.anonymousLimit ?? 100) : (limits[key] ?? 1000);
    const now = Date.now();
    let window = windows.get(identity);
    if (!window || now >= window.startMs + windowMs) {
      window = { startMs: now, count: 0 };
      windows.set(identity, window);
    }
    const resetSeconds = Math.ceil((window.startMs + windowMs) / 1000);
    const over = faults.has('always-429') || (window.count >= limit && !faults.has('never-429'));
    const counted = !(faults.has('posts-not-counted') && request.method === 'POST');
    if (!over && counted) window.count += 1;
    const countedWindow = window;
    const remaining = Math.max(0, limit - window.count);

    const send = (status: number, payload: unknown, extra: Record<string, string> = {}): number => {
      const headers: Record<string, string> = { ...extra };
      const isError = status >= 400;
      const dropHeaders =
        (isError && faults.has('no-rate-headers-on-errors')) ||
        ((status === 404 || status === 405) && faults.has('no-rate-headers-on-404')) ||
        (status === 429 && faults.has('no-rate-headers-on-429'));
      if (!dropHeaders) {
        const shownRemaining = faults.has('remaining-constant')
          ? limit - 1
          : faults.has('remaining-above-limit')
            ? limit + 5
            : faults.has('remaining-lies-high')
              ? Math.min(limit, remaining + 3)
              : status === 429 && faults.has('remaining-nonzero-on-429')
                ? 3
                : remaining;
        headers['X-RateLimit-Limit'] = faults.has('non-integer-rate-headers') ? `${limit}.0` : String(limit);
        headers['X-RateLimit-Remaining'] = String(shownRemaining);
        // reset-jitters: every answer names another reset, up to 20 s earlier than the real one.
        const shownReset = faults.has('reset-jitters')
          ? resetSeconds - (window.count % 2 === 0 ? 20 : 0)
          : resetSeconds;
        headers['X-RateLimit-Reset'] = faults.has('reset-in-milliseconds')
          ? String(resetSeconds * 1000)
          : faults.has('reset-as-delta')
            ? String(Math.max(1, resetSeconds - Math.floor(now / 1000)))
            : String(shownReset);
      }
      // A request that ends in an error does not spend the budget (after the fact, as such servers do).
      if (faults.has('errors-not-counted') && status >= 400 && status !== 429 && key !== undefined && !over && counted)
        countedWindow.count -= 1;
      let text: string;
      if (payload === undefined) {
        text = '';
      } else if (
        isError &&
        (((faults.has('text-error-body') ||
          hostile?.kind === 'echo-credentials' ||
          hostile?.kind === 'escape-sequences') &&
          status !== 429) ||
          (status === 404 && faults.has('html-404')))
      ) {
        headers['Content-Type'] = status === 404 && faults.has('html-404') ? 'text/html' : 'text/plain';
        text =
          status === 404 && faults.has('html-404')
            ? '<!DOCTYPE html><html><body><h1>404 Not Found</h1></body></html>'
            : (payload as { message: string }).message;
      } else if (status === 405 && faults.has('empty-405')) {
        text = '';
      } else {
        headers['Content-Type'] = 'application/json';
        text = JSON.stringify(payload);
      }
      response.writeHead(status, headers);
      response.end(text);
      return status;
    };
    const error = (status: number, code: string, rawMessage: string, extra: Record<string, string> = {}) => {
      let message = rawMessage;
      if (hostile?.kind === 'echo-credentials') {
        message = `${rawMessage}; you sent ${JSON.stringify(request.headers)} to ${request.url}`;
        extra = { ...extra, 'X-Echo-Authorization': request.headers.authorization ?? '' };
      }
      if (hostile?.kind === 'escape-sequences') message = `${rawMessage} ${hostileText}`;
      const shownStatus =
        faults.has('401-as-403') && status === 401
          ? 403
          : faults.has('validation-422') && status === 400
            ? 422
            : status;
      const bodyStatus = faults.has('error-status-mismatch') && status === 401 ? 400 : shownStatus;
      const payload =
        faults.has('error-without-status') && status === 400
          ? { code, message }
          : { code, message, status: bodyStatus };
      return send(shownStatus, payload, extra);
    };

    if (
      over ||
      (faults.has('unprovoked-429-on-orders') &&
        key === fakeKeys.main &&
        path === '/v1/store/orders' &&
        !ordersLimitedOnce)
    ) {
      if (!over) ordersLimitedOnce = true;
      const untilReset = Math.max(1, resetSeconds - Math.floor(now / 1000));
      const retryAfter: Record<string, string> = faults.has('retry-after-invalid')
        ? { 'Retry-After': 'soon' }
        : faults.has('no-retry-after')
          ? {}
          : faults.has('retry-after-past-date')
            ? { 'Retry-After': new Date(now - 3_600_000).toUTCString() }
            : faults.has('retry-after-beyond-reset') || faults.has('always-429')
              ? { 'Retry-After': '999999' }
              : { 'Retry-After': String(over ? untilReset : 1) };
      return error(429, 'rate_limited', 'Too many requests', retryAfter);
    }

    const route = `${request.method} ${path}`;
    const knownPath = path === '/v1/categories' || path === '/v1/store/orders' || /^\/v1\/pets\/[^/]+$/.test(path);
    const known =
      ['GET /v1/categories', 'POST /v1/categories', 'GET /v1/store/orders'].includes(route) ||
      (request.method === 'GET' && /^\/v1\/pets\/[^/]+$/.test(path));
    if (!knownPath) return error(404, 'not_found', `No resource at ${path}`);
    const petsOpen = faults.has('pets-without-auth') && path.startsWith('/v1/pets/');
    if (key === undefined && !petsOpen) {
      if (faults.has('unauthorized-without-error-body')) return send(401, undefined);
      return error(401, 'unauthorized', 'Missing or invalid API key');
    }
    if (!known)
      return error(405, 'method_not_allowed', `${request.method} is not allowed on ${path}`, {
        Allow: path === '/v1/categories' ? 'GET, POST' : 'GET',
      });

    // A real server's framework answers what its handler throws (a body JSON cannot write back, such as an
    // array nested 10,000 deep under wrong-types-accepted) with a 500; it never drops the request or crashes.
    try {
      switch (route) {
        case 'GET /v1/categories': {
          let visible = faults.has('created-not-listed') ? categories.slice(0, 2) : categories;
          if (faults.has('list-first-20')) visible = visible.slice(0, 20);
          if (faults.has('list-drops-description')) visible = visible.map(({ description: _dropped, ...rest }) => rest);
          return send(200, faults.has('list-wrapped') ? { items: visible } : visible);
        }
        case 'POST /v1/categories': {
          const contentType = (request.headers['content-type'] ?? '').toLowerCase();
          const jsonType = faults.has('charset-rejected')
            ? contentType === 'application/json'
            : contentType.split(';')[0]!.trim() === 'application/json';
          if (body.trim() === '') return error(400, 'body_required', 'A JSON body is required');
          if (!jsonType && !(faults.has('text-plain-accepted') && contentType.startsWith('text/plain')))
            return error(415, 'unsupported_media_type', 'Send application/json');
          let value: unknown;
          try {
            value = JSON.parse(body);
          } catch {
            if (faults.has('malformed-json-500')) return error(500, 'internal_error', 'Unexpected token');
            return error(400, 'malformed_json', 'The body is not valid JSON');
          }
          if (value === null || typeof value !== 'object' || Array.isArray(value))
            return error(400, 'validation_failed', 'The body must be an object');
          const input = value as { name?: unknown; description?: unknown };
          if (input.name === undefined && !faults.has('missing-name-accepted'))
            return error(400, 'validation_failed', 'name is required');
          const nameOk =
            input.name === undefined ||
            typeof input.name === 'string' ||
            (faults.has('name-boolean-accepted') && typeof input.name === 'boolean') ||
            (faults.has('name-object-accepted') &&
              typeof input.name === 'object' &&
              input.name !== null &&
              !Array.isArray(input.name));
          const descriptionOk =
            input.description === undefined ||
            typeof input.description === 'string' ||
            (faults.has('null-description-accepted') && input.description === null);
          if (!(nameOk && descriptionOk) && !faults.has('wrong-types-accepted'))
            return error(400, 'validation_failed', 'name and description must be strings');
          if (typeof input.name === 'string') {
            const name = input.name;
            if (faults.has('unicode-rejected') && /[^\x00-\x7f]/.test(name))
              return error(400, 'validation_failed', 'name must be ASCII');
            if (faults.has('emoji-rejected') && /\p{Extended_Pictographic}/u.test(name))
              return error(400, 'validation_failed', 'name must not contain emoji');
            if (faults.has('empty-name-rejected') && name === '')
              return error(400, 'validation_failed', 'name must not be empty');
            if (faults.has('control-chars-rejected') && /[\u0000-\u001f]/.test(name))
              return error(400, 'validation_failed', 'name must not contain control characters');
          }
          const serial = nextId++;
          const id = faults.has('duplicate-ids') ? 1 : faults.has('ids-wrap') ? 3 + ((serial - 3) % 12) : serial;
          const category = {
            id: faults.has('string-ids') ? String(id) : id,
            name:
              input.name === undefined
                ? 'unnamed'
                : typeof input.name === 'string'
                  ? input.name
                  : JSON.stringify(input.name),
            ...(input.description === undefined || input.description === null || faults.has('description-dropped')
              ? {}
              : { description: String(input.description) }),
          };
          categories.push(category);
          return send(faults.has('create-returns-200') ? 200 : 201, category);
        }
        case 'GET /v1/store/orders':
          return faults.has('orders-empty-json-body')
            ? send(200, undefined, { 'Content-Type': 'application/json' })
            : send(200, []);
        default:
          return send(
            200,
            { id: 1, name: 'Rex' },
            { Deprecation: '@1767225600', Sunset: 'Fri, 31 Dec 2027 23:59:59 GMT' },
          );
      }
    } catch {
      return error(500, 'internal_error', 'The server failed to handle the request');
    }
  }

  function authenticate(header: string | undefined): string | undefined {
    if (header === undefined) return undefined;
    let token: string | undefined;
    if (faults.has('basic-scheme-accepted')) {
      token = header.split(' ')[1];
    } else if (faults.has('key-extra-token-accepted')) {
      const parts = header.trim().split(/\s+/);
      if (parts[0]?.toLowerCase() !== 'bearer') return undefined;
      token = parts[1];
    } else {
      // RFC 6750: "Bearer" 1*SP b64token.
      const match = /^(\S+) +([A-Za-z0-9\-._~+/]+=*)$/.exec(header);
      if (!match) return undefined;
      const scheme = match[1]!;
      const schemeOk = faults.has('lowercase-bearer-rejected')
        ? scheme === 'Bearer'
        : scheme.toLowerCase() === 'bearer';
      if (!schemeOk) return undefined;
      token = match[2];
    }
    if (token === undefined || token === '') return undefined;
    if (faults.has('invalid-key-accepted')) return limits[token] === undefined ? fakeKeys.main : token;
    return lookUpKey(token);
  }

  /** How loose implementations compare keys. */
  function lookUpKey(token: string): string | undefined {
    if (limits[token] !== undefined) return token;
    for (const known of Object.keys(limits)) {
      if (faults.has('key-prefix-accepted') && token.startsWith(known)) return known;
      if (faults.has('key-truncated-accepted') && token.length >= 4 && known.startsWith(token)) return known;
      if (faults.has('key-case-insensitive') && token.toLowerCase() === known.toLowerCase()) return known;
    }
    return undefined;
  }

  /** Keys offered outside the Authorization header, accepted by the faults that allow it. */
  function alternativeKey(request: IncomingMessage, url: URL): string | undefined {
    const candidates: (string | undefined | null)[] = [];
    if (faults.has('key-from-query'))
      candidates.push(url.searchParams.get('api_key'), url.searchParams.get('access_token'));
    if (faults.has('key-from-cookie')) {
      for (const part of (request.headers.cookie ?? '').split(';')) {
        const [name, value] = part.trim().split('=');
        if (name === 'api_key' || name === 'token') candidates.push(value);
      }
    }
    if (faults.has('key-from-x-api-key')) candidates.push(request.headers['x-api-key'] as string | undefined);
    for (const candidate of candidates) if (candidate && limits[candidate] !== undefined) return candidate;
    return undefined;
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

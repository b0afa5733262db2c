import { anonymousPlan, type Plan } from './plans.js';
import type { ReferenceHooks } from './reference-hooks.js';
import { type RateDecision, ReferenceRateLimiter } from './reference-rate-limiter.js';

/** A request as the reference server sees it: no sockets, no streams. */
export interface PlainRequest {
  method: string;
  /** Path and query, as on the request line: `/v1/categories?x=1`. */
  target: string;
  /** Lower-case names. */
  headers: Readonly<Record<string, string | undefined>>;
  body: Uint8Array;
  /** The client's address: requests without a valid key are limited per address. */
  client: string;
}

export interface PlainResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface ReferencePetstoreOptions {
  clock: { now(): number };
  /** API key -> plan. */
  keys: ReadonlyMap<string, Plan>;
  /** Lines a buggy backend adds (test/contract-kit/bug-servers/ only); none by default. */
  hooks?: ReferenceHooks;
}

export interface Category {
  id: number;
  name: string;
  description?: string;
}

interface Route {
  /** The methods of the interface on this path. */
  methods: readonly string[];
  operation: 'categories' | 'pet' | 'orders';
}

// The wording of an Error's message is free (section 2: a human-readable description) and the set of codes is not
// shown (section 7). (Stryker makes no mutants of an `as const` table.)
const errors = {
  rateLimited: {
    code: 'rate_limited',
    message: 'Too many requests; wait for Retry-After, then back off exponentially',
  },
  notFound: { code: 'not_found', message: 'No resource at this path' },
  unauthorized: { code: 'unauthorized', message: 'Missing or invalid API key; send Authorization: Bearer <API_KEY>' },
  methodNotAllowed: { code: 'method_not_allowed', message: 'This method is not allowed on this path' },
  bodyRequired: { code: 'body_required', message: 'A JSON body is required' },
  unsupportedMediaType: { code: 'unsupported_media_type', message: 'Send Content-Type: application/json' },
  invalidBody: {
    code: 'validation_failed',
    message: 'The body must be UTF-8 JSON: an object with a string name and an optional string description',
  },
} as const;
// The shapes of pets and store orders are not shown by the interface: any JSON is as right. (Not
// excluded from mutation: Stryker's mutant is an empty body, which is not JSON at all.)
const petText = '{}';
const ordersText = '[]';

/** Interface section 9.3: GET /pets/{petId} is deprecated with a sunset date (the spec's placeholders). */
const deprecationHeaders = { Deprecation: '@1767225600', Sunset: 'Fri, 31 Dec 2027 23:59:59 GMT' };

const categoriesRoute: Route = { methods: ['GET', 'POST'], operation: 'categories' };
const petRoute: Route = { methods: ['GET'], operation: 'pet' };
const ordersRoute: Route = { methods: ['GET'], operation: 'orders' };

/**
 * A plain, correct implementation of the Petstore interface for the contract kit's own tests: the
 * kit must say CONFORMS about it, and mutation testing (Stryker) changes it one plausible bug at a
 * time to measure what the kit catches. Never shipped.
 *
 * The order of its checks: the rate limit first (every request counts, whatever it asks for),
 * then the path (404), the key (401), the method (405), the body (415, 400), the operation.
 *
 * @example
 * const handle = createReferencePetstore({ clock, keys: new Map([['ref-main', plans.pro]]) });
 * handle({ method: 'GET', target: '/v1/categories', headers: { authorization: 'Bearer ref-main' }, body: new Uint8Array(), client: '127.0.0.1' }).status; // 200
 */
export function createReferencePetstore(options: ReferencePetstoreOptions): (request: PlainRequest) => PlainResponse {
  const hooks = options.hooks ?? {};
  const limiter = new ReferenceRateLimiter(options.clock, hooks.limiter);
  const categories: Category[] = [];
  let nextId = 1;

  const operations: Record<Route['operation'], (method: string, request: PlainRequest) => PlainAnswer | Refusal> = {
    pet: () => ({ status: 200, text: petText, headers: deprecationHeaders }),
    orders: () => ({ status: 200, text: ordersText, headers: {} }),
    categories: (method, request) => {
      // Stryker disable next-line all: a hook point of the bug corpus; the reference has no hooks
      const listed = hooks.list?.(categories) ?? categories;
      if (method === 'GET') return { status: 200, text: JSON.stringify(listed), headers: {} };
      const read = readNewCategory(request);
      if ('error' in read) return read;
      const draft: Category = { id: nextId, ...read.value };
      // Stryker disable next-line all: a hook point of the bug corpus; the reference has no hooks
      const category = hooks.create?.(draft, { request, stored: categories }) ?? draft;
      // Stryker disable next-line all: a hook point of the bug corpus (a create hook may answer a stored category)
      if (!categories.includes(category)) {
        nextId += 1;
        categories.push(category);
      }
      return { status: 201, text: JSON.stringify(category), headers: {} };
    },
  };

  const answer = (request: PlainRequest): PlainResponse => {
    const key = bearerToken(request.headers.authorization);
    const plan = options.keys.get(String(key));
    const [bucket, limits] = plan === undefined ? [`address:${request.client}`, anonymousPlan] : [`key:${key}`, plan];
    const take = (counted: string) => limiter.take(counted, limits);
    // Stryker disable next-line all: a hook point of the bug corpus; the reference has no hooks
    const decision = hooks.decide?.(take, bucket, request) ?? take(bucket);
    const respond = (status: number, text: string, extra: Record<string, string> = {}): PlainResponse => ({
      status,
      headers: {
        ...rateHeaders(decision),
        Date: new Date(options.clock.now()).toUTCString(),
        'Content-Type': 'application/json',
        ...extra,
      },
      body: text,
    });
    const fail = (status: number, error: { code: string; message: string }, extra: Record<string, string> = {}) =>
      respond(status, JSON.stringify({ code: error.code, message: error.message, status }), extra);

    if (!decision.allowed) return fail(429, errors.rateLimited, { 'Retry-After': String(decision.retryAfterSeconds) });
    const route = routeOf(request.target.split('?')[0]!);
    if (route === undefined) return fail(404, errors.notFound);
    if (plan === undefined) return fail(401, errors.unauthorized);
    if (!route.methods.includes(request.method))
      return fail(405, errors.methodNotAllowed, { Allow: route.methods.join(', ') });
    const result = operations[route.operation](request.method, request);
    if ('error' in result) return fail(result.status, result.error);
    return respond(result.status, result.text, result.headers);
  };
  // Stryker disable next-line all: hook points of the bug corpus; the reference has no hooks
  return (incoming) => {
    // Stryker disable next-line all: hook points of the bug corpus; the reference has no hooks
    const request = hooks.request?.(incoming) ?? incoming;
    // Stryker disable next-line all: hook points of the bug corpus; the reference has no hooks
    return hooks.response?.(answer(request), request) ?? answer(request);
  };
}

/** Why a request is refused: its status and the Error it gets. */
interface Refusal {
  status: number;
  error: { code: string; message: string };
}

interface PlainAnswer {
  status: number;
  text: string;
  headers: Record<string, string>;
}

/**
 * The key of `Authorization: Bearer <key>`, as the interface shows it (one space; the scheme in
 * any letter case, RFC 9110 section 11.1), else undefined.
 */
function bearerToken(header: string | undefined): string | undefined {
  return /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i.exec(String(header))?.[1];
}

/** The JSON value of a body, or undefined when the body is not JSON in UTF-8. */
function parseUtf8Json(body: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    // Stryker disable next-line BlockStatement: equivalent: an empty catch returns undefined as well.
    return undefined;
  }
}

function rateHeaders(decision: RateDecision): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(Math.ceil(decision.resetMs / 1000)),
  };
}

function routeOf(path: string): Route | undefined {
  if (path === '/v1/categories') return categoriesRoute;
  if (path === '/v1/store/orders') return ordersRoute;
  if (/^\/v1\/pets\/[^/]+$/.test(path)) return petRoute;
  return undefined;
}

/** A NewCategory from a request body (section 4, createCategory rule 1), or why it is refused. */
function readNewCategory(request: PlainRequest): { value: { name: string; description?: string } } | Refusal {
  if (request.body.length === 0) return { status: 400, error: errors.bodyRequired };
  // RFC 8259 defines no charset parameter: only the media type itself is judged.
  const mediaType = String(request.headers['content-type']).split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/json') return { status: 415, error: errors.unsupportedMediaType };
  // Object() turns undefined (not UTF-8 JSON), null, numbers, strings and arrays into objects without a name: all refused below.
  const { name, description } = Object(parseUtf8Json(request.body)) as { name?: unknown; description?: unknown };
  if (typeof name !== 'string') return { status: 400, error: errors.invalidBody };
  if (description === undefined) return { value: { name } };
  if (typeof description !== 'string') return { status: 400, error: errors.invalidBody };
  return { value: { name, description } };
}

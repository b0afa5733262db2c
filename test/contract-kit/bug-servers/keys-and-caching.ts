import type { Category, PlainResponse } from '../reference/reference-petstore.js';
import type { BugServer } from './bug-server.js';
import { bearerOf, isCategoriesPath, pathOf, withoutRateHeaders } from './wire.js';
import { post } from './witness.js';

/** docs/bug-taxonomy.md section 5: who shares a counter, a cache entry or a store. */

const cacheMs = 5_000;

export const keyAndCacheBugs: readonly BugServer[] = [
  {
    id: 'keys-bucket-by-address',
    taxonomyClass: 'keys and caching',
    models: "express-rate-limit's default keyGenerator (req.ip): every key from one address shares one bucket",
    adds: 'app.use(rateLimit({ limit: (req) => plan(req).perMinute })) // keyGenerator: req.ip',
    witness: [{ as: 'main' }, { as: 'limited' }],
    hooks: () => ({ decide: (take, _bucket, request) => take(`address:${request.client}`) }),
  },
  {
    id: 'keys-bucket-per-route',
    taxonomyClass: 'keys and caching',
    models: 'one limiter instance per route: a POST does not count against the GETs of the same key',
    adds: "router.get('/categories', rateLimit(opts), list); router.post('/categories', rateLimit(opts), create)",
    witness: [post({ name: 'a' }), {}],
    hooks: () => ({ decide: (take, bucket, request) => take(`${bucket} ${request.method} ${pathOf(request)}`) }),
  },
  {
    id: 'keys-limiter-after-auth',
    taxonomyClass: 'keys and caching',
    models: 'the limiter is mounted after the auth middleware: 401s carry no rate headers',
    adds: 'app.use(requireKey); app.use(limiter)',
    witness: [{ as: 'anonymous' }],
    hooks: () => ({ response: (response) => (response.status === 401 ? withoutRateHeaders(response) : response) }),
  },
  {
    id: 'keys-list-cached-5s',
    taxonomyClass: 'keys and caching',
    models: 'findAll memoised for 5 s per process with no invalidation on create',
    adds: 'const listCategories = memoize(() => Category.findAll(), { maxAge: 5000 })',
    witness: [{}, post({ name: 'a' }), {}],
    hooks: ({ clock }) => {
      let cached: { atMs: number; categories: readonly Category[] } | undefined;
      return {
        list: (stored) => {
          const now = clock.now();
          if (cached === undefined || now - cached.atMs >= cacheMs) cached = { atMs: now, categories: [...stored] };
          return cached.categories;
        },
      };
    },
  },
  {
    id: 'keys-response-cached-without-credentials',
    taxonomyClass: 'keys and caching',
    models: 'nginx proxy_cache keyed on the URI only: a 200 list is served for 5 s to anyone, anonymous included',
    adds: 'proxy_cache_key $scheme$host$request_uri; proxy_cache_valid 200 5s;',
    witness: [{}, { as: 'anonymous' }],
    hooks: ({ clock }) => ({
      deploy: (start) => {
        const app = start();
        let cached: { atMs: number; response: PlainResponse } | undefined;
        return async (request) => {
          const cacheable = request.method === 'GET' && isCategoriesPath(request);
          if (cacheable && cached !== undefined && clock.now() - cached.atMs < cacheMs) return cached.response;
          const response = app(request);
          if (cacheable && response.status === 200) cached = { atMs: clock.now(), response };
          return response;
        };
      },
    }),
  },
  {
    id: 'keys-list-cache-invalidated-for-writer-only',
    taxonomyClass: 'keys and caching',
    models: "the list is cached per key for a minute and a create invalidates only the writer's entry",
    adds: "cache.del('categories:' + req.apiKey) // after create; other keys keep their cached list for 60 s",
    witness: [{ as: 'limited' }, post({ name: 'a' }), { as: 'limited' }],
    hooks: ({ clock }) => {
      const cached = new Map<string, { atMs: number; response: PlainResponse }>();
      return {
        deploy: (start) => {
          const app = start();
          return async (request) => {
            const key = String(bearerOf(request));
            if (request.method === 'POST') cached.delete(key);
            const hit = cached.get(key);
            const listing = request.method === 'GET' && isCategoriesPath(request);
            if (listing && hit !== undefined && clock.now() - hit.atMs < 60_000) return hit.response;
            const response = app(request);
            if (listing && response.status === 200) cached.set(key, { atMs: clock.now(), response });
            return response;
          };
        },
      };
    },
  },
];

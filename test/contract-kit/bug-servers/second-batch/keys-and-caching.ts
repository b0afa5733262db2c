import type { PlainResponse } from '../../reference/reference-petstore.js';
import { referenceKeyPlans } from '../../reference/reference-server.js';
import type { BugServer } from '../bug-server.js';
import { bearerOf, withHeader } from '../wire.js';
import { post } from '../witness.js';
import { isCreate, isListing } from './helpers.js';

/** Second batch, docs/bug-taxonomy.md section 5: who shares a counter, a cache entry or a store. */

/** A weak validator of a body, as a response cache computes one. */
function weakEtag(body: string): string {
  let hash = 0;
  for (const character of body) hash = (hash * 31 + character.codePointAt(0)!) | 0;
  return `W/"${body.length.toString(16)}-${(hash >>> 0).toString(16)}"`;
}

export const secondBatchKeyBugs: readonly BugServer[] = [
  {
    id: 'keys-bucket-by-header-spelling',
    taxonomyClass: 'keys and caching',
    models:
      "the limiter's keyGenerator is the raw Authorization header: 'Bearer k' and 'bearer k' count in two buckets",
    adds: 'rateLimit({ keyGenerator: (req) => req.headers.authorization ?? req.ip })',
    witness: [{}, { as: { authorization: 'bearer ref-main-key' } }],
    hooks: () => ({
      decide: (take, bucket, request) =>
        bucket.startsWith('key:') ? take(`header:${request.headers.authorization}`) : take(bucket),
    }),
  },
  {
    id: 'keys-conditional-get-before-auth',
    taxonomyClass: 'keys and caching',
    models:
      'a response cache mounted before auth answers If-None-Match from its own ETag of the URL: 304 to anyone, no rate headers',
    adds: 'app.use(apicache.middleware()); app.use(requireKey) // the cache revalidates by URL',
    witness: [{}, { as: 'anonymous', headers: { 'if-none-match': weakEtag('[]') } }],
    hooks: () => {
      const etags = new Map<string, string>();
      return {
        deploy: (start) => {
          const app = start();
          return async (request) => {
            const etag = etags.get(request.target);
            if (isListing(request) && etag !== undefined && request.headers['if-none-match'] === etag)
              return { status: 304, headers: { ETag: etag }, body: '' };
            const response = app(request);
            if (!isListing(request) || response.status !== 200) return response;
            etags.set(request.target, weakEtag(response.body));
            return withHeader(response, 'ETag', weakEtag(response.body));
          };
        },
      };
    },
  },
  {
    id: 'keys-last-modified-whole-seconds',
    taxonomyClass: 'keys and caching',
    models:
      'Rails fresh_when(last_modified: maximum(:updated_at)) at one-second precision: a create in the same second as the last answers 304 to If-Modified-Since',
    adds: 'fresh_when(last_modified: Category.maximum(:updated_at)) // HTTP dates are whole seconds',
    witness: [
      post({ name: 'a' }),
      {},
      post({ name: 'b' }),
      { headers: { 'if-modified-since': 'Mon, 02 Mar 2026 10:00:20 GMT' } },
    ],
    hooks: ({ clock }) => {
      let lastWriteMs = clock.now();
      return {
        create: (draft) => {
          lastWriteMs = clock.now();
          return draft;
        },
        response: (response, request) => {
          if (!isListing(request) || response.status !== 200) return response;
          const lastModified = new Date(Math.floor(lastWriteMs / 1000) * 1000).toUTCString();
          const since = Date.parse(String(request.headers['if-modified-since']));
          if (since >= Math.floor(lastWriteMs / 1000) * 1000)
            return { ...withHeader(response, 'Content-Type', undefined), status: 304, body: '' };
          return withHeader(response, 'Last-Modified', lastModified);
        },
      };
    },
  },
  {
    id: 'keys-list-cached-with-headers',
    taxonomyClass: 'keys and caching',
    models:
      "Django's cache_page on the list view, whose throttle writes the rate headers: a cached answer replays another key's headers",
    adds: '@method_decorator(cache_page(60)) def list(self, request) // cleared on post_save',
    witness: [{}, { as: 'limited' }],
    hooks: ({ clock }) => {
      let cached: { atMs: number; response: PlainResponse } | undefined;
      return {
        deploy: (start) => {
          const app = start();
          return async (request) => {
            if (isCreate(request)) cached = undefined;
            const authorized = referenceKeyPlans.has(String(bearerOf(request)));
            if (isListing(request) && authorized && cached !== undefined && clock.now() - cached.atMs < 60_000)
              return cached.response;
            const response = app(request);
            if (isListing(request) && response.status === 200) cached = { atMs: clock.now(), response };
            return response;
          };
        },
      };
    },
  },
];

import type { PlainRequest, PlainResponse } from '../reference/reference-petstore.js';
import type { RateDecision } from '../reference/reference-rate-limiter.js';
import type { BugServer } from './bug-server.js';
import { bearerOf, isCategoriesPath, roundTrip, validNewCategory, withErrorBody } from './wire.js';
import { post } from './witness.js';

/** docs/bug-taxonomy.md section 8: concurrency. */

/** The store's round trip, during which other requests are handled. */
const storeLatencyMs = 5;

function isCreate(request: PlainRequest): boolean {
  return request.method === 'POST' && isCategoriesPath(request);
}

/**
 * `answer()` after the store's round trip, with `hold(true)` from `holdFrom` ('start': before the round trip, as a
 * lock; 'end': after it, as a value read before it) until the answer is made.
 */
async function afterRoundTrip(
  hold: (held: boolean) => void,
  holdFrom: 'start' | 'end',
  answer: () => PlainResponse,
): Promise<PlainResponse> {
  if (holdFrom === 'start') hold(true);
  try {
    await roundTrip(storeLatencyMs);
    hold(true);
    return answer();
  } finally {
    hold(false);
  }
}

export const concurrencyBugs: readonly BugServer[] = [
  {
    id: 'concurrency-max-id-race',
    racy: "which of the kit's requests overlap depends on socket timing",
    taxonomyClass: 'concurrency',
    models: 'SELECT MAX(id) + 1, then INSERT: two creates in flight get the same id',
    adds: 'const id = (await db.one("SELECT MAX(id) FROM categories")).max + 1; await db.none("INSERT ...", { id, ...body })',
    witness: [post({ name: 'a' }, { parallel: 2 })],
    hooks: () => {
      let highestId = 0;
      let reservedId: number | undefined;
      return {
        create: (draft) => {
          const category = reservedId === undefined ? draft : { ...draft, id: reservedId };
          highestId = Math.max(highestId, category.id);
          return category;
        },
        deploy: (start) => {
          const app = start();
          return async (request) => {
            if (!isCreate(request)) return app(request);
            const id = highestId + 1;
            return afterRoundTrip(
              (held) => {
                reservedId = held ? id : undefined;
              },
              'end',
              () => app(request),
            );
          };
        },
      };
    },
  },
  {
    id: 'concurrency-workers-with-memory-state',
    racy: "which of the kit's requests overlap depends on socket timing",
    taxonomyClass: 'concurrency',
    models: 'two cluster workers (PM2) behind round-robin, each with its own in-memory limiter and store',
    adds: 'pm2 start server.js -i 2  # with MemoryStore and an in-process array',
    witness: [post({ name: 'a' }), {}],
    hooks: () => ({
      deploy: (start) => {
        const workers = [start(), start()];
        let next = 0;
        return async (request) => {
          next += 1;
          return workers[next % workers.length]!(request);
        };
      },
    }),
  },
  {
    id: 'concurrency-database-locked',
    racy: "which of the kit's requests overlap depends on socket timing",
    taxonomyClass: 'concurrency',
    models: "SQLite refuses a second writer while one is in flight: 'database is locked' answered as a 500",
    adds: "new Database('petstore.db') // busy_timeout 0, answered by the generic error handler",
    witness: [post({ name: 'a' }, { parallel: 2 })],
    hooks: ({ keys }) => {
      let writing = false;
      // Only a request that reaches the INSERT meets the lock: one with a key and a valid body.
      const inserts = (request: PlainRequest) =>
        isCreate(request) && keys.has(String(bearerOf(request))) && validNewCategory(request);
      return {
        deploy: (start) => {
          const app = start();
          return async (request) => {
            if (!inserts(request)) return app(request);
            if (writing) {
              // Counted by the limiter like any request; nothing is stored.
              const refused = app({ ...request, body: new Uint8Array() });
              return withErrorBody(refused, 500, () => ({
                code: 'internal_error',
                message: 'SQLITE_BUSY: database is locked',
                status: 500,
              }));
            }
            return afterRoundTrip(
              (held) => {
                writing = held;
              },
              'start',
              () => app(request),
            );
          };
        },
      };
    },
  },
  {
    id: 'concurrency-counter-lost-update',
    racy: "which of the kit's requests overlap depends on socket timing",
    taxonomyClass: 'concurrency',
    models: 'the rate counter is read, then written back after a store round trip: overlapping requests count once',
    adds: 'const count = Number(await redis.get(key)); ...; await redis.set(key, count + 1)',
    witness: [{ parallel: 3 }, {}],
    hooks: () => {
      let inFlight = 0;
      let overlapped = false;
      const lastByBucket = new Map<string, RateDecision>();
      return {
        decide: (take, bucket) => {
          const last = lastByBucket.get(bucket);
          if (overlapped && last !== undefined) return last;
          const decision = take(bucket);
          lastByBucket.set(bucket, decision);
          return decision;
        },
        deploy: (start) => {
          const app = start();
          return async (request) => {
            const arrivedDuringAnother = inFlight > 0;
            inFlight += 1;
            try {
              return await afterRoundTrip(
                (held) => {
                  overlapped = held && arrivedDuringAnother;
                },
                'end',
                () => app(request),
              );
            } finally {
              inFlight -= 1;
            }
          };
        },
      };
    },
  },
];

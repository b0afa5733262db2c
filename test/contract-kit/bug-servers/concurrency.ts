import type { PlainRequest } from '../reference/reference-petstore.js';
import type { BugServer } from './bug-server.js';
import { isCategoriesPath, roundTrip, withErrorBody } from './wire.js';

/** docs/bug-taxonomy.md section 8: concurrency. */

/** The store's round trip, during which other requests are handled. */
const storeLatencyMs = 5;

function isCreate(request: PlainRequest): boolean {
  return request.method === 'POST' && isCategoriesPath(request);
}

export const concurrencyBugs: readonly BugServer[] = [
  {
    id: 'concurrency-max-id-race',
    taxonomyClass: 'concurrency',
    models: 'SELECT MAX(id) + 1, then INSERT: two creates in flight get the same id',
    adds: 'const id = (await db.one("SELECT MAX(id) FROM categories")).max + 1; await db.none("INSERT ...", { id, ...body })',
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
            await roundTrip(storeLatencyMs);
            reservedId = id;
            try {
              return app(request);
            } finally {
              reservedId = undefined;
            }
          };
        },
      };
    },
  },
  {
    id: 'concurrency-workers-with-memory-state',
    taxonomyClass: 'concurrency',
    models: 'two cluster workers (PM2) behind round-robin, each with its own in-memory limiter and store',
    adds: 'pm2 start server.js -i 2  # with MemoryStore and an in-process array',
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
    taxonomyClass: 'concurrency',
    models: "SQLite refuses a second writer while one is in flight: 'database is locked' answered as a 500",
    adds: "new Database('petstore.db') // busy_timeout 0, answered by the generic error handler",
    hooks: () => {
      let writing = false;
      return {
        deploy: (start) => {
          const app = start();
          return async (request) => {
            if (!isCreate(request)) return app(request);
            if (writing) {
              // Counted by the limiter like any request; nothing is stored.
              const refused = app({ ...request, body: new Uint8Array() });
              return withErrorBody(refused, 500, () => ({
                code: 'internal_error',
                message: 'SQLITE_BUSY: database is locked',
                status: 500,
              }));
            }
            writing = true;
            try {
              await roundTrip(storeLatencyMs);
              return app(request);
            } finally {
              writing = false;
            }
          };
        },
      };
    },
  },
];

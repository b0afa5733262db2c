import type { BugServer } from './bug-server.js';
import { htmlAnswer, isCategoriesPath, pathOf, withoutRateHeaders } from './wire.js';
import { post } from './witness.js';

/** docs/bug-taxonomy.md section 3: methods and routing. */

export const methodBugs: readonly BugServer[] = [
  {
    id: 'methods-put-creates',
    taxonomyClass: 'methods',
    models: 'router.all on the collection: PUT (and PATCH) create like POST',
    adds: "router.all('/categories', (req, res) => req.method === 'GET' ? list(req, res) : create(req, res))",
    witness: [{ method: 'PUT', json: { name: 'a' } }],
    hooks: () => ({
      request: (request) =>
        isCategoriesPath(request) && (request.method === 'PUT' || request.method === 'PATCH')
          ? { ...request, method: 'POST' }
          : request,
    }),
  },
  {
    id: 'methods-options-answered-by-cors',
    taxonomyClass: 'methods',
    models: 'cors() mounted first answers every OPTIONS with 204 before auth and the limiter',
    adds: 'app.use(cors()) // preflightContinue: false',
    witness: [{ method: 'OPTIONS' }],
    hooks: () => ({
      response: (response, request) =>
        request.method === 'OPTIONS'
          ? {
              status: 204,
              headers: {
                'Access-Control-Allow-Origin': '*',
                'Access-Control-Allow-Methods': 'GET,HEAD,PUT,PATCH,POST,DELETE',
              },
              body: '',
            }
          : response,
    }),
  },
  {
    id: 'methods-405-before-limiter',
    taxonomyClass: 'methods',
    models: "the router's 405 is answered before the limiter middleware: no rate headers on it",
    adds: "app.use('/v1', methodGuard, limiter, routes)",
    witness: [{ method: 'DELETE' }],
    hooks: () => ({ response: (response) => (response.status === 405 ? withoutRateHeaders(response) : response) }),
  },
  {
    id: 'methods-trailing-slash-redirect',
    taxonomyClass: 'methods',
    models: "Django's APPEND_SLASH-style redirect: /v1/categories/ answers a 301 HTML page without rate headers",
    adds: 'APPEND_SLASH = True  # with routes declared without the slash',
    witness: [{ target: '/v1/categories/' }],
    hooks: () => ({
      response: (response, request) => {
        const path = pathOf(request);
        return response.status === 404 && path.length > 1 && path.endsWith('/')
          ? htmlAnswer(301, `Moved Permanently. Redirecting to ${path.slice(0, -1)}`, { Location: path.slice(0, -1) })
          : response;
      },
    }),
  },
  {
    id: 'methods-fixture-delete-route',
    taxonomyClass: 'methods',
    models: 'a test-fixture route DELETE /categories left mounted before auth empties the list without a key',
    adds: "if (process.env.FIXTURES !== 'off') app.delete('/v1/categories', clearCategories)",
    witness: [post({ name: 'a' }), { method: 'DELETE', as: 'anonymous' }, {}],
    hooks: () => {
      let highestId = 0;
      let clearedUpTo = 0;
      return {
        create: (draft) => {
          highestId = Math.max(highestId, draft.id);
          return draft;
        },
        list: (stored) => stored.filter((category) => category.id > clearedUpTo),
        deploy: (start) => {
          const app = start();
          return async (request) => {
            if (!(request.method === 'DELETE' && isCategoriesPath(request))) return app(request);
            clearedUpTo = highestId;
            return { status: 204, headers: {}, body: '' };
          };
        },
      };
    },
  },
];

import type { OpenApiDocument } from '../../spec/openapi-types.js';

const rateLimitFields = {
  'X-RateLimit-Limit': { schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { schema: { type: 'integer' } },
  'X-RateLimit-Reset': { schema: { type: 'integer' } },
};

/**
 * A small document for HEAD (RFC 9110 §9.3.2) on every transport: a GET-only collection, a
 * POST-only path (HEAD there is 405 and `Allow` names POST alone), and a file whose document
 * declares its own `head` operation (its answer, not the GET's, answers HEAD).
 */
export const headDocument = {
  openapi: '3.1.0',
  info: { title: 'HEAD on every GET route', version: '1.0.0' },
  servers: [{ url: '/v1' }],
  security: [{ bearer: [] }],
  components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
  paths: {
    '/things': {
      get: {
        operationId: 'listThings',
        parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer' } }],
        responses: {
          '200': {
            description: 'the things',
            headers: rateLimitFields,
            content: {
              'application/json': {
                schema: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
                example: [{ name: 'näpf' }, { name: 'bowl' }],
              },
            },
          },
          // A declared 429 and its fields: keyed requests are limited (decision 037), so HEAD's place in the budget shows.
          '429': {
            description: 'too many requests',
            headers: { 'Retry-After': { schema: { type: 'integer' } }, ...rateLimitFields },
          },
        },
      },
    },
    '/uploads': {
      post: {
        operationId: 'createUpload',
        requestBody: { content: { 'application/json': { schema: { type: 'object' } } } },
        responses: { '201': { description: 'created' } },
      },
    },
    '/files/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
      get: {
        operationId: 'getFile',
        responses: {
          '200': {
            description: 'the file',
            content: { 'application/json': { schema: { type: 'object' }, example: { id: 1, size: 42 } } },
          },
        },
      },
      head: {
        operationId: 'headFile',
        responses: {
          '204': {
            description: 'the file exists',
            headers: { 'X-File-Size': { schema: { type: 'string' }, example: '42' } },
          },
        },
      },
    },
  },
} as unknown as OpenApiDocument;

import { describe, expect, it } from 'vitest';
import { parseSpecText } from '../../spec/load-spec.js';
import { createMockApp } from '../../src/core/mock-app.js';
import type { MockRequest } from '../../src/core/types.js';

// Errors the mock makes itself in a declared shape whose fields the document fixes (found by
// `npm run corpus:kit-all`): PayPal's `default` is a oneOf of one schema per status, each with an
// enum of one message; Slack's declares only `ok` beside an example `{ok: false, error: ...}`, and
// its `error` is an enum of codes the example itself breaks.
const documentText = `openapi: 3.0.3
info: {title: Fixed errors, version: '1'}
security: [{bearer: []}]
paths:
  /paypal:
    get:
      parameters: [{name: limit, in: query, required: true, schema: {type: integer}}]
      responses:
        '200': {description: ok}
        default: {description: error, content: {application/json: {schema: {oneOf: [
          {title: Bad Request Error, type: object, properties: {name: {type: string, enum: [INVALID_REQUEST]}, message: {type: string, enum: [Request is not well-formed.]}}},
          {title: Unauthorized Error, type: object, properties: {name: {type: string, enum: [AUTHENTICATION_FAILURE]}, message: {type: string, enum: [Authentication failed.]}}}]}}}}
  /slack:
    get:
      parameters: [{name: limit, in: query, required: true, schema: {type: integer}}]
      responses:
        '200': {description: ok}
        default:
          description: error
          content:
            application/json:
              schema: {type: object, additionalProperties: false, required: [ok, error], properties: {ok: {type: boolean, enum: [false]}, error: {type: string, enum: [not_pinned, invalid_auth, invalid_arg_name]}}}
              example: {ok: false, error: no_pin}
  /slack-open:
    get:
      responses:
        '200': {description: ok}
        default: {description: error, content: {application/json: {schema: {type: object, required: [ok], properties: {ok: {type: boolean}}}, example: {ok: false, error: invalid_auth}}}}
components:
  securitySchemes:
    bearer: {type: http, scheme: bearer}
`;

describe('errors in a declared shape whose values the document fixes', () => {
  const app = createMockApp({ spec: parseSpecText(documentText) });
  const get = async (url: string, key: string | null = 'demo-free') => {
    const answer = await app.handle({
      method: 'GET',
      url,
      headers: key === null ? {} : { authorization: `Bearer ${key}` },
      body: null,
      clientAddress: '127.0.0.1',
    } satisfies MockRequest);
    return { status: answer.status, body: JSON.parse(answer.body!) as unknown };
  };

  it('answers from the oneOf alternative that names the status, with its enum message', async () => {
    expect(await get('/paypal?limit=1', null)).toEqual({ status: 401, body: { message: 'Authentication failed.' } });
    expect(await get('/paypal')).toEqual({ status: 400, body: { message: 'Request is not well-formed.' } });
  });

  it("takes the enum value nearest the reason where the document's example breaks the enum", async () => {
    expect(await get('/slack?limit=1', null)).toEqual({ status: 401, body: { ok: false, error: 'invalid_auth' } });
    const invalid = await get('/slack');
    expect(invalid.status).toBe(400);
    expect(invalid.body).toMatchObject({ ok: false });
  });

  it('fills the fields of the example where the schema declares only `ok`', async () => {
    const anonymous = await get('/slack-open', null);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ ok: false, error: expect.stringMatching(/key|credential/i) });
  });
});

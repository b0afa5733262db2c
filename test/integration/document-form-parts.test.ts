import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSpecText } from '../../spec/load-spec.js';
import { type RunningMockServer, startMockServer } from '../../src/server/start-server.js';

// Issue 42: form and multipart text parts typed by their property's whole schema, as OpenAI's
// document writes them: a 3.0 `nullable: true` integer (createImageVariation's `n`), an object
// given by `allOf: [$ref]` with no type of its own (create-realtime-call's `session`), and
// const, enum, oneOf and no type at all. What a part's text becomes shows in what validation says.
const document = `openapi: 3.0.3
info: {title: Form parts, version: '1'}
paths:
  /variations:
    post:
      requestBody:
        required: true
        content:
          multipart/form-data:
            schema: {$ref: '#/components/schemas/Variation'}
            encoding: {session: {contentType: application/json}, extra: {contentType: application/json}}
          application/x-www-form-urlencoded:
            schema: {$ref: '#/components/schemas/Variation'}
      responses: {'201': {description: made}}
components:
  schemas:
    Session:
      type: object
      properties: {model: {type: string}, voice: {type: integer}}
      additionalProperties: false
    Variation:
      type: object
      required: [image]
      properties:
        image: {type: string, format: binary}
        n: {type: integer, minimum: 1, maximum: 10, nullable: true}
        session: {title: Session configuration, allOf: [{$ref: '#/components/schemas/Session'}]}
        extra: {description: 'no type; the encoding says JSON', maxProperties: 1}
        note: {description: no type at all, maxLength: 2}
        mode: {const: 3}
        size: {enum: [256, 512]}
        level: {oneOf: [{type: integer, minimum: 10}, {type: boolean}]}
      additionalProperties: false
`;

const quiet = { info() {}, debug() {}, warn() {}, error() {} };
let mock: RunningMockServer;
beforeAll(async () => {
  mock = await startMockServer({ port: 0, seed: 1, spec: parseSpecText(document), logger: quiet });
});
afterAll(() => mock.close());

/** Posts the fields as multipart/form-data (or urlencoded), an image part always; the status and the error's message. */
async function post(fields: Record<string, string>, as: 'multipart' | 'form' = 'multipart') {
  let body: FormData | URLSearchParams;
  if (as === 'multipart') {
    body = new FormData();
    body.append('image', new Blob([new Uint8Array([1, 2, 3])], { type: 'image/png' }), 'a.png');
    for (const [name, value] of Object.entries(fields)) body.append(name, value);
  } else body = new URLSearchParams({ image: 'bytes', ...fields });
  const response = await fetch(`${mock.origin}/variations`, { method: 'POST', body });
  const text = await response.text();
  return [response.status, response.status === 201 ? '' : (JSON.parse(text) as { message: string }).message];
}

describe.each(['multipart', 'form'] as const)('%s text fields typed by their whole schema', (as) => {
  it('reads a nullable integer as a number, and null from an empty text or `null`', async () => {
    for (const n of ['3', '', 'null']) expect(await post({ n }, as)).toEqual([201, '']);
    expect((await post({ n: '11' }, as))[1]).toMatch(/^Invalid request body: n: /);
    expect((await post({ n: 'three' }, as))[1]).toMatch(/^Invalid request body: n: /);
  });

  it('reads an object given by allOf of a $ref as JSON, and validates it as that object', async () => {
    expect(await post({ session: '{"model":"m","voice":2}' }, as)).toEqual([201, '']);
    expect((await post({ session: '{"voice":"loud"}' }, as))[1]).toMatch(/^Invalid request body: session\.voice: /);
    expect((await post({ session: 'not json' }, as))[1]).toMatch(/^Invalid request body: session: /);
  });

  it('reads const, enum and oneOf parts as their values, and keeps a part of no type as text', async () => {
    expect(await post({ mode: '3', size: '512', level: '12' }, as)).toEqual([201, '']);
    expect(await post({ level: 'true', note: '12' }, as)).toEqual([201, '']);
    expect((await post({ mode: '4' }, as))[1]).toMatch(/^Invalid request body: mode: /);
    expect((await post({ level: '5' }, as))[1]).toMatch(/^Invalid request body: level: /);
    // Kept as text, so maxLength holds: 123 as a number would have passed.
    expect((await post({ note: '123' }, as))[1]).toMatch(/^Invalid request body: note: /);
  });
});

describe('a part the encoding declares JSON', () => {
  it('is read as JSON when its schema gives no type', async () => {
    expect(await post({ extra: '{"a":1}' })).toEqual([201, '']);
    expect((await post({ extra: '{"a":1,"b":2}' }))[1]).toMatch(/^Invalid request body: extra: /);
  });
});

import { describe, expect, it } from 'vitest';
import { compileSpecDefinition } from '../../spec/compile-spec.js';
import { createDataGenerator } from '../../spec/data-generator.js';
import { parseSpecText } from '../../spec/load-spec.js';
import { createMockApp } from '../../src/core/mock-app.js';

// What the contract kit's generic layer found in the mock on the corpus documents, each pinned on a
// small document of the same shape.

const get = (app: ReturnType<typeof createMockApp>, url: string) =>
  app.handle({ method: 'GET', url, headers: {}, body: null, clientAddress: '127.0.0.1' });

describe('the generic layer findings', () => {
  it("answers errors in the document's shape when its fields are ours but typed otherwise (OpenAPI's petstore: code is an integer)", async () => {
    const app = createMockApp({
      spec: parseSpecText(`
openapi: 3.0.0
info: { title: Pets, version: '1' }
paths:
  /pets:
    get:
      parameters: [{ name: limit, in: query, schema: { type: integer } }]
      responses:
        '200': { description: ok }
        default:
          description: error
          content: { application/json: { schema: { type: object, required: [code, message], properties: { code: { type: integer }, message: { type: string } } } } }
`),
    });
    const answer = await get(app, '/pets?limit=many');
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body!)).toEqual({ code: 400, message: expect.stringContaining('limit') });
  });

  it('serves data generated from the schema when the example breaks it (Twilio: a price as a string where the schema says number)', async () => {
    const app = createMockApp({
      spec: parseSpecText(`
openapi: 3.0.1
info: { title: Prices, version: '1' }
paths:
  /price:
    get:
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: { type: object, required: [base_price], properties: { base_price: { type: number } } }
              example: { base_price: '0.05' }
`),
    });
    const body = JSON.parse((await get(app, '/price')).body!) as { base_price: unknown };
    expect(typeof body.base_price).toBe('number');
  });

  it('sends the response headers the document declares (Matrix: Content-Disposition on a download; issue 42: optional ones too)', async () => {
    const app = createMockApp({
      spec: parseSpecText(`
openapi: 3.1.0
info: { title: Media, version: '1' }
paths:
  /download:
    get:
      responses:
        '200':
          description: ok
          headers:
            Content-Disposition: { required: true, schema: { type: string, examples: ['attachment; filename="a.png"'] } }
            X-Optional: { schema: { type: string } }
          content: { image/png: {} }
`),
    });
    const answer = await get(app, '/download');
    expect(answer.headers['Content-Disposition']).toBe('attachment; filename="a.png"');
    expect(answer.headers['X-Optional']).toMatch(/^[\x20-\x7e]+$/);
  });

  it('generates a value of a tagged union whose tag narrows an allOf enum (Discord: a thread is channel type 10, 11 or 12)', () => {
    const definition = compileSpecDefinition(
      parseSpecText(`
openapi: 3.1.0
info: { title: Channels, version: '1' }
paths: {}
components:
  schemas:
    ChannelTypes: { type: integer, oneOf: [{ const: 0 }, { const: 1 }, { const: 2 }, { const: 3 }, { const: 4 }, { const: 5 }, { const: 10 }, { const: 11 }, { const: 12 }, { const: 13 }, { const: 14 }, { const: 15 }] }
    Thread: { type: object, required: [type], properties: { type: { type: integer, enum: [10, 11, 12], allOf: [{ $ref: '#/components/schemas/ChannelTypes' }] } } }
    Dm: { type: object, required: [type], properties: { type: { type: integer, enum: [1], allOf: [{ $ref: '#/components/schemas/ChannelTypes' }] } } }
    Channel: { oneOf: [{ $ref: '#/components/schemas/Dm' }, { $ref: '#/components/schemas/Thread' }] }
`),
    );
    const data = createDataGenerator(7);
    const channel = definition.componentSchemas.Channel!;
    const validator = definition.validatorFor(channel, 'Channel');
    for (let round = 0; round < 20; round += 1) expect(validator.isValid(data.generate(channel))).toBe(true);
  });
});

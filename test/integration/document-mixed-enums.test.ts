import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSpecText } from '../../spec/load-spec.js';
import { type RunningMockServer, startMockServer } from '../../src/server/start-server.js';

// Issue 42 item 4: a value sent as text (a form field, a multipart part, a query, path or header
// parameter) is accepted when any reading its schema allows is valid: the string `1` an enum of
// `['1', 2]` declares stays that string, where it used to become the number 1 and be refused.
const values = `
        code: {enum: ['1', 2]}
        ref: {enum: ['007', x, 3]}
        pick: {oneOf: [{const: '1'}, {type: integer}]}
        both: {type: [string, integer], enum: ['1', 2]}
        maybe: {type: [string, 'null'], enum: [a, null]}
        flag: {enum: ['true', false]}`;
const parameter = (where: string) => `{name: code, in: ${where}, required: true, schema: {enum: ['1', 2]}}`;
const ok = `{'200': {description: ok, content: {text/plain: {schema: {type: string}, example: read}}}}`;
const document31 = `openapi: 3.1.0
info: {title: Mixed enums, version: '1'}
paths:
  /forms:
    post:
      requestBody:
        required: true
        content:
          multipart/form-data: {schema: {$ref: '#/components/schemas/Values'}}
          application/x-www-form-urlencoded: {schema: {$ref: '#/components/schemas/Values'}}
      responses: {'201': {description: made}}
  /codes:
    get: {parameters: [${parameter('query')}], responses: ${ok}}
  /codes/{code}:
    get: {parameters: [${parameter('path')}], responses: ${ok}}
  /headers:
    get: {parameters: [${parameter('header')}], responses: ${ok}}
components:
  schemas:
    Values:
      type: object
      additionalProperties: false
      properties:${values}
`;
// OpenAPI 3.0's nullable, beside an enum that names null.
const document30 = `openapi: 3.0.3
info: {title: Nullable enums, version: '1'}
paths:
  /forms:
    post:
      requestBody:
        required: true
        content:
          application/x-www-form-urlencoded:
            schema:
              type: object
              properties: {maybe: {type: string, nullable: true, enum: ['1', null]}}
      responses: {'201': {description: made}}
`;

const quiet = { info() {}, debug() {}, warn() {}, error() {} };
let mock31: RunningMockServer;
let mock30: RunningMockServer;
beforeAll(async () => {
  const start = (text: string) => startMockServer({ port: 0, seed: 1, spec: parseSpecText(text), logger: quiet });
  [mock31, mock30] = await Promise.all([start(document31), start(document30)]);
});
afterAll(() => Promise.all([mock31.close(), mock30.close()]));

/** Posts the fields as multipart/form-data or urlencoded; the status and, on a refusal, its message. */
async function post(fields: Record<string, string>, as: 'multipart' | 'form', mock = mock31) {
  let body: FormData | URLSearchParams;
  if (as === 'multipart') {
    body = new FormData();
    for (const [name, value] of Object.entries(fields)) body.append(name, value);
  } else body = new URLSearchParams(fields);
  const response = await fetch(`${mock.origin}/forms`, { method: 'POST', body });
  const text = await response.text();
  return [response.status, response.status === 201 ? '' : (JSON.parse(text) as { message: string }).message];
}

describe.each(['multipart', 'form'] as const)('%s fields of mixed enums', (as) => {
  it('accepts the declared string that spells a number, and the number beside it', async () => {
    expect(await post({ code: '1', ref: '007', pick: '1', both: '1', maybe: 'a', flag: 'true' }, as)).toEqual([
      201,
      '',
    ]);
    expect(await post({ code: '2', ref: '3', pick: '12', both: '2', maybe: 'null', flag: 'false' }, as)).toEqual([
      201,
      '',
    ]);
    expect(await post({ ref: 'x', maybe: '' }, as)).toEqual([201, '']);
  });

  it('refuses a text that spells no declared value, naming the field', async () => {
    expect((await post({ code: '3' }, as))[1]).toMatch(/^Invalid request body: code: /);
    expect((await post({ ref: '7' }, as))[1]).toMatch(/^Invalid request body: ref: /);
    expect((await post({ both: '01x' }, as))[1]).toMatch(/^Invalid request body: both: /);
    expect((await post({ flag: 'False' }, as))[1]).toMatch(/^Invalid request body: flag: /);
  });
});

describe('a 3.0 nullable enum in a form', () => {
  it('reads the declared string, and null from `null` or an empty field', async () => {
    for (const maybe of ['1', 'null', '']) expect(await post({ maybe }, 'form', mock30)).toEqual([201, '']);
    expect((await post({ maybe: '2' }, 'form', mock30))[1]).toMatch(/^Invalid request body: maybe: /);
  });
});

describe('parameters of a mixed enum', () => {
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${mock31.origin}${path}`, { headers }).then(async (response) => [response.status, await response.text()]);

  it('accepts the declared string `1` and the number 2 in a query, a path and a header', async () => {
    const answers = await Promise.all([
      get('/codes?code=1'),
      get('/codes?code=2'),
      get('/codes/1'),
      get('/codes/2'),
      get('/headers', { code: '1' }),
      get('/headers', { code: '2' }),
    ]);
    expect(answers.map(([status]) => status)).toEqual([200, 200, 200, 200, 200, 200]);
  });

  it('refuses a value the enum does not declare', async () => {
    const answers = await Promise.all([get('/codes?code=3'), get('/codes/01x'), get('/headers', { code: 'one' })]);
    expect(answers.map(([status]) => status)).toEqual([400, 400, 400]);
  });
});

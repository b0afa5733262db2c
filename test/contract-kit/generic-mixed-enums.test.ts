import { afterAll, describe, expect, it } from 'vitest';
import { GenericRequestBuilder, genericOperations } from '../../contract-tests/lib/generic-requests.js';
import { compileSpecDefinition } from '../../spec/compile-spec.js';
import { createDataGenerator } from '../../spec/data-generator.js';
import { parseSpecText } from '../../spec/load-spec.js';
import { createMockApp } from '../../src/core/mock-app.js';

// Issue 42 item 4, the kit's side: a value of a mixed enum (`['1', 2]`) is sent as the text that
// spells it (the string '1' as `1`, the number 2 as `2`) in a form, a multipart part, a query, a
// path and a header, and the mock reads each back as the value it is (src/core/spec/text-typing.ts).
const values = `{type: object, required: [code, ref, pick], properties: {code: {enum: ['1', 2]}, ref: {enum: ['007', x, 3]}, pick: {oneOf: [{const: '1'}, {type: integer}]}}}`;
const example = `{code: '1', ref: '007', pick: '1'}`;
const parameter = (where: string, value: string) =>
  `{name: code, in: ${where}, required: true, schema: {enum: ['1', 2]}, example: ${value}}`;
const ok = `{'200': {description: ok}}`;
const document = `openapi: 3.1.0
info: {title: Mixed enums, version: '1'}
paths:
  /multipart:
    post:
      operationId: sendMultipart
      requestBody: {required: true, content: {multipart/form-data: {schema: ${values}, example: ${example}}}}
      responses: ${ok}
  /form:
    post:
      operationId: sendForm
      requestBody: {required: true, content: {application/x-www-form-urlencoded: {schema: ${values}, example: ${example}}}}
      responses: ${ok}
  /query:
    get: {operationId: sendQuery, parameters: [${parameter('query', "'1'")}], responses: ${ok}}
  /items/{code}:
    get: {operationId: sendPath, parameters: [${parameter('path', "'1'")}], responses: ${ok}}
  /header:
    get: {operationId: sendHeader, parameters: [${parameter('header', '2')}], responses: ${ok}}
`;
const operations = genericOperations(compileSpecDefinition(parseSpecText(document)));
const app = createMockApp({ spec: parseSpecText(document) });
afterAll(() => app.close());

const requestOf = (id: string) => {
  const operation = operations.find((candidate) => candidate.id === id)!;
  const builder = new GenericRequestBuilder(operation, createDataGenerator(1));
  return {
    method: operation.definition.method.toUpperCase(),
    request: builder.valid({ kind: 'none' }, builder.body()),
  };
};

describe('values of a mixed enum, as the generic layer sends them', () => {
  it('writes the string 1 and the number 2 as the texts 1 and 2', () => {
    expect(requestOf('sendForm').request.rawBody).toBe('code=1&ref=007&pick=1');
    const multipart = String(requestOf('sendMultipart').request.rawBody);
    for (const [name, text] of [
      ['code', '1'],
      ['ref', '007'],
      ['pick', '1'],
    ])
      expect(multipart).toContain(`name="${name}"\r\n\r\n${text}\r\n`);
    expect(requestOf('sendQuery').request.path).toBe('/query?code=1');
    expect(requestOf('sendPath').request.path).toBe('/items/1');
    expect(requestOf('sendHeader').request.headers.code).toBe('2');
  });

  it('is read back by the mock as the declared value: every valid request is answered 200', async () => {
    const statuses = await Promise.all(
      ['sendMultipart', 'sendForm', 'sendQuery', 'sendPath', 'sendHeader'].map(async (id) => {
        const { method, request } = requestOf(id);
        const headers: Record<string, string> = { ...request.headers, accept: '*/*' };
        if (request.contentType !== undefined) headers['content-type'] = request.contentType;
        const body = request.rawBody === undefined ? null : new TextEncoder().encode(String(request.rawBody));
        const answer = await app.handle({ method, url: request.path, headers, body, clientAddress: '10.0.0.9' });
        return [id, answer.status];
      }),
    );
    expect(statuses).toEqual([
      ['sendMultipart', 200],
      ['sendForm', 200],
      ['sendQuery', 200],
      ['sendPath', 200],
      ['sendHeader', 200],
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { GenericRequestBuilder, genericOperations } from '../../contract-tests/lib/generic-requests.js';
import { compileSpecDefinition } from '../../spec/compile-spec.js';
import { createDataGenerator } from '../../spec/data-generator.js';
import { parseSpecText } from '../../spec/load-spec.js';

// A form has no null: the generic layer sent the text `null` for a null field (OpenAI's nullable
// `n` of createImageVariation), which a correct server of an integer field refuses. It now leaves
// an optional null field out and sends a required one empty.
const schema = `{type: object, required: [kept], properties: {gone: {type: [integer, 'null']}, kept: {type: [integer, 'null']}, count: {type: integer}}}`;
const example = '{gone: null, kept: null, count: 3}';
const document = `openapi: 3.1.0
info: {title: Form nulls, version: '1'}
paths:
  /multipart:
    post:
      operationId: sendMultipart
      requestBody: {content: {multipart/form-data: {schema: ${schema}, example: ${example}}}}
      responses: {'200': {description: ok}}
  /form:
    post:
      operationId: sendForm
      requestBody: {content: {application/x-www-form-urlencoded: {schema: ${schema}, example: ${example}}}}
      responses: {'200': {description: ok}}
`;
const operations = genericOperations(compileSpecDefinition(parseSpecText(document)));
const bodyOf = (id: string) => {
  const operation = operations.find((candidate) => candidate.id === id)!;
  return String(new GenericRequestBuilder(operation, createDataGenerator(1)).body().rawBody);
};

describe('null fields of a form body', () => {
  it('leaves an optional one out of a multipart body and sends a required one empty', () => {
    const body = bodyOf('sendMultipart');
    expect(body).not.toContain('name="gone"');
    expect(body).toContain('name="kept"\r\n\r\n\r\n');
    expect(body).toContain('name="count"\r\n\r\n3\r\n');
    expect(body).not.toContain('null');
  });

  it('does the same in an urlencoded body', () => {
    expect(bodyOf('sendForm')).toBe('kept=&count=3');
  });
});

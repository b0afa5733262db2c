import { describe, expect, it } from 'vitest';
import { parseSpecText } from '../../spec/load-spec.js';
import { compileSpec } from '../core/spec/compiled-spec.js';
import { credentialsLine } from './credentials-banner.js';

const documentWith = (schemes: string, security: string) =>
  compileSpec(
    parseSpecText(`openapi: 3.1.0
info: {title: Banner, version: '1'}
security: ${security}
paths: {/things: {get: {responses: {'200': {description: ok}}}}}
components: {securitySchemes: ${schemes}}
`),
  );

describe('credentialsLine', () => {
  it("names an apiKey-only document's header, never Bearer", () => {
    const line = credentialsLine(
      documentWith(`{token: {type: apiKey, in: header, name: X-Gotify-Key}}`, '[{token: []}]'),
    );
    expect(line).toBe('API keys (send X-Gotify-Key: <key>):');
  });

  it('lists each way the operations take a key: bearer, basic, a query parameter, a cookie', () => {
    const line = credentialsLine(
      documentWith(
        `{b: {type: http, scheme: bearer}, u: {type: http, scheme: basic}, q: {type: apiKey, in: query, name: token}, c: {type: apiKey, in: cookie, name: sid}}`,
        '[{b: []}, {u: []}, {q: []}, {c: []}]',
      ),
    );
    expect(line).toBe(
      'API keys (send Authorization: Bearer <key>, or Authorization: Basic base64(<key>:), or ?token=<key>, or Cookie: sid=<key>):',
    );
  });

  it('says so when the document asks for no key', () => {
    expect(credentialsLine(documentWith('{}', '[]'))).toMatch(/asks for none/);
  });
});

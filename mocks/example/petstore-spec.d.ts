// `virtual:petstore-spec` is served by the esbuild plugin in mocks/scripts/bundle-spec.mjs: the
// spec YAML, parsed at bundle time. This declaration only tells TypeScript its shape.
declare module 'virtual:petstore-spec' {
  import type { OpenApiDocument } from '../../spec/openapi-types.js';
  export const petstoreSpec: OpenApiDocument;
  export default petstoreSpec;
}

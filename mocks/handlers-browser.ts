// What a page gets for `petstore-kit/mocks` (the package's `browser` condition) and what
// `petstore-kit/mocks/browser` builds on: the handlers, with zod handed over as the page loads them.
import '../spec/zod-for-pages.js';

export * from './handlers.js';

import { defineConfig } from 'vitest/config';

// The mutation run only (`npm run mutation`, stryker.config.mjs): the kit against the reference
// server, which Stryker mutates. Not part of `npm test`; its honest twin there is
// test/contract-kit/reference-server.test.ts.
export default defineConfig({
  test: {
    include: ['test/contract-kit/mutation/**/*.mutation.ts'],
    testTimeout: 120_000,
  },
});

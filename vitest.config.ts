import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // Node loads graphql's CommonJS build for the libraries (Pothos, Yoga); the project's own
    // code must get the very same module, or schemas "from another realm" are refused.
    alias: { graphql: require.resolve('graphql') },
  },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    setupFiles: ['test/helpers/zod-mode.ts'],
    // A file's first test starts its service (the serviceTest fixture), so a test has the time a
    // setup hook has.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Each test file gets its own database; two workers suit the 2-core machine.
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    reporters: ['default'],
  },
});

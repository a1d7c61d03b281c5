import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

/**
 * The files that replace a module with `vi.mock`: each is a project of its own, which the pool runs
 * in workers of its own. Every other file shares its worker's modules with the files before it
 * (`isolate: false`), so the service's modules are loaded once per worker rather than once per
 * file. `test/project/test-isolation.test.ts` keeps this list true.
 */
export const OWN_MODULE_GRAPH = ['test/auth/cache.test.ts', 'test/graphql/plain-post.test.ts', 'test/cli/safe-write.test.ts'];

export default defineConfig({
  resolve: {
    // Node loads graphql's CommonJS build for the libraries (Pothos, Yoga); the project's own
    // code must get the very same module, or schemas "from another realm" are refused.
    alias: { graphql: require.resolve('graphql') },
  },
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    setupFiles: ['test/helpers/zod-mode.ts'],
    // A file's first test starts its service (the serviceTest fixture), so a test has the time a
    // setup hook has.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Each test file gets its own database; two workers suit the 2-core machine.
    pool: 'forks',
    // Workers keep their modules from file to file (see OWN_MODULE_GRAPH); isolation is the pool's
    // setting, and the pool still gives each project its own workers.
    poolOptions: { forks: { maxForks: 2, minForks: 1, isolate: false } },
    reporters: ['default'],
    projects: [
      {
        extends: true,
        // Left out by negated patterns, not by `exclude`, which would replace the command line's --exclude.
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts', ...OWN_MODULE_GRAPH.map((file) => `!${file}`)],
        },
      },
      // One project each, so that each runs in workers of its own.
      ...OWN_MODULE_GRAPH.map((file) => ({ extends: true as const, test: { name: `own module graph: ${file}`, include: [file] } })),
    ],
  },
});

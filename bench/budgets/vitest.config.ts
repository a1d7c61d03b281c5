import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import base from '../../vitest.config.js';

/**
 * `npm run budgets`: the wall-clock and memory budgets, apart from the test suite. They measure
 * the machine as much as the code, so they run one file at a time with nothing else of the
 * project's beside them (`.ci/run` gives them a step of their own, after the tests).
 */
export default defineConfig({
  ...base,
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    ...base.test,
    include: ['bench/budgets/*.budget.ts'],
    projects: undefined,
    fileParallelism: false,
    poolOptions: { forks: { maxForks: 1, minForks: 1 } },
  },
});

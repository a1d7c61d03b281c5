/**
 * The long fuzzing run: the properties of test/system/fuzz.test.ts with FUZZ_RUNS=20000 runs
 * each (and up to FUZZ_SECONDS, default 600, per property), through vitest so they run exactly
 * as in the suite.
 *
 *   npm run fuzz                                   # embedded database
 *   DATABASE_URL=postgres://… npm run fuzz         # a PostgreSQL server (a throw-away database is made)
 *   FUZZ_RUNS=50000 FUZZ_SEED=123 npm run fuzz     # more runs, or replay a reported seed
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const vitest = require.resolve('vitest/vitest.mjs');

const env: NodeJS.ProcessEnv = { ...process.env, FUZZ_RUNS: process.env.FUZZ_RUNS ?? '20000' };
process.stdout.write(
  `fuzzing with FUZZ_RUNS=${env.FUZZ_RUNS}${env.FUZZ_SEED ? ` FUZZ_SEED=${env.FUZZ_SEED}` : ''}${env.FUZZ_SECONDS ? ` FUZZ_SECONDS=${env.FUZZ_SECONDS}` : ''}\n`,
);

const child = spawn(process.execPath, [vitest, 'run', 'test/system/fuzz.test.ts', ...process.argv.slice(2)], { env, stdio: 'inherit' });
// Ctrl-C reaches the child through the terminal; the exit code is passed on for CI.
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));

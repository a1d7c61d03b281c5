/**
 * The V8 flags the service's process is started with, given on its command line and nowhere else:
 * `npm start`, `npm run dev`, the benchmark, the soak and the tests that start the service as a
 * process all pass this list (test/runtime/v8-flags.test.ts checks the scripts). The entry point
 * says in its log when a flag is missing (`missingV8Flags`), and the service runs on without it.
 *
 * `--no-allocation-site-pretenuring`: V8 allocates objects straight into the old generation when
 * the site that makes them has seen most of its objects survive a young-generation collection.
 * Every row the pg driver parses comes from one site, so a few long-lived rows (caches) made V8
 * pretenure all of them; the service's rows live for one request, yet each was then freed only by
 * a full collection, and those full collections set the latency tail (docs/decisions.md,
 * "Performance").
 *
 * `--no-memory-reducer`: after a few seconds of quiet, V8's memory reducer runs full collections
 * that shrink the heap, the young generation included, and the next burst of requests pays for
 * growing it back. The service gives memory back itself, after 30 s of quiet rather than a few
 * seconds (src/runtime/idle-collection.ts); with the reducer on, a service serving in bursts
 * answered large `tools/list` pages at 0.09 less of the baseline's rate (docs/decisions.md,
 * "Performance").
 */
export const SERVICE_V8_FLAGS: readonly string[] = ['--no-allocation-site-pretenuring', '--no-memory-reducer'];

/** The flags of the list that this process was not started with. */
export function missingV8Flags(execArgv: readonly string[] = process.execArgv): string[] {
  return SERVICE_V8_FLAGS.filter((flag) => !execArgv.includes(flag));
}

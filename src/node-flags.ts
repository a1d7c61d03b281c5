/**
 * The flags the service's Node.js process is started with (`npm start`; the benchmark and the soak
 * start it with the same). V8 reads them when it sets its heap up, so they cannot be set from
 * inside the process as `src/v8-flags.ts` sets the others; test/node-flags.test.ts checks that the
 * start script carries them and that the project's Node.js accepts them.
 *
 * `--no-memory-reducer`: when the process goes quiet for a few seconds, V8's memory reducer runs
 * full collections that shrink the heap, the young generation included, and the next burst pays
 * for growing it back. Measured with the benchmark, whose servers idle while the others run:
 * `GET /v1/workflows/:id` cost 0.155–0.166 CPU ms a request in the rounds that followed an idle
 * spell against 0.121–0.128 in the rounds that followed the service's own load, and 0.116–0.131 in
 * every round with the reducer off (docs/performance.md). The service gives memory back itself,
 * after 30 s of quiet rather than a few seconds (src/idle-collection.ts).
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ['--no-memory-reducer'];

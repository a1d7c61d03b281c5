/**
 * The flags the service's Node.js process is started with (`npm start`; the benchmark and the soak
 * start it with the same). V8 reads them when it sets its heap up, so they cannot be set from
 * inside the process as `src/v8-flags.ts` sets the others; test/node-flags.test.ts checks that the
 * start script carries them and that the project's Node.js accepts them.
 *
 * `--no-memory-reducer`: when the process goes quiet for a few seconds, V8's memory reducer runs
 * full collections that shrink the heap, the young generation included, and the next burst pays
 * for growing it back, in CPU a request after every short pause (docs/decisions.md, "Performance").
 * The service gives memory back itself, after 30 s of quiet rather than a few seconds
 * (src/idle-collection.ts).
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ['--no-memory-reducer'];

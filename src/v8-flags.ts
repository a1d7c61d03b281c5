import { setFlagsFromString } from 'node:v8';

/**
 * V8 settings of the service process, applied before any other module of the service is loaded
 * (src/main.ts imports this first).
 *
 * Allocation-site pretenuring off: V8 allocates objects straight into the old generation when the
 * site that makes them has seen most of its objects survive a young-generation collection. Every
 * row the pg driver parses comes from one site, so a few long-lived rows (caches) made V8 pretenure
 * all of them; the service's rows live for one request, yet each was then freed only by a full
 * collection, and those full collections set the latency tail (docs/decisions.md, "Performance";
 * how to watch it: docs/performance.md, "Garbage collection").
 */
setFlagsFromString('--no-allocation-site-pretenuring');

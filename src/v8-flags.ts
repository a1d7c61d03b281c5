import { setFlagsFromString } from 'node:v8';

/**
 * V8 settings of the service process, applied before any other module of the service is loaded
 * (src/main.ts imports this first).
 *
 * Allocation-site pretenuring off: V8 allocates objects straight into the old generation when the
 * site that makes them has seen most of its objects survive a young-generation collection. Every
 * row the pg driver parses comes from one site, so a few long-lived rows (caches) made V8 pretenure
 * all of them; the service's rows live for one request, yet each was then freed only by a full
 * collection. Measured on GET /v1/workflows/:id under load: 3 to 4 MB moved to the old
 * generation per young collection with it (full collections of 5 to 48 ms), 0.1 to 0.2 MB
 * without, and a p99 of 12 to 14 ms instead of 12 to 16 ms (docs/performance.md).
 */
setFlagsFromString('--no-allocation-site-pretenuring');

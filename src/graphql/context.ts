import { initContextCache } from '@pothos/core';
import type { PrismaClient } from '@pothos/plugin-prisma';
import { RequestCache } from '@pothos/plugin-scope-auth';
import type { Services } from '../services.js';
import type { Viewer } from '../auth/viewer.js';
import { Loaders } from './loaders.js';

/** The viewer lives with authentication; re-exported for the faces that already name it here. */
export type { Viewer };

export interface GraphQLContext {
  viewer: Viewer | null;
  services: Services;
  /**
   * plugin-prisma's client, for the Prisma-backed object types (src/graphql/builder.ts): handed in
   * by the composition root, read by the plugin only. Resolvers call services.
   */
  prisma: PrismaClient;
  requestId: string;
  loaders: Loaders;
}

/**
 * What the pipeline adds to a request's context (which carries the viewer and request id) to make
 * it the context of one GraphQL execution (a REST route's or a /graphql operation's).
 *
 * Pothos plugins keep per-request caches in module-wide WeakMaps keyed by the context (or by its
 * `contextCacheSymbol` key). V8's young-generation collections do not clear entries of an old
 * WeakMap, so whatever such an entry reaches outlives them, is moved to the old generation and is
 * only freed by a full collection: the scope cache of every request (with the rows it checked)
 * would be promoted, and full collections set the latency tail (docs/decisions.md, "One execution pipeline for REST and GraphQL"). The context therefore carries a small key of its own for
 * those caches (so a retained entry does not reach the request's data), and `releaseContext`
 * removes the scope cache's entry once the execution is over.
 */
export function contextFields(
  services: Services,
  prisma: PrismaClient,
  viewer: Viewer | null,
): Pick<GraphQLContext, 'services' | 'prisma' | 'loaders'> {
  return Object.assign(initContextCache(), { services, prisma, loaders: new Loaders(services, viewer) });
}

export function releaseContext(context: object): void {
  RequestCache.clearForContext(context);
}

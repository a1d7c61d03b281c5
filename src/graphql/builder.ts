import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import type PrismaTypes from '../generated/pothos-prisma-types.js';
import { getDatamodel } from '../generated/pothos-prisma-types.js';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import { JSONResolver } from 'graphql-scalars';
import { AppError } from '../errors.js';
import type { PageInfo } from '../pagination.js';
import type { GraphQLContext } from './context.js';

/**
 * The Pothos builder: plugins and scalars only. Each resource module (src/<resource>/graphql.ts)
 * defines its types, queries and mutations; src/graphql/schema.ts imports them.
 */
export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  PrismaTypes: PrismaTypes;
  AuthScopes: { authenticated: boolean };
  DefaultFieldNullability: false;
  Scalars: {
    JSON: { Input: unknown; Output: unknown };
  };
}>({
  plugins: [ScopeAuthPlugin, PrismaPlugin, RelayPlugin],
  defaultFieldNullability: false,
  scopeAuth: {
    authScopes: (ctx) => ({ authenticated: ctx.viewer !== null }),
    unauthorizedError: () => new AppError('UNAUTHORIZED', 'authentication is required'),
  },
  prisma: {
    client: (ctx) => ctx.prisma,
    dmmf: getDatamodel(),
    exposeDescriptions: false,
    filterConnectionTotalCount: true,
  },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
  },
});

builder.addScalarType('JSON', JSONResolver);

builder.queryType({});
builder.mutationType({});

/** The pagination object of spec 2.2, shared by every list. */
export type { PageInfo };

export const PaginationRef = builder.objectRef<PageInfo>('Pagination').implement({
  description: 'Pagination of a list (spec 2.2). Pass nextCursor as the cursor argument to read the next page.',
  fields: (t) => ({
    nextCursor: t.exposeString('nextCursor', { nullable: true }),
    hasMore: t.exposeBoolean('hasMore'),
    count: t.exposeInt('count'),
  }),
});

/** Marks a field as GraphQL-only: the REST face does not select it (nested dashboard reads). */
export const graphqlOnly = { restExclude: true } as const;

import SchemaBuilder from '@pothos/core';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import ErrorsPlugin from '@pothos/plugin-errors';
import PrismaPlugin from '@pothos/plugin-prisma';
import type PrismaTypes from '../generated/pothos-prisma-types.js';
import { getDatamodel } from '../generated/pothos-prisma-types.js';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import { DateTimeResolver, JSONObjectResolver, JSONResolver } from 'graphql-scalars';
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
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
    JSONObject: { Input: Record<string, unknown>; Output: Record<string, unknown> };
  };
}>({
  plugins: [ScopeAuthPlugin, ErrorsPlugin, PrismaPlugin, RelayPlugin, DataloaderPlugin],
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
  errors: {
    defaultTypes: [],
  },
});

builder.addScalarType('DateTime', DateTimeResolver);
builder.addScalarType('JSON', JSONResolver);
builder.addScalarType('JSONObject', JSONObjectResolver);

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

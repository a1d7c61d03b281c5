import { assertValidSchema, lexicographicSortSchema, type GraphQLSchema } from 'graphql';
import { builder } from './builder.js';
// Each resource module registers its types, queries and mutations on import.
import '../users/graphql.js';
import '../manifest/graphql.js';
import '../billing/graphql.js';
import '../workflows/graphql.js';
import '../library/graphql.js';
import '../deployments/graphql.js';
import '../marketplace/graphql.js';
import '../reviews/graphql.js';
import '../api-keys/graphql.js';
import '../connected-apps/graphql.js';
import '../install/graphql.js';
import '../moderation/graphql.js';
import '../teams/graphql.js';

let schema: GraphQLSchema | undefined;

/** The schema, built once per process (the builder is a module singleton). */
export function getSchema(): GraphQLSchema {
  if (!schema) {
    schema = builder.toSchema({ sortSchema: false });
    // A broken schema fails the start, not the first request.
    assertValidSchema(schema);
  }
  return schema;
}

export function printableSchema(): GraphQLSchema {
  return lexicographicSortSchema(getSchema());
}
